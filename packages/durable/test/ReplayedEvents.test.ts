/**
 * A journaled run's observers see each one-shot response's parts once, as a plain
 * session's do: a replayed model step shows no part events, and a live one shows them once.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { Content, EventBus, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const settings: Settings.Settings = { ...Settings.defaults, jitter: "none" }

const echo: Toolbox.Service = {
  definitions: Effect.succeed([]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, JSON.stringify(call.input)))
}

const withText = ScriptedModel.toolCalls({ id: "a", name: "echo", input: 1 }, { id: "", name: "echo", input: 2 })

const script = (): ReadonlyArray<ScriptedModel.Step> => [
  { ...withText, content: [Content.text("let me look"), ...withText.content] },
  // The wait suspends the execution: the next one replays the first turn from the journal.
  ScriptedModel.rateLimited({ retryAfterMs: 2_000 }),
  ScriptedModel.text("done")
]

const shown = (events: ReadonlyArray<{ readonly type: string }>) =>
  events.map((event) =>
    "id" in event && typeof event.id === "string"
      ? `${event.type}:${event.id}`
      : "text" in event
        ? `${event.type}:${String(event.text)}`
        : event.type
  )

describe("a durable replay's events", () => {
  it.effect("a journaled run's observers see the same events as a plain session's, parts once", () =>
    Effect.gen(function* () {
      const plainEvents: Array<{ readonly type: string }> = []
      const plainModel = yield* ScriptedModel.make(script())
      const plain = yield* Session.make({ id: "s", model: "m", settings }).pipe(
        Effect.provide(plainModel.layer),
        Effect.provideService(Toolbox.Toolbox, echo),
        Effect.provide(EventBus.layer([{ onEvent: (event) => Effect.sync(() => void plainEvents.push(event)) }]))
      )
      yield* TestClockDriver.run(plain.run("go"))

      const events: Array<{ readonly type: string }> = []
      const model = yield* ScriptedModel.make(script())
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        return yield* TestClockDriver.run(sessions.run("s", "go"))
      }).pipe(
        Effect.provide(
          DurableSessions.layer({ model: "m", settings }).pipe(
            Layer.provideMerge(Engine.layerMemory),
            Layer.provide(model.layer),
            Layer.provide(Toolbox.layer(echo)),
            Layer.provide(EventBus.layer([{ onEvent: (event) => Effect.sync(() => void events.push(event)) }]))
          )
        ),
        Effect.scoped
      )
      const parts = shown(events).filter((type) => type.startsWith("text_delta") || type.startsWith("tool_use_started"))
      expect(parts).toEqual([
        "text_delta:let me look",
        "tool_use_started:a",
        "tool_use_started:tool_1.1.2",
        "text_delta:done"
      ])
      // The whole sequence, not only the parts: a replayed step shows nothing, so it reads as the plain run's.
      expect(shown(events)).toEqual(shown(plainEvents))
      // The first turn's model call was replayed from the journal, not made again.
      expect((yield* model.calls).length).toBe(3)
    })
  )
})
