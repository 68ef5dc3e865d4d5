/**
 * Review of perf13 (043866b): the request's estimate without its messages is
 * now kept, by the definitions array's identity, under a system prompt too.
 * On main a session with a system prompt worked it out at every request, so a
 * toolbox that hands out the same array with different contents (it adds a
 * tool it discovered to the array it returned before) got a `model_request`
 * whose `estimated_tokens` is the estimate of the request it announces. On the
 * branch the figure stays that of the first definitions seen in the run.
 *
 * Without a system prompt main has kept the estimate by identity since
 * session 5, so the second test fails on main too: the branch makes the two
 * cases agree. Whether a toolbox may change the array it handed out is not
 * written down anywhere (`Toolbox.Service.definitions` returns a
 * `ReadonlyArray`; no toolbox in the repository does it: the plugins' builds a
 * new array at every call, the in-process and @effect/ai ones a fixed one).
 * These are marked `fails` until that is decided: either the contract says
 * "a new array whenever the tools change" (then delete these tests), or the
 * estimate stops keying on identity (then drop `.fails`).
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

describe("review perf13: the request estimate kept by the definitions' identity", () => {
  it.effect.fails(
    "GAP (043866b, changed from main): under a system prompt, a definitions array changed in place keeps the first estimate",
    () =>
      Effect.gen(function* () {
        const { estimates, sent } = yield* estimatesWithGrowingArray("You are a careful agent.")
        expect(estimates).toEqual(sent)
      })
  )

  it.effect.fails("GAP (as on main since session 5): without a system prompt, the same", () =>
    Effect.gen(function* () {
      const { estimates, sent } = yield* estimatesWithGrowingArray(undefined)
      expect(estimates).toEqual(sent)
    })
  )
})
