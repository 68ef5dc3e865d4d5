/**
 * The Vercel AI SDK 7 running the scenario: `generateText` with one tool and
 * `stopWhen: isStepCount(steps + 1)`, against `MockLanguageModelV4` from
 * `ai/test` (the SDK's own language-model interface, version 4).
 *
 * Fairness: the mock and the tool are made fresh for each run, and the mock's
 * call log (`doGenerateCalls`, which keeps every request's options) is cleared
 * on every call, so no cost grows across calls or runs that a real provider
 * would not have. The tool's input schema is `jsonSchema` with no validator,
 * so the SDK does not validate the tool input (the kernel does not either).
 * Telemetry is left at its default (off).
 *
 * @since 0.1.0
 */
import { generateText, isStepCount, jsonSchema, tool } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import * as Script from "./Script.js"

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined }
}

const toolCall = (call: number) => ({
  content: [
    {
      type: "tool-call" as const,
      toolCallId: Script.callId(call),
      toolName: Script.toolName,
      input: JSON.stringify(Script.input(call))
    }
  ],
  finishReason: { unified: "tool-calls" as const, raw: "tool_use" },
  usage,
  warnings: []
})

const finalAnswer = () => ({
  content: [{ type: "text" as const, text: Script.finalText }],
  finishReason: { unified: "stop" as const, raw: "end_turn" },
  usage,
  warnings: []
})

/**
 * The scripted model's answer to its `call`th call, in the shape that both
 * the SDK 7 model interface (version 4) and the SDK 6 one (version 3) take.
 *
 * @since 0.1.0
 * @category constructors
 */
export const response = (call: number, steps: number): ReturnType<typeof toolCall> | ReturnType<typeof finalAnswer> =>
  Script.wantsTool(call, steps) ? toolCall(call) : finalAnswer()

const inputSchema = jsonSchema<Script.Input>(Script.inputJsonSchema)

/**
 * The scripted mock model of one run. It clears its own call log on every
 * call, so the log holds at most the current call's options.
 *
 * @since 0.1.0
 * @category constructors
 */
export const mockModel = (steps: number, counted: Script.Counted): MockLanguageModelV4 => {
  const model: MockLanguageModelV4 = new MockLanguageModelV4({
    doGenerate: async () => {
      model.doGenerateCalls.length = 0
      return response(counted.model++, steps)
    }
  })
  return model
}

/**
 * One run of the scenario.
 *
 * @since 0.1.0
 * @category running
 */
export const run = async (steps: number): Promise<void> => {
  const counted: Script.Counted = { model: 0, tool: 0 }
  const result = await generateText({
    model: mockModel(steps, counted),
    prompt: Script.prompt,
    tools: {
      [Script.toolName]: tool({
        description: Script.toolDescription,
        inputSchema,
        execute: async (input) => {
          counted.tool++
          return Script.echo(input)
        }
      })
    },
    stopWhen: isStepCount(steps + 1)
  })
  if (result.text !== Script.finalText) throw new Error(`AI SDK: the run ended with "${result.text}"`)
  Script.check("AI SDK", steps, counted)
}
