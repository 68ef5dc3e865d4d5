/**
 * A `model_request`'s `estimated_tokens` is the kernel's estimate of the
 * request it announces (`TokenEstimate.request`): system prompt, messages and
 * tool definitions. The loop keeps the part without the messages while the
 * definitions stay the same (compared one by one), with a system prompt too,
 * so these tests hold the figure to the whole estimate of each request, across turns and when the
 * toolbox hands out new definitions, or changes the array it handed out.
 */
import { Content, EventBus, type KernelEvent, Session, TokenEstimate, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

const definition = (name: string, description: string) => ({ name, description, input_schema: { type: "object" } })

/** Runs `turns` tool turns and a final answer under a system prompt, recording every event. */
const runUnder = (system: string | undefined, toolbox: Toolbox.Service, turns: number) =>
  Effect.gen(function* () {
    const model = yield* ScriptedModel.make([
      ...Array.from({ length: turns }, (_, i) =>
        ScriptedModel.toolCalls({ id: `c${i}`, name: "echo", input: { text: "x".repeat(i * 7) } })
      ),
      ScriptedModel.text("done")
    ])
    const events: Array<KernelEvent.KernelEvent> = []
    const bus = EventBus.of([{ onEvent: (event) => Effect.sync(() => void events.push(event)) }])
    const session = yield* Session.make({ model: "model-a", system, metrics: false }).pipe(
      Effect.provide(model.layer),
      Effect.provideService(Toolbox.Toolbox, toolbox),
      Effect.provideService(EventBus.EventBus, bus)
    )
    const outcome = yield* session.run("hi")
    expect(outcome.status).toBe("completed")
    const announced = events.flatMap((event) => (event.type === "model_request" ? [event] : []))
    return {
      estimates: announced.map((event) => event.estimated_tokens),
      tools: announced.map((event) => event.tools),
      requests: yield* model.requests
    }
  })

const echo = (call: Content.ToolUseBlock) => Effect.succeed(Content.toolResult(call.id, JSON.stringify(call.input)))

describe("model_request estimated_tokens", () => {
  it.effect("is the whole request's estimate at every step, with and without a system prompt", () =>
    Effect.gen(function* () {
      const toolbox: Toolbox.Service = {
        definitions: Effect.succeed([definition("echo", "Echo the input")]),
        invoke: echo
      }
      for (const system of [undefined, "You are a careful agent.", "s".repeat(4001)]) {
        const { estimates, requests } = yield* runUnder(system, toolbox, 4)
        expect(requests).toHaveLength(5)
        expect(requests.every((request) => request.system === system)).toBe(true)
        expect(estimates).toEqual(requests.map((request) => TokenEstimate.request(request)))
      }
    })
  )

  it.effect("follows the definitions when the toolbox hands out new ones, under a system prompt", () =>
    Effect.gen(function* () {
      // Each request's definitions are a new array, longer every other turn: four different ones in six requests.
      let asked = 0
      const toolbox: Toolbox.Service = {
        definitions: Effect.sync(() => {
          asked++
          return [definition("echo", "Echo the input".repeat(1 + Math.floor(asked / 2)))]
        }),
        invoke: echo
      }
      const { estimates, requests } = yield* runUnder("You are a careful agent.", toolbox, 5)
      expect(requests).toHaveLength(6)
      expect(new Set(requests.map((request) => JSON.stringify(request.tools))).size).toBe(4)
      expect(estimates).toEqual(requests.map((request) => TokenEstimate.request(request)))
    })
  )

  // An estimate kept by the definitions array's identity would miss a tool added to the array handed out.
  it.effect("follows a definitions array the toolbox changes in place, with and without a system prompt", () =>
    Effect.gen(function* () {
      for (const system of [undefined, "You are a careful agent."]) {
        const definitions: Array<ReturnType<typeof definition>> = []
        const toolbox: Toolbox.Service = {
          definitions: Effect.sync(() => {
            definitions.push(definition(`t${definitions.length}`, "a tool found since the last request ".repeat(20)))
            return definitions
          }),
          invoke: echo
        }
        const { estimates, tools, requests } = yield* runUnder(system, toolbox, 2)
        // The array grew after each request was sent: each held its first `tools` definitions then.
        const sent = requests.map((request, i) =>
          TokenEstimate.request({ system, messages: request.messages, tools: definitions.slice(0, tools[i]) })
        )
        expect(estimates).toEqual(sent)
      }
    })
  )
})
