/**
 * The kernel's half of ../shared/spec/error-recovery-mid-loop.md, one test per requirement,
 * each named after the requirement it proves.
 */
import {
  Content,
  ContextProvider,
  EventBus,
  ModelError,
  type ModelProvider,
  Session,
  Settings,
  Toolbox
} from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/testing/TestClock"
import { echoToolbox, ofType, runScript } from "./harness.js"

const countingToolbox = () => {
  const invoked: Array<string> = []
  const toolbox: Toolbox.Service = {
    ...echoToolbox,
    invoke: (call) => Effect.sync(() => invoked.push(call.id)).pipe(Effect.andThen(echoToolbox.invoke(call)))
  }
  return { toolbox, invoked }
}

const toolUseIds = (message: Content.Message | undefined) =>
  message === undefined ? [] : Content.toolUses(message).map((call) => call.id)

const resultIds = (message: Content.Message | undefined) =>
  (message?.content ?? []).flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : []))

const noJitter = { jitter: "none" } as const

describe("model errors: rate_limited / overloaded", () => {
  it.effect("MUST retry with exponential backoff (base_delay_ms 500, factor 2 by default)", () =>
    Effect.gen(function* () {
      const { outcome, events, calls } = yield* runScript(
        [
          ScriptedModel.rateLimited(),
          ScriptedModel.error("overloaded"),
          ScriptedModel.rateLimited(),
          ScriptedModel.text("done")
        ],
        { settings: noJitter }
      )
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(
        calls.map((call) => call.at),
        [0, 500, 1500, 3500]
      )
      assert.deepStrictEqual(
        ofType(events, "retry_scheduled").map((event) => [event.category, event.delay_ms, event.source]),
        [
          ["rate_limited", 500, "backoff"],
          ["overloaded", 1000, "backoff"],
          ["rate_limited", 2000, "backoff"]
        ]
      )
    })
  )

  it.effect("MUST apply jitter: proportional jitter multiplies each delay by U(0.8, 1.2)", () =>
    Effect.gen(function* () {
      const { events } = yield* runScript([
        ScriptedModel.rateLimited(),
        ScriptedModel.rateLimited(),
        ScriptedModel.text("ok")
      ])
      const delays = ofType(events, "retry_scheduled").map((event) => event.delay_ms)
      assert.isTrue(delays[0]! >= 400 && delays[0]! <= 600, `first delay ${delays[0]}`)
      assert.isTrue(delays[1]! >= 800 && delays[1]! <= 1200, `second delay ${delays[1]}`)
    }).pipe(Random.withSeed("jitter-seed"))
  )

  it.effect("MUST make base delay and factor configurable", () =>
    Effect.gen(function* () {
      const { calls } = yield* runScript(
        [ScriptedModel.rateLimited(), ScriptedModel.rateLimited(), ScriptedModel.text("ok")],
        {
          settings: { ...noJitter, base_delay_ms: 100, backoff_factor: 3 }
        }
      )
      assert.deepStrictEqual(
        calls.map((call) => call.at),
        [0, 100, 400]
      )
    })
  )

  it.effect("MUST honor a supplied retryAfter: the retry never starts sooner than the server asked", () =>
    Effect.gen(function* () {
      const { calls, events } = yield* runScript(
        [ScriptedModel.rateLimited({ retryAfterMs: 7_000 }), ScriptedModel.text("ok")],
        { settings: noJitter }
      )
      assert.deepStrictEqual(
        calls.map((call) => call.at),
        [0, 7_000]
      )
      const [retry] = ofType(events, "retry_scheduled")
      assert.strictEqual(retry?.source, "retry_after")
      assert.strictEqual(retry?.retry_after_ms, 7_000)
    })
  )

  it.effect("retryAfter is a floor: a longer backoff still wins over a short hint", () =>
    Effect.gen(function* () {
      const { calls } = yield* runScript([ScriptedModel.rateLimited({ retryAfterMs: 100 }), ScriptedModel.text("ok")], {
        settings: noJitter
      })
      assert.deepStrictEqual(
        calls.map((call) => call.at),
        [0, 500]
      )
    })
  )

  it.effect("a custom policy that ignores retryAfter still never retries sooner (the kernel enforces the floor)", () =>
    Effect.gen(function* () {
      const { calls } = yield* runScript(
        [ScriptedModel.rateLimited({ retryAfterMs: 3_000 }), ScriptedModel.text("ok")],
        {
          policy: Schedule.spaced("10 millis").pipe(Schedule.upTo({ times: 3 }))
        }
      )
      assert.isAtLeast(calls[1]!.at - calls[0]!.at, 3_000)
    })
  )

  it.effect(
    "a wait longer than max_retry_wait_ms is not slept: the run ends retries_exhausted and keeps the retryAfter",
    () =>
      Effect.gen(function* () {
        const { outcome, calls } = yield* runScript(
          [ScriptedModel.rateLimited({ retryAfterMs: 3_832_000 }), ScriptedModel.text("never")],
          { settings: { max_retry_wait_ms: 60_000 } }
        )
        assert.strictEqual(outcome.status, "retries_exhausted")
        assert.strictEqual(calls.length, 1)
        assert.strictEqual(outcome.wall_ms, 0)
        expect(outcome.error?.retryAfter).toEqual(Duration.millis(3_832_000))
      })
  )

  it.effect(
    "a retry-after exactly at max_retry_wait_ms is waited for: the wait is allowed, not the end of the call",
    () =>
      Effect.gen(function* () {
        const { outcome, calls, events } = yield* runScript(
          [ScriptedModel.rateLimited({ retryAfterMs: 60_000 }), ScriptedModel.text("ok")],
          { settings: { ...noJitter, max_retry_wait_ms: 60_000 } }
        )
        assert.strictEqual(outcome.status, "completed")
        assert.deepStrictEqual(
          calls.map((call) => call.at),
          [0, 60_000]
        )
        assert.deepStrictEqual(
          ofType(events, "retry_scheduled").map((event) => [event.delay_ms, event.source]),
          [[60_000, "retry_after"]]
        )
      })
  )

  it.effect("per-call retries stop at max_retries and the run ends retries_exhausted", () =>
    Effect.gen(function* () {
      const { outcome, calls } = yield* runScript(
        Array.from({ length: 10 }, () => ScriptedModel.error("server_error")),
        {
          settings: { ...noJitter, max_retries: 2 }
        }
      )
      assert.strictEqual(outcome.status, "retries_exhausted")
      assert.strictEqual(calls.length, 3)
      assert.deepStrictEqual(outcome.retries, { max_per_call: 2, session_total: 2 })
    })
  )

  it.effect(
    "per-attempt and per-session caps are tracked separately: the session ceiling ends an endlessly retrying run",
    () =>
      Effect.gen(function* () {
        // Every call succeeds after two retries, so no single call reaches max_retries (5),
        // but the session budget of 5 runs out on the third turn.
        const script = Array.from({ length: 4 }, (_, i) => [
          ScriptedModel.error("overloaded"),
          ScriptedModel.error("overloaded"),
          ScriptedModel.toolCalls({ id: `t${i}`, name: "echo" })
        ]).flat()
        // A fixed budget: the default one refills on every success (see "the session budget refills").
        const { outcome } = yield* runScript(script, {
          settings: { ...noJitter, max_session_retries: 5, session_retries_refill: false },
          toolbox: echoToolbox
        })
        assert.strictEqual(outcome.status, "retry_budget_exhausted")
        assert.deepStrictEqual(outcome.retries, { max_per_call: 2, session_total: 5 })
        assert.strictEqual(outcome.turns, 3)
      })
  )

  it.effect("retries never advance the turn counter", () =>
    Effect.gen(function* () {
      const { outcome, events } = yield* runScript(
        [ScriptedModel.rateLimited(), ScriptedModel.rateLimited(), ScriptedModel.text("ok")],
        { settings: noJitter }
      )
      assert.strictEqual(outcome.turns, 1)
      assert.deepStrictEqual(
        ofType(events, "model_request").map((event) => [event.turn, event.attempt]),
        [
          [1, 1],
          [1, 2],
          [1, 3]
        ]
      )
    })
  )

  it.effect("x-should-retry: false makes a transient error final for that call", () =>
    Effect.gen(function* () {
      const { outcome, calls } = yield* runScript([
        ScriptedModel.error("overloaded", { retryable: false }),
        ScriptedModel.text("no")
      ])
      assert.strictEqual(outcome.status, "retries_exhausted")
      assert.strictEqual(calls.length, 1)
    })
  )

  it.effect("a mid-stream error restarts the whole request, emits stream_restarted and charges the budget", () =>
    Effect.gen(function* () {
      const { outcome, events, session } = yield* runScript(
        [ScriptedModel.error("overloaded", { midStream: true }), ScriptedModel.text("whole answer")],
        { settings: noJitter }
      )
      assert.strictEqual(outcome.status, "completed")
      assert.lengthOf(ofType(events, "stream_restarted"), 1)
      assert.strictEqual((yield* session.retryBudget).used, 1)
      // The partial output never reached history: only the input and the one complete answer.
      assert.deepStrictEqual(outcome.history.map(Content.textOf), ["hello", "whole answer"])
    })
  )
})

describe("outcomes", () => {
  it.effect("an outcome's history is the run's own, read after later runs, and an own enumerable field", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.text("one"), ScriptedModel.text("two")])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      const first = yield* session.run("first")
      const second = yield* session.run("second")
      assert.deepStrictEqual(first.history.map(Content.textOf), ["first", "one"])
      assert.deepStrictEqual(second.history.map(Content.textOf), ["first", "one", "second", "two"])
      assert.strictEqual(first.history, first.history)
      assert.include(Object.keys(second), "history")
      assert.deepStrictEqual(JSON.parse(JSON.stringify(second)).history, second.history)
      assert.deepStrictEqual({ ...first }.history, first.history)
    })
  )
})

describe("model errors: context_length_exceeded", () => {
  const bigHistory: Content.History = Array.from({ length: 6 }, (_, i) => [
    Content.userText(`question ${i} ${"x".repeat(400)}`),
    { role: "assistant" as const, content: [Content.text(`answer ${i} ${"y".repeat(400)}`)] }
  ]).flat()

  it.effect("MUST NOT blindly retry the same request: reduction runs and the next request is strictly smaller", () =>
    Effect.gen(function* () {
      const { outcome, calls, events } = yield* runScript(
        [ScriptedModel.contextOverflow(), ScriptedModel.text("fits now")],
        { history: bigHistory }
      )
      assert.strictEqual(outcome.status, "completed")
      assert.strictEqual(calls.length, 2)
      const [first, second] = calls
      assert.isBelow(second!.request.messages.length, first!.request.messages.length)
      const [reduced] = ofType(events, "context_reduced")
      assert.isBelow(reduced!.after, reduced!.before)
      // No backoff sleep and no retry-budget charge: reduction is not a retry.
      assert.strictEqual(second!.at, 0)
      assert.strictEqual(outcome.retries.session_total, 0)
      // The session's full history keeps everything; only the working context shrank.
      assert.strictEqual(outcome.history.length, bigHistory.length + 2)
    })
  )

  it.effect("aims the cut at the provider's counts (prompt is too long: N tokens > M maximum)", () =>
    Effect.gen(function* () {
      const { events } = yield* runScript([ScriptedModel.contextOverflow(2_000, 1_000), ScriptedModel.text("ok")], {
        history: bigHistory
      })
      const [reduced] = ofType(events, "context_reduced")
      assert.strictEqual(reduced!.target, Math.floor(reduced!.before * 0.5 * 0.9))
      assert.isAtMost(reduced!.after, reduced!.target!)
    })
  )

  it.effect("if no context provider can shrink further, the turn fails cleanly with status context_exhausted", () =>
    Effect.gen(function* () {
      const { outcome, calls } = yield* runScript(
        [ScriptedModel.contextOverflow(), ScriptedModel.contextOverflow(), ScriptedModel.text("never")],
        { input: "a single short input" }
      )
      assert.strictEqual(outcome.status, "context_exhausted")
      assert.strictEqual(calls.length, 1)
      assert.strictEqual(outcome.error?._tag, "ContextLengthExceeded")
    })
  )

  it.effect("reductions stop at max_context_reductions instead of looping", () =>
    Effect.gen(function* () {
      const { outcome, calls } = yield* runScript(
        Array.from({ length: 10 }, () => ScriptedModel.contextOverflow()),
        { history: bigHistory, settings: { max_context_reductions: 2 } }
      )
      assert.strictEqual(outcome.status, "context_exhausted")
      assert.strictEqual(calls.length, 3)
      assert.strictEqual(outcome.context_reductions, 3)
    })
  )

  it.effect("context overflow leads to reduction, never to a fallback model", () =>
    Effect.gen(function* () {
      const { calls, events } = yield* runScript([ScriptedModel.contextOverflow(), ScriptedModel.text("ok")], {
        history: bigHistory,
        settings: { fallback_models: ["model-b"] }
      })
      assert.deepStrictEqual(
        calls.map((call) => call.request.model),
        ["model-a", "model-a"]
      )
      assert.lengthOf(ofType(events, "fallback"), 0)
    })
  )
})

describe("model errors: auth_error / invalid_request / quota_exceeded", () => {
  for (const category of ["auth_error", "invalid_request", "quota_exceeded"] as const) {
    it.effect(`${category}: MUST NOT retry and MUST NOT fall back to another model`, () =>
      Effect.gen(function* () {
        const { outcome, calls, events } = yield* runScript(
          [ScriptedModel.error(category, { retryAfterMs: 1_000 }), ScriptedModel.text("never")],
          { settings: { fallback_models: ["model-b", "model-c"] } }
        )
        assert.strictEqual(outcome.status, category)
        assert.strictEqual(calls.length, 1)
        assert.lengthOf(ofType(events, "fallback"), 0)
        assert.lengthOf(ofType(events, "retry_scheduled"), 0)
        assert.strictEqual(outcome.retries.session_total, 0)
      })
    )
  }
})

describe("model errors: content_filtered", () => {
  it.effect("MUST surface a refusal distinctly: its own event, status content_filtered, partial text kept", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const { outcome, events } = yield* runScript([ScriptedModel.refusal("I can start, but")], {
        observers: [{ onModelResponse: (response) => Effect.sync(() => seen.push(response.stop_reason)) }]
      })
      assert.strictEqual(outcome.status, "content_filtered")
      const [filtered] = ofType(events, "content_filtered")
      assert.strictEqual(filtered?.partial_text, "I can start, but")
      assert.strictEqual(Content.textOf(outcome.history.at(-1)!), "I can start, but")
      assert.deepStrictEqual(seen, ["content_filtered"])
    })
  )

  it.effect("a ContentFiltered error is surfaced the same way and is not retried", () =>
    Effect.gen(function* () {
      const { outcome, calls, events } = yield* runScript([
        ScriptedModel.error("content_filtered"),
        ScriptedModel.text("no")
      ])
      assert.strictEqual(outcome.status, "content_filtered")
      assert.strictEqual(calls.length, 1)
      assert.lengthOf(ofType(events, "content_filtered"), 1)
    })
  )
})

describe("routing chain", () => {
  it.effect(
    "when a model's retries run out on a transient error, the next model is tried; the step charges the session budget",
    () =>
      Effect.gen(function* () {
        const { outcome, calls, events } = yield* runScript(
          [
            ScriptedModel.error("overloaded"),
            ScriptedModel.error("overloaded"),
            ScriptedModel.error("overloaded"),
            ScriptedModel.text("from b")
          ],
          { settings: { ...noJitter, max_retries: 2, fallback_models: ["model-b"] } }
        )
        assert.strictEqual(outcome.status, "completed")
        assert.deepStrictEqual(
          calls.map((call) => call.request.model),
          ["model-a", "model-a", "model-a", "model-b"]
        )
        const [fallback] = ofType(events, "fallback")
        assert.deepStrictEqual(
          [fallback?.from, fallback?.to, fallback?.session_retries_used],
          ["model-a", "model-b", 3]
        )
        assert.strictEqual(outcome.retries.session_total, 3)
      })
  )

  // A fallback model starts a fresh per-call count (its own max_retries, as LiteLLM, Claude Code and the
  // AI SDK do it); the session budget stays the shared ceiling and is never reset.
  it.effect(
    "the chain ends: each model gets its own max_retries, every retry and fallback step is charged, then retries_exhausted",
    () =>
      Effect.gen(function* () {
        const { outcome, calls, events } = yield* runScript(
          Array.from({ length: 20 }, () => ScriptedModel.error("server_error")),
          { settings: { ...noJitter, max_retries: 1, fallback_models: ["model-b", "model-c"] } }
        )
        assert.strictEqual(outcome.status, "retries_exhausted")
        assert.deepStrictEqual(
          calls.map((call) => call.request.model),
          ["model-a", "model-a", "model-b", "model-b", "model-c", "model-c"]
        )
        // The turn's attempt count carries on across the chain; each model's retry count starts afresh.
        assert.deepStrictEqual(
          ofType(events, "model_request").map((event) => event.attempt),
          [1, 2, 3, 4, 5, 6]
        )
        assert.deepStrictEqual(
          ofType(events, "retry_scheduled").map((event) => [event.model, event.attempt]),
          [
            ["model-a", 1],
            ["model-b", 1],
            ["model-c", 1]
          ]
        )
        // Three retries and two fallback steps.
        assert.deepStrictEqual(outcome.retries, { max_per_call: 1, session_total: 5 })
      })
  )

  it.effect(
    "a fallback after x-should-retry: false is not charged to the budget (non-retryable errors never are)",
    () =>
      Effect.gen(function* () {
        const { outcome, calls, session } = yield* runScript(
          [ScriptedModel.error("overloaded", { retryable: false }), ScriptedModel.text("from b")],
          { settings: { fallback_models: ["model-b"] } }
        )
        assert.strictEqual(outcome.status, "completed")
        assert.deepStrictEqual(
          calls.map((call) => call.request.model),
          ["model-a", "model-b"]
        )
        assert.strictEqual((yield* session.retryBudget).used, 0)
      })
  )

  it.effect("a fallback step refused by an empty budget ends retry_budget_exhausted", () =>
    Effect.gen(function* () {
      const { outcome, calls } = yield* runScript(
        Array.from({ length: 5 }, () => ScriptedModel.error("server_error")),
        { settings: { ...noJitter, max_retries: 1, max_session_retries: 1, fallback_models: ["model-b"] } }
      )
      assert.strictEqual(outcome.status, "retry_budget_exhausted")
      assert.strictEqual(calls.length, 2)
    })
  )
})

describe("bounds", () => {
  it.effect("max_turns ends the run with its own status", () =>
    Effect.gen(function* () {
      const script = Array.from({ length: 5 }, (_, i) => ScriptedModel.toolCalls({ id: `t${i}`, name: "echo" }))
      const { outcome } = yield* runScript(script, { settings: { max_turns: 3 }, toolbox: echoToolbox })
      assert.strictEqual(outcome.status, "max_turns")
      assert.strictEqual(outcome.turns, 3)
    })
  )

  it.effect("max_wall_clock_ms counts retry waits, and a sleep past the deadline is not taken", () =>
    Effect.gen(function* () {
      const { outcome, calls } = yield* runScript(
        [
          ScriptedModel.rateLimited(),
          ScriptedModel.rateLimited(),
          ScriptedModel.rateLimited(),
          ScriptedModel.text("late")
        ],
        { settings: { ...noJitter, max_wall_clock_ms: 1_200 } }
      )
      assert.strictEqual(outcome.status, "wall_clock_exceeded")
      // 0 and 500 are within the budget; the next wait (1000 ms) would end at 1500 > 1200.
      assert.deepStrictEqual(
        calls.map((call) => call.at),
        [0, 500]
      )
      assert.strictEqual(outcome.wall_ms, 500)
    })
  )

  it.effect("max_cost_usd ends the run cost_exceeded before the next model call", () =>
    Effect.gen(function* () {
      const script = Array.from({ length: 5 }, (_, i) => ScriptedModel.toolCalls({ id: `t${i}`, name: "echo" }))
      const { outcome, calls } = yield* runScript(script, {
        toolbox: echoToolbox,
        // 10 input + 5 output tokens per call at $1000/Mtok each = $0.015 per call.
        settings: { max_cost_usd: 0.03, prices: { "model-a": { input_per_mtok: 1000, output_per_mtok: 1000 } } }
      })
      assert.strictEqual(outcome.status, "cost_exceeded")
      assert.strictEqual(calls.length, 2)
      assert.closeTo(outcome.cost_usd!, 0.03, 1e-9)
    })
  )

  it.effect("a model with no price disables the cost bound with a warning event", () =>
    Effect.gen(function* () {
      const { outcome, events } = yield* runScript([ScriptedModel.text("ok")], { settings: { max_cost_usd: 0.01 } })
      assert.strictEqual(outcome.status, "completed")
      assert.strictEqual(outcome.cost_usd, null)
      assert.match(ofType(events, "warning")[0]!.message, /no price for model "model-a"/)
    })
  )
})

describe("tools", () => {
  it.effect("tool results are fed back in the next request and the loop continues to completion", () =>
    Effect.gen(function* () {
      const { outcome, calls, events } = yield* runScript(
        [ScriptedModel.toolCalls({ id: "t1", name: "echo", input: { a: 1 } }), ScriptedModel.text("done")],
        { toolbox: echoToolbox }
      )
      assert.strictEqual(outcome.status, "completed")
      assert.strictEqual(outcome.turns, 2)
      const last = calls[1]!.request.messages.at(-1)!
      assert.deepStrictEqual(last.content, [Content.toolResult("t1", '{"a":1}')])
      assert.deepStrictEqual(
        events.map((event) => event.type),
        [
          "run_started",
          "turn_started",
          "model_request",
          "tool_use_started",
          "model_response",
          "tool_call_started",
          "tool_result",
          "turn_ended",
          "turn_started",
          "model_request",
          "text_delta",
          "model_response",
          "turn_ended",
          "run_ended"
        ]
      )
    })
  )

  it.effect(
    "a toolbox that breaks its contract (fails or dies) still yields an error tool_result, not a session fault",
    () =>
      Effect.gen(function* () {
        const broken: Toolbox.Service = {
          ...echoToolbox,
          invoke: () => Effect.die(new Error("plugin host exploded"))
        }
        const { outcome } = yield* runScript(
          [ScriptedModel.toolCalls({ id: "t1", name: "echo" }), ScriptedModel.text("recovered")],
          { toolbox: broken }
        )
        assert.strictEqual(outcome.status, "completed")
        const result = outcome.history[2]!.content[0]!
        assert.isTrue(
          result.type === "tool_result" && result.is_error && result.content.includes("plugin host exploded")
        )
      })
  )
})

describe("observers and interruption", () => {
  it.effect("a failing observer never reaches the run", () =>
    Effect.gen(function* () {
      const { outcome } = yield* runScript([ScriptedModel.text("ok")], {
        observers: [
          { onEvent: () => Effect.die("observer bug"), onModelResponse: () => Effect.fail(undefined as never) }
        ]
      })
      assert.strictEqual(outcome.status, "completed")
    })
  )

  it.effect("an interrupted run publishes run_ended interrupted and every tool_use keeps a tool_result", () =>
    Effect.gen(function* () {
      const hanging: Toolbox.Service = { ...echoToolbox, invoke: () => Effect.never }
      const model = yield* ScriptedModel.make([ScriptedModel.toolCalls({ id: "t1", name: "echo" })])
      const statuses: Array<string> = []
      const bus = yield* EventBus.make([
        { onEvent: (e) => Effect.sync(() => e.type === "run_ended" && statuses.push(e.status)) }
      ])
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(EventBus.EventBus, bus),
        Effect.provideService(Toolbox.Toolbox, hanging)
      )
      const fiber = yield* Effect.forkChild(session.run("go"))
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(statuses, ["interrupted"])
      const history = yield* session.history
      assert.deepStrictEqual(history.at(-1)?.content, [
        Content.toolResult("t1", "The run was interrupted before this tool returned.", true)
      ])
    })
  )
  it.effect(
    "a session's runs are serialised: a run asked for meanwhile waits, and one interrupted while it waits takes nothing",
    () =>
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const held: Toolbox.Service = {
          ...echoToolbox,
          invoke: (call) => Effect.as(Deferred.await(gate), Content.toolResult(call.id, "done"))
        }
        const model = yield* ScriptedModel.make([
          ScriptedModel.toolCalls({ id: "t1", name: "echo" }),
          ScriptedModel.text("one"),
          ScriptedModel.text("three")
        ])
        const session = yield* Session.make({ model: "m" }).pipe(
          Effect.provide(model.layer),
          Effect.provideService(Toolbox.Toolbox, held)
        )
        const userTexts = Effect.map(session.history, (history) =>
          history
            .filter((message) => message.role === "user")
            .map(Content.textOf)
            .filter((text) => text.length > 0)
        )
        const first = yield* Effect.forkChild(session.run("first"))
        yield* TestClock.adjust("1 second")
        const second = yield* Effect.forkChild(session.run("second"))
        const third = yield* Effect.forkChild(session.run("third"))
        yield* TestClock.adjust("1 second")
        // The first run holds the session (its tool waits): the others have not started.
        assert.deepStrictEqual(yield* userTexts, ["first"])
        yield* Fiber.interrupt(second)
        yield* Deferred.succeed(gate, undefined)
        assert.strictEqual((yield* Fiber.join(first)).final_text, "one")
        const last = yield* Fiber.join(third)
        assert.strictEqual(last.status, "completed")
        assert.strictEqual(last.final_text, "three")
        // The interrupted run never started: the session ran two runs, in the order asked.
        assert.deepStrictEqual(yield* userTexts, ["first", "third"])
        assert.strictEqual((yield* session.state).runs, 2)
      })
  )
})

describe("settings and errors", () => {
  it.effect("unknown and process_crashed model errors are not retried; the run ends failed", () =>
    Effect.gen(function* () {
      for (const category of ["unknown", "process_crashed"] as const) {
        const { outcome, calls } = yield* runScript([ScriptedModel.error(category), ScriptedModel.text("no")])
        assert.strictEqual(outcome.status, "failed")
        assert.strictEqual(calls.length, 1)
      }
    })
  )

  it.effect("the default settings are the spec's canonical values", () =>
    Effect.sync(() => {
      assert.strictEqual(Settings.defaults.base_delay_ms, 500)
      assert.strictEqual(Settings.defaults.backoff_factor, 2)
      assert.strictEqual(Settings.defaults.max_retries, 5)
      assert.isTrue(ModelError.isRetryable(ScriptedModel.rateLimited()))
    })
  )
})

describe("TestClockDriver", () => {
  it.effect("runs long sleeps in no real time at their exact instants", () =>
    Effect.gen(function* () {
      const result = yield* TestClockDriver.run(
        Effect.gen(function* () {
          yield* Effect.sleep("1 hour")
          return yield* Clock.currentTimeMillis
        })
      )
      assert.strictEqual(result, 3_600_000)
    })
  )
})

describe("the loop always ends with a status", () => {
  it.effect("max_wall_clock_ms cuts a model call that outlives it: wall_clock_exceeded at the bound", () =>
    Effect.gen(function* () {
      const slow = (): Effect.Effect<never> => Effect.never
      const { outcome, events } = yield* runScript([slow], { settings: { max_wall_clock_ms: 1_000 } })
      assert.strictEqual(outcome.status, "wall_clock_exceeded")
      assert.strictEqual(outcome.wall_ms, 1_000)
      assert.deepInclude(events.at(-1), { type: "run_ended", status: "wall_clock_exceeded" })
    })
  )

  it.effect("max_wall_clock_ms cuts a tool that outlives it; finished results are kept, the rest answered", () =>
    Effect.gen(function* () {
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        invoke: (call) => (call.name === "hang" ? Effect.never : echoToolbox.invoke(call))
      }
      const { outcome } = yield* runScript(
        [ScriptedModel.toolCalls({ id: "t1", name: "echo", input: 1 }, { id: "t2", name: "hang" })],
        { settings: { max_wall_clock_ms: 5_000 }, toolbox }
      )
      assert.strictEqual(outcome.status, "wall_clock_exceeded")
      assert.strictEqual(outcome.wall_ms, 5_000)
      assert.deepStrictEqual(outcome.history.at(-1)?.content, [
        Content.toolResult("t1", "1"),
        Content.toolResult("t2", "The run's wall-clock bound was reached before this tool returned.", true)
      ])
    })
  )

  it.effect("a provider that dies is a typed unknown error: the run ends failed, with run_ended", () =>
    Effect.gen(function* () {
      const dying = (): Effect.Effect<never> => Effect.die(new Error("provider bug"))
      const { outcome, events, calls } = yield* runScript([dying, ScriptedModel.text("never")])
      assert.strictEqual(outcome.status, "failed")
      assert.strictEqual(outcome.error?._tag, "Unknown")
      assert.include(outcome.error?.message, "provider bug")
      assert.strictEqual(calls.length, 1)
      assert.deepInclude(events.at(-1), { type: "run_ended", status: "failed" })
    })
  )

  it.effect("an observer that fails, dies or throws on one event still gets the next, and so does every other", () =>
    Effect.gen(function* () {
      const first: Array<string> = []
      const second: Array<string> = []
      const { events } = yield* runScript([ScriptedModel.text("ok")], {
        observers: [
          {
            onEvent: (event) => {
              if (event.type === "run_started") throw new Error("observer bug")
              if (event.type === "turn_started") return Effect.die("observer bug")
              if (event.type === "model_request") return Effect.fail(undefined as never)
              return Effect.sync(() => first.push(event.type))
            }
          },
          { onEvent: (event) => Effect.sync(() => second.push(event.type)) }
        ]
      })
      const all = events.map((event) => event.type)
      assert.deepStrictEqual(second, all)
      assert.deepStrictEqual(
        first,
        all.filter((type) => type !== "run_started" && type !== "turn_started" && type !== "model_request")
      )
      assert.include(all, "model_response")
    })
  )

  it.effect("an observer that throws synchronously never reaches the run", () =>
    Effect.gen(function* () {
      const { outcome } = yield* runScript([ScriptedModel.text("ok")], {
        observers: [
          {
            onEvent: () => {
              throw new Error("observer bug")
            },
            onModelResponse: () => {
              throw new Error("hook bug")
            }
          }
        ]
      })
      assert.strictEqual(outcome.status, "completed")
    })
  )

  it.effect("a toolbox whose definitions die ends the run failed, with run_ended", () =>
    Effect.gen(function* () {
      const broken: Toolbox.Service = { ...echoToolbox, definitions: Effect.die(new Error("listing bug")) }
      const { outcome, events } = yield* runScript([ScriptedModel.text("never")], { toolbox: broken })
      assert.strictEqual(outcome.status, "failed")
      assert.include(outcome.error?.message, "listing bug")
      assert.deepInclude(events.at(-1), { type: "run_ended", status: "failed" })
    })
  )
})

describe("a content-filtered response that asks for tools", () => {
  it.effect("every tool_use gets an error tool_result, no tool runs, and the next run sends a valid history", () =>
    Effect.gen(function* () {
      const { toolbox, invoked } = countingToolbox()
      const filtered: ModelProvider.ModelResponse = {
        ...ScriptedModel.refusal("I started to"),
        content: [Content.text("I started to"), Content.toolUse("t1", "echo", {}), Content.toolUse("t2", "echo", {})]
      }
      const model = yield* ScriptedModel.make([filtered, ScriptedModel.text("fine")])
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
      const outcome = yield* session.run("go")
      assert.strictEqual(outcome.status, "content_filtered")
      assert.deepStrictEqual(invoked, [])
      const last = outcome.history.at(-1)
      assert.strictEqual(last?.role, "user")
      assert.deepStrictEqual(resultIds(last), ["t1", "t2"])
      assert.isTrue(last?.content.every((block) => block.type === "tool_result" && block.is_error))
      yield* session.run("again")
      const [, second] = yield* model.requests
      const sent = second!.messages
      const uses = sent.findIndex((message) => toolUseIds(message).length > 0)
      assert.deepStrictEqual(resultIds(sent[uses + 1]), toolUseIds(sent[uses]))
    })
  )
})

describe("a retry-after longer than max_retry_wait_ms", () => {
  const dayAndAnHour = 25 * 3_600_000

  it.effect("25 h: the call ends at once, retries_exhausted, with no sleep", () =>
    Effect.gen(function* () {
      const { outcome, calls } = yield* runScript([
        ScriptedModel.rateLimited({ retryAfterMs: dayAndAnHour }),
        ScriptedModel.text("never")
      ])
      assert.strictEqual(outcome.status, "retries_exhausted")
      assert.strictEqual(calls.length, 1)
      assert.strictEqual(outcome.wall_ms, 0)
      expect(outcome.error?.retryAfter).toEqual(Duration.millis(dayAndAnHour))
    })
  )

  it.effect("25 h with a fallback chain: the next model is tried at once", () =>
    Effect.gen(function* () {
      const { outcome, calls } = yield* runScript(
        [ScriptedModel.rateLimited({ retryAfterMs: dayAndAnHour }), ScriptedModel.text("from b")],
        { settings: { fallback_models: ["model-b"] } }
      )
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(
        calls.map((call) => [call.request.model, call.at]),
        [
          ["model-a", 0],
          ["model-b", 0]
        ]
      )
    })
  )
})

describe("usage of failed attempts is counted", () => {
  it.effect("a stream cut mid-way spends its tokens: they count in usage and towards max_cost_usd", () =>
    Effect.gen(function* () {
      const spent = { input_tokens: 1_000, output_tokens: 1_000 }
      const { outcome, calls } = yield* runScript(
        [ScriptedModel.error("overloaded", { midStream: true, usage: spent }), ScriptedModel.text("never")],
        {
          // $1000 per million tokens each way: the failed attempt alone cost $2.
          settings: { max_cost_usd: 1, prices: { "model-a": { input_per_mtok: 1_000, output_per_mtok: 1_000 } } }
        }
      )
      assert.strictEqual(outcome.status, "cost_exceeded")
      assert.strictEqual(calls.length, 1)
      assert.deepInclude(outcome.usage, spent)
      assert.closeTo(outcome.cost_usd!, 2, 1e-9)
    })
  )

  it.effect("and in the run's usage when the retry then succeeds", () =>
    Effect.gen(function* () {
      const { outcome } = yield* runScript([
        ScriptedModel.error("overloaded", { midStream: true, usage: { input_tokens: 7, output_tokens: 3 } }),
        ScriptedModel.text("whole answer")
      ])
      assert.strictEqual(outcome.status, "completed")
      // 7 + 10 input and 3 + 5 output: the failed attempt, then the scripted answer's usage.
      assert.deepInclude(outcome.usage, { input_tokens: 17, output_tokens: 8 })
    })
  )
})

describe("a context provider that does not shrink the context", () => {
  it.effect("a reducer that returns a context of the same size is rejected: context_exhausted, never re-sent", () =>
    Effect.gen(function* () {
      // A copy of the messages in another order: a new value, but not a smaller one.
      const sameSize = ContextProvider.make((messages) => Effect.succeed(Option.some([...messages].reverse())))
      const history = [
        Content.userText("a question"),
        { role: "assistant" as const, content: [Content.text("an answer")] }
      ]
      const model = yield* ScriptedModel.make([ScriptedModel.contextOverflow(), ScriptedModel.text("never")])
      const session = yield* Session.make({ model: "m", history }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(ContextProvider.ContextProvider, sameSize)
      )
      const outcome = yield* session.run("go")
      assert.strictEqual(outcome.status, "context_exhausted")
      assert.lengthOf(yield* model.calls, 1)
    })
  )
})
describe("the session object and its outcomes", () => {
  // An embedder decorates a session by spreading it and replacing `run`: the accessors must be own properties.
  it.effect("a session spread into a decorated copy keeps its accessors", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.text("one")])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      const wrapped: Session.Service = { ...session, run: (input) => session.run(input) }
      yield* wrapped.run("hi")
      assert.deepStrictEqual(Object.keys(session).sort(), [
        "context",
        "events",
        "history",
        "id",
        "retryBudget",
        "run",
        "settings",
        "state",
        "subscribe"
      ])
      assert.deepStrictEqual((yield* wrapped.history).map(Content.textOf), ["hi", "one"])
    })
  )

  // A Proxy's default `get` calls a getter with the proxy as `this`.
  it.effect("a session read through a Proxy answers its accessors", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.text("one")])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      const proxied = new Proxy(session, {})
      yield* proxied.run("hi")
      const history = yield* Effect.suspend(() => proxied.history)
      assert.deepStrictEqual(history.map(Content.textOf), ["hi", "one"])
    })
  )

  // Through a Proxy (Vue's `reactive`, MobX, a logging wrapper) or an object whose prototype is the outcome.
  it.effect("an outcome read through a Proxy or as a prototype shows its history", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.text("one")])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      const outcome = yield* session.run("hi")
      const proxied = new Proxy(outcome, {})
      assert.deepStrictEqual(proxied.history.map(Content.textOf), ["hi", "one"])
      const derived: typeof outcome = Object.create(outcome)
      assert.deepStrictEqual(derived.history.map(Content.textOf), ["hi", "one"])
    })
  )
})
