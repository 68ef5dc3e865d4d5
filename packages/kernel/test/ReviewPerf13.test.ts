/**
 * Review of perf13 (043866b): the request's estimate without its messages is
 * kept while the tool definitions stay the same, under a system prompt too. It
 * was kept by the definitions array's identity (without a system prompt since
 * session 5), so a toolbox that hands out the same array with different
 * contents (it adds a tool it found to the array it returned before) got a
 * `model_request` whose `estimated_tokens` was the first request's. The
 * definitions are now compared one by one with a copy of the last ones seen
 * (`Toolbox.Service.definitions` says an array may change, a definition object
 * may not): both tests failed before, and hold the figure to the estimate of
 * the request each `model_request` announces.
 */
import {
  Content,
  EventBus,
  type KernelEvent,
  type ModelProvider,
  Session,
  TokenEstimate,
  Toolbox
} from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

/** Two tool turns and an answer, under `system`, with a toolbox whose one array gains a tool at every request. */
const estimatesWithGrowingArray = (system: string | undefined) =>
  Effect.gen(function* () {
    const model = yield* ScriptedModel.make([
      ScriptedModel.toolCalls({ id: "c1", name: "t0", input: {} }),
      ScriptedModel.toolCalls({ id: "c2", name: "t0", input: {} }),
      ScriptedModel.text("done")
    ])
    const definitions: Array<ModelProvider.ToolDefinition> = []
    const toolbox: Toolbox.Service = {
      definitions: Effect.sync(() => {
        definitions.push({
          name: `t${definitions.length}`,
          description: "a tool found since the last request ".repeat(20),
          input_schema: { type: "object" }
        })
        return definitions
      }),
      invoke: (call) => Effect.succeed(Content.toolResult(call.id, "ok"))
    }
    const events: Array<KernelEvent.KernelEvent> = []
    const bus = EventBus.of([{ onEvent: (event) => Effect.sync(() => void events.push(event)) }])
    const session = yield* Session.make({ model: "model-a", system, metrics: false }).pipe(
      Effect.provide(model.layer),
      Effect.provideService(Toolbox.Toolbox, toolbox),
      Effect.provideService(EventBus.EventBus, bus)
    )
    expect((yield* session.run("hi")).status).toBe("completed")
    const announced = events.flatMap((event) => (event.type === "model_request" ? [event] : []))
    const requests = yield* model.requests
    // Each request is announced before the next asks for the definitions: the estimate of what it held then.
    const sent = announced.map((event, i) =>
      TokenEstimate.request({ system, messages: requests[i]!.messages, tools: definitions.slice(0, event.tools) })
    )
    return { estimates: announced.map((event) => event.estimated_tokens), sent }
  })

describe("review perf13: the request estimate kept while the definitions stay the same", () => {
  it.effect("under a system prompt, a definitions array changed in place gets the estimate of what it holds", () =>
    Effect.gen(function* () {
      const { estimates, sent } = yield* estimatesWithGrowingArray("You are a careful agent.")
      expect(estimates).toEqual(sent)
    })
  )

  it.effect("without a system prompt, the same", () =>
    Effect.gen(function* () {
      const { estimates, sent } = yield* estimatesWithGrowingArray(undefined)
      expect(estimates).toEqual(sent)
    })
  )
})
