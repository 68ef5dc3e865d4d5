/**
 * The session retry budget: every retry and every charged fallback step is paid from it, a success gives a
 * retry back (unless refill is off) up to the ceiling, a bound already broken ends the run before the budget
 * is charged, a resumed state is clamped to the settings' ceiling, and no session's spending reaches another's.
 * All timing is on the TestClock.
 */
import { Content, ModelProvider, RetryBudget, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { echoToolbox, ofType, runScript } from "./harness.js"

const noJitter = { jitter: "none" } as const

/** A session against a scripted model. */
const sessionOf = (setup: {
  readonly script: ReadonlyArray<ScriptedModel.Step>
  readonly settings?: Partial<Settings.Settings>
  readonly state?: Session.State
}) =>
  Effect.gen(function* () {
    const model = yield* ScriptedModel.make(setup.script)
    const session = yield* Session.make({
      model: "model-a",
      settings: { ...Settings.defaults, ...setup.settings },
      state: setup.state
    }).pipe(Effect.provide(model.layer), Effect.provideService(Toolbox.Toolbox, echoToolbox))
    return { session, model }
  })

describe("each model of the fallback chain gets its own max_retries; the session budget caps the chain", () => {
  it.effect("six 529s exhaust the primary, then a single 429 on the fallback is retried, not fatal", () =>
    Effect.gen(function* () {
      const { outcome, calls, events } = yield* runScript(
        [
          ...Array.from({ length: 6 }, () => ScriptedModel.error("overloaded")),
          ScriptedModel.rateLimited(),
          ScriptedModel.text("from b")
        ],
        { settings: { ...noJitter, fallback_models: ["model-b"] } }
      )
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(
        calls.map((call) => call.request.model),
        [...Array.from({ length: 6 }, () => "model-a"), "model-b", "model-b"]
      )
      assert.deepStrictEqual(
        ofType(events, "retry_scheduled").map((event) => [event.model, event.attempt]),
        [1, 2, 3, 4, 5].map((n) => ["model-a", n]).concat([["model-b", 1]])
      )
      // The session budget is the shared ceiling: every retry, and the fallback step, is charged.
      assert.strictEqual(outcome.retries.session_total, 7)
    })
  )

  it.effect("the session budget still caps the whole chain and is never reset by a fallback", () =>
    Effect.gen(function* () {
      const { outcome, calls } = yield* runScript(
        Array.from({ length: 20 }, () => ScriptedModel.error("server_error")),
        { settings: { ...noJitter, max_retries: 3, max_session_retries: 5, fallback_models: ["model-b", "model-c"] } }
      )
      assert.strictEqual(outcome.status, "retry_budget_exhausted")
      // model-a: a call and 3 retries (3 charges), the fallback (4), model-b: a call and one retry (5).
      assert.deepStrictEqual(
        calls.map((call) => call.request.model),
        ["model-a", "model-a", "model-a", "model-a", "model-b", "model-b"]
      )
      assert.strictEqual(outcome.retries.session_total, 5)
    })
  )
})

describe("the session budget across a context reduction", () => {
  // A reduction is not a retry, and never gives the budget back: 529, 529, an overflow, then 529 spends the
  // two retries a fixed budget of two holds, and the third 529 finds it empty.
  it.effect(
    "is never reset: max_session_retries 2, no refill, 529, 529, overflow, 529 ends retry_budget_exhausted",
    () =>
      Effect.gen(function* () {
        const history = Array.from({ length: 4 }, (_, i) => [
          Content.userText(`question ${i} ${"x".repeat(400)}`),
          { role: "assistant" as const, content: [Content.text(`answer ${i} ${"y".repeat(400)}`)] }
        ]).flat()
        const { outcome, events, calls } = yield* runScript(
          [
            ScriptedModel.error("overloaded"),
            ScriptedModel.error("overloaded"),
            ScriptedModel.contextOverflow(),
            ScriptedModel.error("overloaded"),
            ScriptedModel.text("never")
          ],
          { history, settings: { ...noJitter, max_session_retries: 2, session_retries_refill: false } }
        )
        assert.strictEqual(outcome.status, "retry_budget_exhausted")
        assert.deepStrictEqual(outcome.retries, { max_per_call: 2, session_total: 2 })
        assert.lengthOf(ofType(events, "context_reduced"), 1)
        assert.lengthOf(calls, 4)
      })
  )
})

describe("the session budget refills the AWS SDK's way", () => {
  /** One session, several runs, each run's first call rate limited. */
  const interactive = (settings: Partial<Settings.Settings>, script: ReadonlyArray<"429" | "ok">, runs: number) =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make(
        script.map((step) => (step === "429" ? ScriptedModel.rateLimited() : ScriptedModel.text("ok")))
      )
      const session = yield* Session.make({
        model: "m",
        settings: { ...Settings.defaults, ...noJitter, ...settings }
      }).pipe(Effect.provide(model.layer))
      const statuses: Array<string> = []
      for (let i = 0; i < runs; i++) statuses.push((yield* TestClockDriver.run(session.run(`q${i}`))).status)
      return { statuses, budget: yield* session.retryBudget }
    })
  const eachRunRetriedOnce = (runs: number) => Array.from({ length: runs }, () => ["429", "ok"] as const).flat()

  it.effect("each successful call gives a retry back: a long session never starves", () =>
    Effect.gen(function* () {
      const { statuses, budget } = yield* interactive({ max_session_retries: 2 }, eachRunRetriedOnce(6), 6)
      assert.deepStrictEqual(
        statuses,
        Array.from({ length: 6 }, () => "completed")
      )
      assert.deepStrictEqual(budget, { used: 6, remaining: 2 })
    })
  )

  it.effect("session_retries_refill: false keeps a budget that never refills", () =>
    Effect.gen(function* () {
      const { statuses, budget } = yield* interactive(
        { max_session_retries: 2, session_retries_refill: false },
        [...eachRunRetriedOnce(2), "429", "429"],
        4
      )
      assert.deepStrictEqual(statuses, ["completed", "completed", "retry_budget_exhausted", "retry_budget_exhausted"])
      assert.deepStrictEqual(budget, { used: 2, remaining: 0 })
    })
  )

  it.effect("the refill never lifts the budget above max_session_retries: a storm is stopped at the ceiling", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ...Array.from({ length: 5 }, () => ScriptedModel.toolCalls({ id: "t", name: "echo" })),
        ...Array.from({ length: 10 }, () => ScriptedModel.error("overloaded")),
        ScriptedModel.text("never")
      ])
      const session = yield* Session.make({
        model: "m",
        settings: { ...Settings.defaults, ...noJitter, max_retries: 10, max_session_retries: 3 }
      }).pipe(Effect.provide(model.layer), Effect.provideService(Toolbox.Toolbox, echoToolbox))
      const outcome = yield* TestClockDriver.run(session.run("go"))
      assert.strictEqual(outcome.status, "retry_budget_exhausted")
      // Five successes refunded nothing past the ceiling: three retries, then the budget ran out.
      assert.strictEqual(outcome.retries.session_total, 3)
    })
  )
})

describe("a bound that already ended the run is checked before a fallback is charged", () => {
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

describe("resuming a state whose budget is larger than the new settings allow", () => {
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
describe("the default budget, shared by sessions", () => {
  // Session A spends its whole budget (five runs of rate-limited retries, refilled by no success); a session
  // made afterwards, and one made before A spent it, still retry.
  it.effect("one session's exhausted budget leaves another's whole", () =>
    Effect.gen(function* () {
      const limited = ModelProvider.fromGenerate("limited", () => Effect.fail(ScriptedModel.rateLimited()))
      const sessionOn = (model: ModelProvider.Service) =>
        Session.make({ model: "m" }).pipe(Effect.provideService(ModelProvider.ModelProvider, model))
      const flaky = () =>
        Effect.map(
          ScriptedModel.make([ScriptedModel.rateLimited(), ScriptedModel.text("ok")]),
          (model) => model.provider
        )
      const before = yield* sessionOn(yield* flaky())
      const spender = yield* sessionOn(limited)
      for (let i = 0; i < 5; i++) yield* TestClockDriver.run(spender.run("go"))
      assert.deepStrictEqual(yield* spender.retryBudget, { used: 20, remaining: 0 })
      const after = yield* sessionOn(yield* flaky())
      for (const session of [before, after]) {
        const outcome = yield* TestClockDriver.run(session.run("go"))
        assert.strictEqual(outcome.status, "completed")
        assert.deepStrictEqual(yield* session.retryBudget, { used: 1, remaining: 20 })
      }
      assert.deepStrictEqual(RetryBudget.fromSettings(Settings.defaults).initial, { used: 0, tokens: 20 })
      // The spender's state is its own too: exported, it shows its spent budget, the others' not.
      assert.deepStrictEqual((yield* spender.state).budget, { used: 20, tokens: 0 })
      assert.deepStrictEqual((yield* after.state).budget, { used: 1, tokens: 20 })
    })
  )
})
