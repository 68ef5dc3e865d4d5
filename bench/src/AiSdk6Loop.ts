/**
 * The Vercel AI SDK 6 running the scenario, as `AiSdkLoop` runs SDK 7:
 * `generateText` with one tool and `stopWhen: stepCountIs(steps + 1)`,
 * against `MockLanguageModelV3` from `ai/test` (SDK 6's model interface,
 * version 3), with the same scripted answers and the same fairness (a fresh
 * mock and tool each run, the mock's call log cleared on every call, no
 * input validation, telemetry off).
 *
 * @since 0.1.0
 */
import { generateText, jsonSchema, stepCountIs, tool } from "ai-v6"
import { MockLanguageModelV3 } from "ai-v6/test"
import { response } from "./AiSdkLoop.js"
import * as Script from "./Script.js"

const inputSchema = jsonSchema<Script.Input>(Script.inputJsonSchema)

const mockModel = (steps: number, counted: Script.Counted): MockLanguageModelV3 => {
  const model: MockLanguageModelV3 = new MockLanguageModelV3({
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
    stopWhen: stepCountIs(steps + 1)
  })
  if (result.text !== Script.finalText) throw new Error(`AI SDK 6: the run ended with "${result.text}"`)
  Script.check("AI SDK 6", steps, counted)
}
