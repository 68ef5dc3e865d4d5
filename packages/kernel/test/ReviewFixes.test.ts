/**
 * The findings of an independent review of the redesigned kernel: each test here names the
 * finding it proves, and the ones for a fix failed on the code the review read.
 */
import {
  Content,
  Decision,
  EventBus,
  KernelEvent,
  type ModelError,
  RetryBudget,
  Session,
  Settings,
  Toolbox
} from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { echoToolbox, ofType, runScript } from "./harness.js"

interface Setup {
  readonly script: ReadonlyArray<ScriptedModel.Step>
  readonly toolbox?: Toolbox.Service
  readonly observers?: ReadonlyArray<EventBus.Observer>
  readonly toolConcurrency?: number
  readonly settings?: Partial<Settings.Settings>
  readonly state?: Session.State
}

/** A session against a scripted model that records every event it publishes. */
const sessionOf = (setup: Setup) =>
  Effect.gen(function* () {
    const model = yield* ScriptedModel.make(setup.script)
    const events: Array<KernelEvent.KernelEvent> = []
    const bus = yield* EventBus.make([
      { onEvent: (event) => Effect.sync(() => events.push(event)) },
      ...(setup.observers ?? [])
    ])
    const session = yield* Session.make({
      model: "model-a",
      settings: { ...Settings.defaults, ...setup.settings },
      toolConcurrency: setup.toolConcurrency,
      state: setup.state
    }).pipe(
      Effect.provide(model.layer),
      Effect.provideService(EventBus.EventBus, bus),
      Effect.provideService(Toolbox.Toolbox, setup.toolbox ?? echoToolbox)
    )
    return { session, model, events }
  })

const resultsOf = (message: Content.Message | undefined) =>
  (message?.content ?? []).flatMap((block) => (block.type === "tool_result" ? [block] : []))

describe("finding 1: an interrupt during a turn's tools keeps the results that came back", () => {
  for (const toolConcurrency of [1, 2]) {
    it.effect(`toolConcurrency ${toolConcurrency}: the first tool's real result is kept, and events agree`, () =>
      Effect.gen(function* () {
        const secondStarted = yield* Deferred.make<void>()
        const toolbox: Toolbox.Service = {
          ...echoToolbox,
          invoke: (call) =>
            call.id === "a"
              ? Effect.succeed(Content.toolResult(call.id, "REAL RESULT A"))
              : Effect.zipRight(Deferred.succeed(secondStarted, undefined), Effect.never)
        }
        const { session, events } = yield* sessionOf({
          script: [
            ScriptedModel.toolCalls({ id: "a", name: "echo" }, { id: "b", name: "echo" }),
            ScriptedModel.text("never")
          ],
          toolbox,
          toolConcurrency
        })
        const fiber = yield* Effect.fork(session.run("go"))
        yield* Deferred.await(secondStarted)
        yield* Fiber.interrupt(fiber)
        const history = yield* session.history
        const results = resultsOf(history.at(-1))
        assert.deepStrictEqual(
          results.map((block) => [block.tool_use_id, block.content, block.is_error]),
          [
            ["a", "REAL RESULT A", false],
            ["b", "The run was interrupted before this tool returned.", true]
          ]
        )
        // The event stream says what history says: tool a returned, and nothing returned for b.
        assert.deepStrictEqual(
          ofType(events, "tool_result").map((event) => [event.id, event.preview, event.is_error]),
          [["a", "REAL RESULT A", false]]
        )
        assert.strictEqual(ofType(events, "run_ended")[0]?.status, "interrupted")
      })
    )
  }
})

describe("finding 2: a retry interrupted before its sleep is not charged", () => {
  it.effect("an interrupt while a slow observer handles retry_scheduled gives the token back", () =>
    Effect.gen(function* () {
      const inObserver = yield* Deferred.make<void>()
      const slowObserver: EventBus.Observer = {
        onEvent: (event) =>
          event.type === "retry_scheduled"
            ? Effect.zipRight(Deferred.succeed(inObserver, undefined), Effect.sleep("1 second"))
            : Effect.void
      }
      const { session, model, events } = yield* sessionOf({
        script: [ScriptedModel.rateLimited(), ScriptedModel.text("never")],
        observers: [slowObserver]
      })
      const fiber = yield* Effect.fork(session.run("go"))
      yield* Deferred.await(inObserver)
      // The retry was charged when it was decided, and its event says so.
      assert.deepStrictEqual(
        ofType(events, "retry_scheduled").map((event) => event.session_retries_used),
        [1]
      )
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(yield* session.retryBudget, { used: 0, remaining: 20 })
      assert.deepStrictEqual(
        ofType(events, "run_ended").map((event) => [event.status, event.retries.session_total]),
        [["interrupted", 0]]
      )
      assert.lengthOf(yield* model.calls, 1)
    })
  )
})

describe("finding 3: a bound that already ended the run is checked before a fallback is charged", () => {
  for (const max_retries of [0, 5]) {
    it.effect(`max_retries ${max_retries}: cost over max_cost_usd ends the run uncharged, with no fallback`, () =>
      Effect.gen(function* () {
        const spent = { input_tokens: 1_000, output_tokens: 1_000 }
        const { outcome, events, calls } = yield* runScript(
          [ScriptedModel.error("overloaded", { midStream: true, usage: spent }), ScriptedModel.text("never")],
          {
            settings: {
              max_retries,
              fallback_models: ["model-b"],
              max_cost_usd: 1,
              prices: { "model-a": { input_per_mtok: 1_000, output_per_mtok: 1_000 } }
            }
          }
        )
        assert.strictEqual(outcome.status, "cost_exceeded")
        assert.strictEqual(outcome.error?.category, "overloaded")
        assert.strictEqual(outcome.retries.session_total, 0)
        assert.lengthOf(ofType(events, "fallback"), 0)
        assert.lengthOf(ofType(events, "retry_scheduled"), 0)
        assert.lengthOf(calls, 1)
      })
    )
  }
})

describe("finding 4: the concurrent tool path", () => {
  it.effect("out-of-order completion and duplicate ids: results sit in call order, each with its call", () =>
    Effect.gen(function* () {
      // The first call is the slowest: the others complete before it.
      const delays: Record<string, number> = { first: 30, second: 10, third: 0 }
      const completed: Array<string> = []
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        invoke: (call) => {
          const label = String((call.input as { readonly label: string }).label)
          return Effect.sleep(Duration.millis(delays[label] ?? 0)).pipe(
            Effect.zipRight(Effect.sync(() => completed.push(label))),
            Effect.as(Content.toolResult(call.id, `result of ${label}`))
          )
        }
      }
      const { session, events, model } = yield* sessionOf({
        script: [
          ScriptedModel.toolCalls(
            { id: "dup", name: "echo", input: { label: "first" } },
            { id: "dup", name: "echo", input: { label: "second" } },
            { id: "other", name: "echo", input: { label: "third" } }
          ),
          ScriptedModel.text("done")
        ],
        toolbox,
        toolConcurrency: 3
      })
      const outcome = yield* TestClockDriver.run(session.run("go"))
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(completed, ["third", "second", "first"])
      const [, assistant, results] = outcome.history
      const ids = Content.toolUses(assistant!).map((call) => call.id)
      assert.lengthOf(new Set(ids), 3)
      assert.deepStrictEqual(
        resultsOf(results).map((block) => [block.tool_use_id, block.content]),
        [
          [ids[0], "result of first"],
          [ids[1], "result of second"],
          [ids[2], "result of third"]
        ]
      )
      // Events come as the calls complete, each naming its call's unique id and its own result.
      assert.deepStrictEqual(
        ofType(events, "tool_result").map((event) => [event.id, event.preview]),
        [
          [ids[2], "result of third"],
          [ids[1], "result of second"],
          [ids[0], "result of first"]
        ]
      )
      assert.sameMembers(
        ofType(events, "tool_call_started").map((event) => event.id),
        ids
      )
      // The next request carries the same pairs.
      const next = (yield* model.calls)[1]!.request.messages.at(-1)
      assert.deepStrictEqual(
        resultsOf(next).map((block) => block.tool_use_id),
        ids
      )
    })
  )
})

describe("finding 5: the unique ids reach every reader", () => {
  it.effect("the post-model-response hook sees the unique ids", () =>
    Effect.gen(function* () {
      const seen: Array<ReadonlyArray<string>> = []
      const { outcome } = yield* runScript(
        [
          ScriptedModel.toolCalls({ id: "", name: "echo", input: {} }, { id: "", name: "echo", input: {} }),
          ScriptedModel.text("done")
        ],
        {
          toolbox: echoToolbox,
          observers: [
            {
              onModelResponse: (response) =>
                Effect.sync(() => {
                  seen.push(response.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : [])))
                })
            }
          ]
        }
      )
      const ids = Content.toolUses(outcome.history[1]!).map((call) => call.id)
      assert.lengthOf(new Set(ids), 2)
      assert.isTrue(ids.every((id) => id !== ""))
      assert.deepStrictEqual(seen, [ids, []])
    })
  )

  it.effect("a toolbox result's tool_use_id is rewritten to its call's unique id", () =>
    Effect.gen(function* () {
      // A toolbox that answers with the id the model sent, not the one the kernel gave the call.
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        invoke: () => Effect.succeed(Content.toolResult("dup", "ok"))
      }
      const { outcome, events } = yield* runScript(
        [
          ScriptedModel.toolCalls({ id: "dup", name: "echo", input: {} }, { id: "dup", name: "echo", input: {} }),
          ScriptedModel.text("done")
        ],
        { toolbox }
      )
      const ids = Content.toolUses(outcome.history[1]!).map((call) => call.id)
      assert.lengthOf(new Set(ids), 2)
      assert.deepStrictEqual(
        resultsOf(outcome.history[2]).map((block) => [block.tool_use_id, block.content]),
        ids.map((id) => [id, "ok"])
      )
      assert.deepStrictEqual(
        ofType(events, "tool_result").map((event) => event.id),
        ids
      )
    })
  )

  it.effect("a replacement id that collides with an id of the response is skipped", () =>
    Effect.gen(function* () {
      // Run 1, turn 1: the fourth call's candidates "x_1.1.3" and "x_1.1.4" are ids of the response.
      const { outcome } = yield* runScript(
        [
          ScriptedModel.toolCalls(
            { id: "x_1.1.3", name: "echo", input: {} },
            { id: "x_1.1.4", name: "echo", input: {} },
            { id: "x", name: "echo", input: {} },
            { id: "x", name: "echo", input: {} }
          ),
          ScriptedModel.text("done")
        ],
        { toolbox: echoToolbox }
      )
      assert.deepStrictEqual(
        Content.toolUses(outcome.history[1]!).map((call) => call.id),
        ["x_1.1.3", "x_1.1.4", "x", "x_1.1.5"]
      )
    })
  )
})

describe("finding 6: a bound is checked before the budget", () => {
  const overloaded: ModelError.ModelError = ScriptedModel.error("overloaded")
  const bounds = { ...Settings.defaults, max_wall_clock_ms: 10_000, max_cost_usd: 1 }
  const spentBudget = RetryBudget.fixed(1)
  const empty = Option.getOrThrow(spentBudget.acquire(spentBudget.initial))
  const context = (over: Partial<Decision.Context>): Decision.Context => ({
    now: 0,
    startedAt: 0,
    bounds,
    cost: null,
    reductions: 0,
    fallback: undefined,
    budget: spentBudget,
    budgetState: empty,
    ...over
  })

  it("a retry whose wait breaks the wall clock ends wall_clock_exceeded, even with an empty budget", () => {
    const decision = Decision.decide(overloaded, Option.some(Duration.millis(500)), context({ now: 9_800 }))
    assert.deepStrictEqual(
      [decision._tag, decision._tag === "End" ? decision.status : ""],
      ["End", "wall_clock_exceeded"]
    )
  })

  it("a cost over its bound ends cost_exceeded, even with an empty budget", () => {
    const decision = Decision.decide(overloaded, Option.some(Duration.millis(500)), context({ cost: 2 }))
    assert.deepStrictEqual([decision._tag, decision._tag === "End" ? decision.status : ""], ["End", "cost_exceeded"])
  })

  it("a fallback after a broken bound ends with the bound, and is not charged", () => {
    const budget = RetryBudget.fixed(5)
    const decision = Decision.decide(
      overloaded,
      Option.none(),
      context({ cost: 2, fallback: "model-b", budget, budgetState: budget.initial })
    )
    assert.deepStrictEqual([decision._tag, decision._tag === "End" ? decision.status : ""], ["End", "cost_exceeded"])
  })

  it("within the bounds, an empty budget ends retry_budget_exhausted", () => {
    const decision = Decision.decide(overloaded, Option.some(Duration.millis(500)), context({ now: 1_000 }))
    assert.deepStrictEqual(
      [decision._tag, decision._tag === "End" ? decision.status : ""],
      ["End", "retry_budget_exhausted"]
    )
  })
})

describe("finding 8: one typed stamp for an unstamped event", () => {
  it("KernelEvent.stamp adds the Clock time and keeps every field", () => {
    const event: KernelEvent.Unstamped = { type: "warning", message: "careful" }
    assert.deepStrictEqual(KernelEvent.stamp(event, 42), { type: "warning", message: "careful", at: 42 })
  })

  it.effect("a plugin's event published on the run's bus is stamped with the run's Clock", () =>
    Effect.gen(function* () {
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        invoke: (call) =>
          Effect.zipRight(EventBus.publish({ type: "warning", message: `from ${call.name}` }), echoToolbox.invoke(call))
      }
      const { outcome, events } = yield* runScript(
        [ScriptedModel.toolCalls({ id: "a", name: "echo", input: {} }), ScriptedModel.text("done")],
        { toolbox }
      )
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(
        ofType(events, "warning").map((event) => [event.message, typeof event.at]),
        [["from echo", "number"]]
      )
    })
  )
})

describe("finding 10: resuming a state whose budget is larger than the new settings allow", () => {
  it.effect("the budget is clamped to max_session_retries", () =>
    Effect.gen(function* () {
      const state: Session.State = {
        history: [],
        context: [],
        budget: { used: 3, tokens: 20 },
        runs: 1,
        run: null
      }
      const { session } = yield* sessionOf({
        script: [ScriptedModel.text("done")],
        settings: { max_session_retries: 2 },
        state
      })
      assert.deepStrictEqual(yield* session.retryBudget, { used: 3, remaining: 2 })
      // A budget within the new ceiling is resumed as it was.
      const within = yield* sessionOf({
        script: [ScriptedModel.text("done")],
        settings: { max_session_retries: 2 },
        state: { ...state, budget: { used: 3, tokens: 1 } }
      })
      assert.deepStrictEqual(yield* within.session.retryBudget, { used: 3, remaining: 1 })
    })
  )
})
