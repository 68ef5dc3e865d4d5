/**
 * The interpreter performs its effects through one seam: a model call, a tool call, a retry's
 * sleep. A wrapper of that seam (what a durable runtime will be) sees every one of them, and
 * replaying what it recorded gives the same run.
 */
import { Content, type ModelError, ModelProvider, type RunOutcome, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Result from "effect/Result"
import type * as Effects from "../src/internal/effects.js"
import * as internal from "../src/internal/session.js"

type Entry =
  | { readonly kind: "model"; readonly result: Result.Result<ModelProvider.ModelResponse, ModelError.ModelError> }
  | { readonly kind: "tool"; readonly result: Content.ToolResultBlock }
  | { readonly kind: "sleep"; readonly millis: number }

/** Records every effect the loop performs, in order. */
const journaling =
  (journal: Array<Entry>) =>
  (live: Effects.Effects): Effects.Effects => ({
    model: (request, info) =>
      Effect.tap(live.model(request, info), (result) =>
        Effect.sync(() => void journal.push({ kind: "model", result }))
      ),
    tool: (call, info) =>
      Effect.tap(live.tool(call, info), (result) => Effect.sync(() => void journal.push({ kind: "tool", result }))),
    sleep: (delay) =>
      Effect.tap(live.sleep(delay), () =>
        Effect.sync(() => void journal.push({ kind: "sleep", millis: Duration.toMillis(delay) }))
      )
  })

/** Answers every effect from a journal, in order, performing none. */
const replaying = (journal: ReadonlyArray<Entry>) => (): Effects.Effects => {
  let next = 0
  const take = Effect.sync(() => journal[next++])
  const mismatch = (expected: string, entry: Entry | undefined) =>
    Effect.die(new Error(`the replay expected ${expected}, the journal has ${entry?.kind ?? "nothing"}`))
  return {
    model: () =>
      Effect.flatMap(take, (entry) =>
        entry?.kind === "model" ? Effect.succeed(entry.result) : mismatch("model", entry)
      ),
    tool: () =>
      Effect.flatMap(take, (entry) =>
        entry?.kind === "tool" ? Effect.succeed(entry.result) : mismatch("tool", entry)
      ),
    sleep: () => Effect.flatMap(take, (entry) => (entry?.kind === "sleep" ? Effect.void : mismatch("sleep", entry)))
  }
}

const toolbox: Toolbox.Service = {
  definitions: Effect.succeed([]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, JSON.stringify(call.input)))
}

const figures = (outcome: RunOutcome.RunOutcome) => ({
  status: outcome.status,
  turns: outcome.turns,
  retries: outcome.retries,
  history: outcome.history
})

describe("the effects seam", () => {
  it.effect("every model call, tool call and retry sleep goes through it; a replay of it is the same run", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 2_000 }),
        ScriptedModel.toolCalls({ id: "a", name: "echo", input: 1 }, { id: "b", name: "echo", input: 2 }),
        ScriptedModel.error("overloaded"),
        ScriptedModel.text("done")
      ])
      const journal: Array<Entry> = []
      const settings = { ...Settings.defaults, jitter: "none" as const }
      const live = yield* internal
        .make({ model: "m", settings }, journaling(journal))
        .pipe(Effect.provide(model.layer), Effect.provideService(Toolbox.Toolbox, toolbox))
      const first = yield* TestClockDriver.run(live.run("go"))
      assert.strictEqual(first.status, "completed")
      assert.deepStrictEqual(
        journal.map((entry) => entry.kind),
        ["model", "sleep", "model", "tool", "tool", "model", "sleep", "model"]
      )
      assert.deepStrictEqual(
        journal.flatMap((entry) => (entry.kind === "sleep" ? [entry.millis] : [])),
        [2_000, 500]
      )
      // A session whose provider and toolbox would fail, answered from the journal alone.
      const unreachable = ModelProvider.fromGenerate("unreachable", () =>
        Effect.die(new Error("the replay called the provider"))
      )
      const replayed = yield* internal
        .make({ model: "m", settings }, replaying(journal))
        .pipe(Effect.provideService(ModelProvider.ModelProvider, unreachable))
      const second = yield* replayed.run("go")
      assert.deepStrictEqual(figures(second), figures(first))
      // No sleep was taken: the replay's clock never moved.
      assert.strictEqual(second.wall_ms, 0)
    })
  )
  it.effect("a tool call's index is its place among the turn's calls that are run, whatever order they start in", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        {
          ...ScriptedModel.toolCalls(),
          content: [
            Content.toolUse("a", "echo", 1),
            // Never run (its input is not JSON): it takes no index.
            { ...Content.toolUse("x", "echo", {}), invalid_input: "{oops" },
            Content.toolUse("c", "echo", 3)
          ]
        },
        ScriptedModel.text("done")
      ])
      const cStarted = yield* Deferred.make<void>()
      const started: Array<readonly [string, number]> = []
      // "a" starts only once "c" has: concurrent calls start in any order.
      const start = (call: Content.ToolUseBlock, info: Effects.ToolInfo) =>
        Effect.sync(() => {
          started.push([call.id, info.index])
        })
      const reordering = (live: Effects.Effects): Effects.Effects => ({
        ...live,
        tool: (call, info) =>
          Effect.andThen(
            call.id === "a"
              ? Effect.andThen(Deferred.await(cStarted), start(call, info))
              : Effect.andThen(start(call, info), Deferred.succeed(cStarted, undefined)),
            live.tool(call, info)
          )
      })
      const settings = { ...Settings.defaults, jitter: "none" as const }
      const session = yield* internal
        .make({ model: "m", settings, toolConcurrency: 3 }, reordering)
        .pipe(Effect.provide(model.layer), Effect.provideService(Toolbox.Toolbox, toolbox))
      const outcome = yield* session.run("go")
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(started, [
        ["c", 1],
        ["a", 0]
      ])
    })
  )
})
