/**
 * Properties of the loop over arbitrary fault sequences and settings. Each run
 * is a real kernel run against a scripted model, under the TestClock.
 */
import { Content, ModelError, RetryPolicy, RunOutcome, type Settings } from "@agent-kernel/kernel"
import { Arbitraries, Laws, ScriptedModel, Simulator } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import { echoToolbox, ofType, runScript } from "./harness.js"

const history: Content.History = Array.from({ length: 4 }, (_, i) => [
  Content.userText(`earlier question ${i} ${"q".repeat(300)}`),
  { role: "assistant" as const, content: [Content.text(`earlier answer ${i} ${"a".repeat(300)}`)] }
]).flat()

/** Faults followed by a final answer, so a run may also complete. */
const script = (faults: ReadonlyArray<Arbitraries.Fault>): ReadonlyArray<ScriptedModel.Step> => [
  ...faults.map((fault) => (fault === "ok" ? ScriptedModel.toolCalls({ id: "t", name: "echo" }) : fault)),
  ScriptedModel.text("final")
]

const settingsArb = Arbitraries.settings().map((settings) => ({
  ...settings,
  // Keep turn counts realistic; fallback chains of zero to two models.
  max_turns: 20
}))
const withFallbacks = FastCheck.tuple(settingsArb, FastCheck.integer({ min: 0, max: 2 })).map(
  ([settings, n]) => ({ ...settings, fallback_models: ["model-b", "model-c"].slice(0, n) }) satisfies Settings.Settings
)
const faultsArb = Arbitraries.faults({ maxRetryAfterMs: 90_000 })
const runs = { fastCheck: { numRuns: 60 } }

const errorOf = (step: ScriptedModel.Step | undefined): ModelError.ModelError | undefined =>
  step !== undefined && typeof step !== "function" && ModelError.isModelError(step) ? step : undefined

describe("loop properties", () => {
  it.effect.prop(
    "no retry starts earlier than its retryAfter",
    [faultsArb, withFallbacks],
    ([faults, settings]) =>
      Effect.gen(function* () {
        const steps = script(faults)
        const { calls } = yield* runScript(steps, { settings, toolbox: echoToolbox, history })
        for (let i = 0; i + 1 < calls.length; i++) {
          const error = errorOf(steps[i])
          const [call, next] = [calls[i]!, calls[i + 1]!]
          if (error?.retryAfter === undefined || !ModelError.isRetryable(error)) continue
          if (call.request.model !== next.request.model) continue // a fallback is a different model
          // Clock times accumulate fractional jittered delays: allow float dust, nothing more.
          assert.isAtLeast(next.at - call.at, Duration.toMillis(error.retryAfter) - 1e-6)
        }
      }),
    runs
  )

  it.effect.prop(
    "per-call retries never exceed max_retries, and session retries never exceed max_session_retries",
    [faultsArb, withFallbacks],
    ([faults, settings]) =>
      Effect.gen(function* () {
        const { outcome, events } = yield* runScript(script(faults), { settings, toolbox: echoToolbox, history })
        assert.isAtMost(outcome.retries.max_per_call, settings.max_retries)
        // A fixed budget never grants more than max_session_retries; a refilling one (issue 10, item 9)
        // at most one more for each successful call before.
        let successes = 0
        const ceiling = () => settings.max_session_retries + (settings.session_retries_refill ? successes : 0)
        for (const event of events) {
          if (event.type === "model_response") successes++
          if (event.type !== "retry_scheduled") continue
          assert.isAtMost(event.attempt, settings.max_retries)
          assert.isAtMost(event.session_retries_used, ceiling())
        }
        assert.isAtMost(outcome.retries.session_total, ceiling())
      }),
    runs
  )

  it.effect.prop(
    "auth_error, invalid_request and quota_exceeded cause exactly one request and no fallback",
    [
      Arbitraries.transientError({ retryAfter: false, notRetryable: false }).chain((transient) =>
        FastCheck.array(FastCheck.constant(transient), { maxLength: 3 })
      ),
      Arbitraries.modelError({ categories: ["auth_error", "invalid_request", "quota_exceeded"] }),
      withFallbacks
    ],
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
      }),
    runs
  )

  it.effect.prop(
    "a context overflow never re-sends an identical request",
    [Arbitraries.faults({ categories: ["context_length_exceeded", "rate_limited"], maxLength: 6 }), withFallbacks],
    ([faults, settings]) =>
      Effect.gen(function* () {
        const steps = script(faults)
        const { calls } = yield* runScript(steps, { settings, toolbox: echoToolbox, history })
        for (let i = 0; i + 1 < calls.length; i++) {
          if (errorOf(steps[i])?.category !== "context_length_exceeded") continue
          assert.notDeepEqual(calls[i + 1]!.request.messages, calls[i]!.request.messages)
        }
      }),
    runs
  )

  it.effect.prop(
    "every delay is within its jitter bounds and the cap (and never below the retryAfter)",
    [Arbitraries.faults({ categories: ["rate_limited", "overloaded", "server_error"] }), settingsArb],
    ([faults, settings]) =>
      Effect.gen(function* () {
        const { events } = yield* runScript(script(faults), { settings, toolbox: echoToolbox })
        const envelope = Laws.backoffEnvelope(settings)
        for (const retry of ofType(events, "retry_scheduled")) {
          const bounds = envelope(retry.attempt)
          const [lo, hi] = [Duration.toMillis(bounds.min ?? 0), Duration.toMillis(bounds.max ?? Duration.infinity)]
          const floor = retry.retry_after_ms ?? 0
          const epsilon = 1e-6
          assert.isAtLeast(retry.delay_ms, Math.max(lo, floor) - epsilon)
          assert.isAtMost(retry.delay_ms, Math.max(hi, floor) + epsilon)
          assert.isAtMost(retry.delay_ms, settings.max_retry_wait_ms)
        }
      }),
    runs
  )

  it.effect.prop(
    "every run terminates with a status from the set, and ends with exactly one run_ended",
    [faultsArb, withFallbacks],
    ([faults, settings]) =>
      Effect.gen(function* () {
        const { outcome, events } = yield* runScript(script(faults), { settings, toolbox: echoToolbox, history })
        assert.include(RunOutcome.statuses, outcome.status)
        const ended = ofType(events, "run_ended")
        assert.lengthOf(ended, 1)
        assert.strictEqual(ended[0]!.status, outcome.status)
        assert.strictEqual(events.at(-1)?.type, "run_ended")
      }),
    runs
  )
})

describe("the generators", () => {
  it("are retry-heavy: about half the cases schedule a retry, a quarter reach the per-call cap", () => {
    const cases = FastCheck.sample(FastCheck.tuple(faultsArb, withFallbacks, FastCheck.integer({ min: 0, max: 1e6 })), {
      numRuns: 500,
      seed: 20_261_130
    })
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
    // The audit measured 19-22 % and 3.7 % with the arbitraries this replaced.
    assert.isAtLeast(retried / cases.length, 0.35)
    assert.isAtLeast(capped / cases.length, 0.15)
  })
})
