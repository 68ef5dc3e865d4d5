import { RetryBudget, RetryQuota, Session, Settings } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { echoToolbox, ofType, runScript } from "./harness.js"

const noJitter = { jitter: "none" } as const

describe("the provider-wide retry quota", () => {
  it.effect("is the run's: a quota provided where the session is made, not where it runs, is never asked", () =>
    Effect.gen(function* () {
      const script = [ScriptedModel.rateLimited(), ScriptedModel.text("ok")]
      const atMake = yield* ScriptedModel.make(script)
      const made = yield* Session.make({ model: "m", settings: { ...Settings.defaults, ...noJitter } }).pipe(
        Effect.provide(atMake.layer),
        Effect.provide(RetryQuota.layer(RetryBudget.fixed(0)))
      )
      const atRun = yield* ScriptedModel.make(script)
      const running = yield* Session.make({ model: "m", settings: { ...Settings.defaults, ...noJitter } }).pipe(
        Effect.provide(atRun.layer)
      )
      const [unasked, asked] = yield* TestClockDriver.run(
        Effect.all([made.run("hi"), running.run("hi").pipe(Effect.provide(RetryQuota.layer(RetryBudget.fixed(0))))])
      )
      assert.strictEqual(unasked.status, "completed")
      assert.strictEqual(asked.status, "retry_budget_exhausted")
    })
  )

  it.effect("a refused retry ends the run retry_budget_exhausted, with a retry_quota_exhausted event", () =>
    Effect.gen(function* () {
      const quota = yield* RetryQuota.make(RetryBudget.fixed(1))
      const { outcome, events, calls } = yield* runScript(
        [ScriptedModel.rateLimited(), ScriptedModel.rateLimited(), ScriptedModel.text("never sent")],
        { settings: noJitter }
      ).pipe(Effect.provideService(RetryQuota.RetryQuota, quota))
      assert.strictEqual(outcome.status, "retry_budget_exhausted")
      // The session budget (20) allowed both retries; the quota granted one.
      assert.strictEqual(calls.length, 2)
      assert.strictEqual(ofType(events, "retry_scheduled").length, 1)
      const refused = ofType(events, "retry_quota_exhausted")
      assert.deepStrictEqual(
        refused.map((event) => [event.turn, event.model, event.category]),
        [[1, "model-a", "rate_limited"]]
      )
      assert.strictEqual(outcome.error?.category, "rate_limited")
      // Every tool_use still has its tool_result, and the session's own figures are untouched by the refusal.
      assert.deepStrictEqual(outcome.retries, { max_per_call: 1, session_total: 1 })
    })
  )

  it.effect("sessions under one quota share it: what one spends, the next cannot", () =>
    Effect.gen(function* () {
      const quota = yield* RetryQuota.make(RetryBudget.fixed(2))
      const script = [ScriptedModel.rateLimited(), ScriptedModel.rateLimited(), ScriptedModel.text("ok")]
      const first = yield* runScript(script, { settings: noJitter }).pipe(
        Effect.provideService(RetryQuota.RetryQuota, quota)
      )
      const second = yield* runScript(script, { settings: noJitter }).pipe(
        Effect.provideService(RetryQuota.RetryQuota, quota)
      )
      assert.strictEqual(first.outcome.status, "completed")
      assert.strictEqual(second.outcome.status, "retry_budget_exhausted")
      assert.strictEqual(second.calls.length, 1)
    })
  )

  it.effect("every successful call is recorded: a refunding quota refills, a fixed one does not", () =>
    Effect.gen(function* () {
      const script = [
        ScriptedModel.rateLimited(),
        ScriptedModel.toolCalls({ id: "t1", name: "echo" }),
        ScriptedModel.rateLimited(),
        ScriptedModel.text("done")
      ]
      const refunding = yield* runScript(script, { settings: noJitter, toolbox: echoToolbox }).pipe(
        Effect.provide(RetryQuota.layer(RetryBudget.refilling(1)))
      )
      const fixed = yield* runScript(script, { settings: noJitter, toolbox: echoToolbox }).pipe(
        Effect.provide(RetryQuota.layer(RetryBudget.fixed(1)))
      )
      assert.strictEqual(refunding.outcome.status, "completed")
      assert.strictEqual(refunding.calls.length, 4)
      assert.strictEqual(fixed.outcome.status, "retry_budget_exhausted")
      assert.strictEqual(fixed.calls.length, 3)
    })
  )

  it.effect(
    "a fallback step after an error the server said not to retry is not charged, so the quota is not asked",
    () =>
      Effect.gen(function* () {
        const quota = yield* RetryQuota.make(RetryBudget.fixed(0))
        const { outcome, calls } = yield* runScript(
          [ScriptedModel.error("server_error", { retryable: false }), ScriptedModel.text("from b")],
          { settings: { ...noJitter, fallback_models: ["model-b"] } }
        ).pipe(Effect.provideService(RetryQuota.RetryQuota, quota))
        assert.strictEqual(outcome.status, "completed")
        assert.deepStrictEqual(
          calls.map((call) => call.request.model),
          ["model-a", "model-b"]
        )
      })
  )

  it.effect("a charged fallback step asks the quota", () =>
    Effect.gen(function* () {
      const quota = yield* RetryQuota.make(RetryBudget.fixed(0))
      const { outcome, calls, events } = yield* runScript(
        [ScriptedModel.error("server_error"), ScriptedModel.text("from b")],
        { settings: { ...noJitter, max_retries: 0, fallback_models: ["model-b"] } }
      ).pipe(Effect.provideService(RetryQuota.RetryQuota, quota))
      assert.strictEqual(outcome.status, "retry_budget_exhausted")
      assert.strictEqual(calls.length, 1)
      assert.strictEqual(ofType(events, "retry_quota_exhausted").length, 1)
    })
  )
})
