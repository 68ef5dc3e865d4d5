/**
 * effect/ai (effect 4.1) running the scenario. `LanguageModel` has no agent
 * loop of its own, so the loop is the one its docs suggest:
 * `generateText` with a `Toolkit` of one tool (the library runs the tool
 * calls it gets back), then the response's parts are appended to the
 * `Prompt` and the model is called again, until a response has no tool call.
 *
 * The model is a `LanguageModel.make` service whose `generateText` returns
 * the encoded parts a provider would (a tool call or text, then a finish part
 * with usage). Fairness: the model, its call count and the tool's handlers are
 * made fresh for each run; the tool and toolkit definitions are shared, as
 * the other loops share theirs. The tool's parameters are a Schema, which
 * effect/ai always decodes: that is part of its cost.
 *
 * @since 0.1.0
 */
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Script from "./Script.js"

const Echo = Tool.make(Script.toolName, {
  description: Script.toolDescription,
  parameters: Schema.Struct({ i: Schema.Finite }),
  success: Schema.String
})

const EchoToolkit = Toolkit.make(Echo)

const finish = (reason: "tool-calls" | "stop"): Response.FinishPartEncoded => ({
  type: "finish",
  reason,
  usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }
})

const response = (call: number, steps: number): Array<Response.PartEncoded> =>
  Script.wantsTool(call, steps)
    ? [
        { type: "tool-call", id: Script.callId(call), name: Script.toolName, params: Script.input(call) },
        finish("tool-calls")
      ]
    : [{ type: "text", text: Script.finalText }, finish("stop")]

/**
 * One run of the scenario, as an Effect.
 *
 * @since 0.1.0
 * @category running
 */
export const runEffect = (steps: number): Effect.Effect<void> =>
  Effect.gen(function* () {
    const counted: Script.Counted = { model: 0, tool: 0 }
    const model = yield* LanguageModel.make({
      generateText: () => Effect.sync(() => response(counted.model++, steps)),
      streamText: () => Stream.die(new Error("the benchmark does not stream"))
    })
    const toolkit = yield* Effect.provide(
      EchoToolkit,
      EchoToolkit.toLayer({
        [Script.toolName]: (input: Script.Input) =>
          Effect.sync(() => {
            counted.tool++
            return Script.echo(input)
          })
      })
    )
    let prompt = Prompt.make(Script.prompt)
    while (true) {
      const result = yield* model.generateText({ prompt, toolkit })
      prompt = Prompt.concat(prompt, Prompt.fromResponseParts(result.content))
      if (result.toolCalls.length === 0) {
        if (result.text !== Script.finalText)
          return yield* Effect.die(new Error(`effect/ai: the run ended with "${result.text}"`))
        break
      }
    }
    yield* Effect.sync(() => Script.check("effect/ai", steps, counted))
  }).pipe(Effect.orDie)

/**
 * One run of the scenario, as a promise.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (steps: number): Promise<void> => Effect.runPromise(runEffect(steps))
