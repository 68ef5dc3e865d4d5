/**
 * Properties of the loop over arbitrary fault sequences and settings. Each case is a real kernel run against
 * a scripted model, under the TestClock. Each property counts the cases that reach what it is about and
 * asserts that at least 30 % do, or draws only such cases.
 */
import { Content, ModelError, RetryPolicy, RunOutcome, type Settings } from "@agent-kernel/kernel"
import { Arbitraries, Laws, ScriptedModel, Simulator } from "@agent-kernel/kernel/testing"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import { echoToolbox, ofType, runScript } from "./harness.js"

const integer = (minimum: number, maximum: number): Arbitrary.Arbitrary<number> =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))

const history: Content.History = Array.from({ length: 4 }, (_, i) => [
  Content.userText(`earlier question ${i} ${"q".repeat(300)}`),
  { role: "assistant" as const, content: [Content.text(`earlier answer ${i} ${"a".repeat(300)}`)] }
]).flat()

/** Faults followed by a final answer, so a run may also complete. */
const script = (faults: ReadonlyArray<Arbitraries.Fault>): ReadonlyArray<ScriptedModel.Step> => [
  ...faults.map((fault) => (fault === "ok" ? ScriptedModel.toolCalls({ id: "t", name: "echo" }) : fault)),
  ScriptedModel.text("final")
]

// Keep turn counts realistic.
const settingsArb = Arbitrary.map(Arbitraries.settings(), (settings) => ({ ...settings, max_turns: 20 }))
// Fallback chains of zero to two models.
const withFallbacks = Arbitrary.map(
  Arbitrary.all([settingsArb, integer(0, 2)]),
  ([settings, n]) => ({ ...settings, fallback_models: ["model-b", "model-c"].slice(0, n) }) satisfies Settings.Settings
)
const faultsArb = Arbitraries.faults({ maxRetryAfterMs: 90_000 })
const runs = 60

const errorOf = (step: ScriptedModel.Step | undefined): ModelError.ModelError | undefined =>
  step !== undefined && typeof step !== "function" && ModelError.isModelError(step) ? step : undefined

/**
 * A property over `arbitrary`, each case a kernel run: `body` asserts it and says whether the case reached
 * what the property is about. At least 30 % of the cases must.
 */
const property = <A>(name: string, arbitrary: Arbitrary.Arbitrary<A>, body: (value: A) => Effect.Effect<boolean>) =>
  it.effect(name, () =>
    Effect.gen(function* () {
      let reached = 0
      let ran = 0
      const result = yield* Arbitrary.checkEffect(
        arbitrary,
        // Each case's run draws its jitter from a Random seeded by the case's number, so a case is one run.
        (value) =>
          Effect.map(Random.withSeed(body(value), ran), (hit) => {
            ran++
            if (hit) reached++
            return true
          }),
        { runs, seed: 20_261_130 }
      )
      expect(Arbitrary.formatCheckFailure(result)).toBeUndefined()
      expect(reached / ran, "the share of cases that reach what the property is about").toBeGreaterThanOrEqual(0.3)
    })
  )

describe("loop properties", () => {
  property(
    "no retry starts earlier than its retryAfter",
    // Generated to reach its case: the first call meets a rate limit with a retry-after, on settings that retry it.
    Arbitrary.all([integer(0, 5_000), faultsArb, withFallbacks]),
    ([retryAfterMs, faults, generated]) =>
      Effect.gen(function* () {
        const steps = script([ScriptedModel.rateLimited({ retryAfterMs }), ...faults])
        const settings = {
          ...generated,
          max_retries: Math.max(generated.max_retries, 1),
          max_session_retries: Math.max(generated.max_session_retries, 1),
          max_retry_wait_ms: Math.max(generated.max_retry_wait_ms, 60_000)
        }
        const { calls } = yield* runScript(steps, { settings, toolbox: echoToolbox, history })
        let reached = false
        for (let i = 0; i + 1 < calls.length; i++) {
          const error = errorOf(steps[i])
          const [call, next] = [calls[i]!, calls[i + 1]!]
          if (error?.retryAfter === undefined || !ModelError.isRetryable(error)) continue
          if (call.request.model !== next.request.model) continue // a fallback is a different model
          // Clock times accumulate fractional jittered delays: allow float dust, nothing more.
          assert.isAtLeast(next.at - call.at, Duration.toMillis(error.retryAfter) - 1e-6)
          reached = true
        }
        return reached
      })
  )

  property(
    "per-call retries never exceed max_retries, and session retries never exceed max_session_retries",
    Arbitrary.all([faultsArb, withFallbacks]),
    ([faults, settings]) =>
      Effect.gen(function* () {
        const { outcome, events } = yield* runScript(script(faults), { settings, toolbox: echoToolbox, history })
        assert.isAtMost(outcome.retries.max_per_call, settings.max_retries)
        // A fixed budget never grants more than max_session_retries; a refilling one at most one more for each
        // successful call before.
        let successes = 0
        const ceiling = () => settings.max_session_retries + (settings.session_retries_refill ? successes : 0)
        for (const event of events) {
          if (event.type === "model_response") successes++
          if (event.type !== "retry_scheduled") continue
          assert.isAtMost(event.attempt, settings.max_retries)
          assert.isAtMost(event.session_retries_used, ceiling())
        }
        assert.isAtMost(outcome.retries.session_total, ceiling())
        return ofType(events, "retry_scheduled").length > 0
      })
  )

  property(
    "auth_error, invalid_request and quota_exceeded cause exactly one request and no fallback",
    Arbitrary.all([
      Arbitrary.flatMap(Arbitraries.transientError({ retryAfter: false, notRetryable: false }), (transient) =>
        Arbitrary.map(integer(0, 3), (n) => Array.from({ length: n }, () => transient))
      ),
      Arbitraries.modelError({ categories: ["auth_error", "invalid_request", "quota_exceeded"] }),
      withFallbacks
    ]),
    ([before, fatal, settings]) =>
      Effect.gen(function* () {
        const big = { ...settings, max_retries: 5, max_session_retries: 20, max_retry_wait_ms: 120_000 }
        const { outcome, calls, events } = yield* runScript([...before, fatal, ScriptedModel.text("never")], {
          settings: big
        })
        // The request that met the fatal error is the last one: never re-sent, never re-routed.
        assert.strictEqual(calls.length, before.length + 1)
        assert.strictEqual(outcome.status, fatal.category)
        assert.lengthOf(ofType(events, "fallback"), 0)
        return true
      })
  )

  // Generated to reach its case: an overflow (after a few rate limits) with room for a reduction and a call
  // after it.
  property(
    "a context overflow never re-sends an identical request",
    Arbitrary.all([
      Arbitraries.faults({ categories: ["context_length_exceeded", "rate_limited"], maxLength: 3 }),
      Arbitraries.modelError({ categories: ["context_length_exceeded"] }),
      Arbitraries.faults({ categories: ["context_length_exceeded", "rate_limited"], maxLength: 3 }),
      withFallbacks,
      integer(1, 4)
    ]),
    ([before, overflow, after, settings, reductions]) =>
      Effect.gen(function* () {
        const steps = script([...before, overflow, ...after])
        const { calls } = yield* runScript(steps, {
          settings: { ...settings, max_context_reductions: reductions, max_session_retries: 20, max_retries: 5 },
          toolbox: echoToolbox,
          history
        })
        let reached = false
        for (let i = 0; i + 1 < calls.length; i++) {
          if (errorOf(steps[i])?.category !== "context_length_exceeded") continue
          assert.notDeepEqual(calls[i + 1]!.request.messages, calls[i]!.request.messages)
          reached = true
        }
        return reached
      })
  )

  property(
    "every delay is within its jitter bounds and the cap (and never below the retryAfter)",
    Arbitrary.all([Arbitraries.faults({ categories: ["rate_limited", "overloaded", "server_error"] }), settingsArb]),
    ([faults, settings]) =>
      Effect.gen(function* () {
        const { events } = yield* runScript(script(faults), { settings, toolbox: echoToolbox })
        const envelope = Laws.backoffEnvelope(settings)
        const retries = ofType(events, "retry_scheduled")
        for (const retry of retries) {
          const bounds = envelope(retry.attempt)
          const [lo, hi] = [Duration.toMillis(bounds.min ?? 0), Duration.toMillis(bounds.max ?? Duration.infinity)]
          const floor = retry.retry_after_ms ?? 0
          const epsilon = 1e-6
          assert.isAtLeast(retry.delay_ms, Math.max(lo, floor) - epsilon)
          assert.isAtMost(retry.delay_ms, Math.max(hi, floor) + epsilon)
          assert.isAtMost(retry.delay_ms, settings.max_retry_wait_ms)
        }
        return retries.length > 0
      })
  )

  property(
    "every run terminates with a status from the set, and ends with exactly one run_ended",
    Arbitrary.all([faultsArb, withFallbacks]),
    ([faults, settings]) =>
      Effect.gen(function* () {
        const { outcome, events } = yield* runScript(script(faults), { settings, toolbox: echoToolbox, history })
        assert.include(RunOutcome.statuses, outcome.status)
        const ended = ofType(events, "run_ended")
        assert.lengthOf(ended, 1)
        assert.strictEqual(ended[0]!.status, outcome.status)
        assert.strictEqual(events.at(-1)?.type, "run_ended")
        return true
      })
  )
})

describe("the generators", () => {
  it("are retry-heavy: about half the cases schedule a retry, a quarter reach the per-call cap", () => {
    const cases = Effect.runSync(
      Arbitrary.sampleEffect(Arbitrary.all([faultsArb, withFallbacks, integer(0, 1e6)]), {
        count: 500,
        seed: 20_261_130
      })
    )
    let retried = 0
    let capped = 0
    for (const [faults, settings, seed] of cases) {
      const { outcome, timeline } = Effect.runSync(
        Simulator.simulate(RetryPolicy.fromSettings(settings), faults, { seed, settings })
      )
      if (outcome.retries > 0) retried++
      if (settings.max_retries > 0 && timeline.some((step) => step.retry === settings.max_retries)) capped++
    }
    console.info(
      `of ${cases.length} generated cases, ${((retried / cases.length) * 100).toFixed(1)} % schedule a retry and ${((capped / cases.length) * 100).toFixed(1)} % reach the per-call cap`
    )
    assert.isAtLeast(retried / cases.length, 0.35)
    assert.isAtLeast(capped / cases.length, 0.15)
  })
})
