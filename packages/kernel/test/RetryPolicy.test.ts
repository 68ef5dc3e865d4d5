import { ModelError, RetryPolicy, Settings } from "@agent-kernel/kernel"
import { Arbitraries, ScriptedModel } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"

const millis = (delays: ReadonlyArray<Duration.Duration>) => delays.map(Duration.toMillis)
const transient = (n: number) => Array.from({ length: n }, () => ScriptedModel.error("overloaded"))

/** A Random that draws these doubles in turn (then the last one again). */
const drawing =
  (draws: ReadonlyArray<number>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      let next = 0
      return Effect.provideService(effect, Random.Random, {
        nextDoubleUnsafe: () => draws[Math.min(next++, draws.length - 1)] ?? 0,
        nextIntUnsafe: () => 0
      })
    })

describe("RetryPolicy building blocks", () => {
  it.effect("fromSettings with no jitter is exponential, capped, and stops after max_retries", () =>
    Effect.gen(function* () {
      const policy = RetryPolicy.fromSettings({ ...Settings.defaults, jitter: "none", max_delay_ms: 3_000 })
      assert.deepStrictEqual(millis(yield* RetryPolicy.delays(policy, transient(10))), [500, 1000, 2000, 3000, 3000])
    })
  )

  it.effect("proportional jitter at its extremes: U = 0 gives 0.8x, U -> 1 gives 1.2x (then the cap)", () =>
    Effect.gen(function* () {
      const policy = RetryPolicy.fromSettings({ ...Settings.defaults, max_delay_ms: 1_100 })
      const low = yield* RetryPolicy.delays(policy, transient(3)).pipe(drawing([0]))
      assert.deepStrictEqual(millis(low), [400, 800, 880])
      const high = yield* RetryPolicy.delays(policy, transient(3)).pipe(drawing([0.999999]))
      assert.deepStrictEqual(
        millis(high).map((d) => Math.round(d)),
        [600, 1100, 1100]
      )
    })
  )

  it.effect("honorRetryAfter raises a delay to the server's hint and never lowers it", () =>
    Effect.gen(function* () {
      const policy = RetryPolicy.honorRetryAfter(Schedule.spaced("1 second"))
      const delays = yield* RetryPolicy.delays(policy, [
        ScriptedModel.rateLimited({ retryAfterMs: 5_000 }),
        ScriptedModel.rateLimited({ retryAfterMs: 10 }),
        ScriptedModel.rateLimited()
      ])
      assert.deepStrictEqual(millis(delays), [5_000, 1_000, 1_000])
    })
  )

  it.effect("whileRetryable stops at the first error the kernel must not retry", () =>
    Effect.gen(function* () {
      const policy = RetryPolicy.whileRetryable(Schedule.spaced("1 second"))
      const delays = yield* RetryPolicy.delays(policy, [
        ScriptedModel.error("server_error"),
        ScriptedModel.error("auth_error"),
        ScriptedModel.error("server_error")
      ])
      assert.deepStrictEqual(millis(delays), [1_000])
    })
  )

  it.effect("a user-composed policy: full jitter, a 2 s cap, three retries", () =>
    Effect.gen(function* () {
      const policy = RetryPolicy.backoff({ base: "1 second", factor: 3 }).pipe(
        RetryPolicy.fullJitter,
        RetryPolicy.capped("2 seconds"),
        RetryPolicy.upTo(3),
        RetryPolicy.whileRetryable
      )
      const delays = yield* RetryPolicy.delays(policy, transient(6)).pipe(drawing([0.5]))
      assert.deepStrictEqual(millis(delays), [500, 1_500, 2_000])
    })
  )
})

describe("RetryPolicy properties", () => {
  /** A retryable error, and whether it asks for a retry-after (two in three) of what share of the cap (up to twice it). */
  const outageError = Arbitrary.all([
    Arbitraries.transientError({ retryAfter: false, notRetryable: false }),
    Arbitrary.map(Arbitraries.integer(0, 2), (n) => n > 0),
    Arbitraries.integer(0, 200)
  ])
  const neverRetried = Arbitraries.modelError({
    categories: ModelError.Category.literals.filter((category) => ModelError.reactionOf(category) !== "retry")
  })
  /**
   * Settings, then an outage of retryable errors that ends one or two errors short of the cap or past it,
   * half of its retry-afters above the cap; then an error the kernel never retries; then any errors.
   */
  const cases = Arbitrary.map(
    Arbitrary.all([
      Arbitraries.settings(),
      Arbitrary.map(Arbitraries.integer(0, 3), (i) => [-2, -1, 1, 2][i]!),
      Arbitrary.array(outageError, { minLength: 10, maxLength: 10 }),
      neverRetried,
      Arbitrary.array(Arbitraries.modelError({ maxRetryAfterMs: 200_000 }), { maxLength: 4 })
    ]),
    ([settings, past, outage, stop, tail]) => {
      const retryAfterMs = (percent: number) => Math.round(((settings.max_delay_ms + 1_000) * percent) / 100)
      const errors = outage.slice(0, Math.max(0, settings.max_retries + past)).map(([error, hinted, percent]) =>
        hinted
          ? ModelError.make(error.category, {
              provider: error.provider,
              model: error.model,
              message: error.message,
              retryAfter: Duration.millis(retryAfterMs(percent))
            })
          : error
      )
      return [settings, [...errors, stop, ...tail]] as const
    }
  )

  it.effect(
    "the default policy never retries more than max_retries, never a non-retryable error, never below retryAfter, never above the cap unless the server asked",
    () =>
      Effect.gen(function* () {
        const reach = yield* Arbitraries.checkReach(
          cases,
          ([settings, errors]) =>
            Effect.gen(function* () {
              const delays = (yield* RetryPolicy.delays(RetryPolicy.fromSettings(settings), errors)).map(
                Duration.toMillis
              )
              const cap = settings.max_retries
              assert.isAtMost(delays.length, cap)
              const reached: Array<string> = []
              delays.forEach((delay, i) => {
                const error = errors[i]!
                assert.isTrue(ModelError.isRetryable(error), `retried a ${error.category}`)
                const hint = error.retryAfter === undefined ? 0 : Duration.toMillis(error.retryAfter)
                assert.isAtLeast(delay, hint)
                assert.isAtMost(delay, Math.max(settings.max_delay_ms, hint))
                if (hint > 0 && delay === hint) reached.push("a retry-after honoured")
                if (delay > settings.max_delay_ms) reached.push("a delay above the cap")
              })
              const next = errors[delays.length]
              if (delays.length === cap && next !== undefined && ModelError.isRetryable(next)) reached.push("the cap")
              if (delays.length < cap && next !== undefined && !ModelError.isRetryable(next))
                reached.push("a non-retryable error")
              return reached
            }),
          // Enough cases that each share is measured to a few points.
          { runs: 200 }
        )
        for (const named of ["the cap", "a non-retryable error", "a retry-after honoured", "a delay above the cap"])
          assert.isAtLeast(reach.share(named), 0.3, `${named}: ${reach.summary}`)
      })
  )

  it.prop(
    "capped never exceeds the cap, for any base and factor",
    [
      Arbitraries.integer(0, 10_000),
      Schema.Finite.check(Schema.isBetween({ minimum: 1, maximum: 5 })),
      Arbitraries.integer(0, 10_000)
    ],
    ([base, factor, cap]) => {
      const policy = RetryPolicy.backoff({ base, factor }).pipe(RetryPolicy.capped(cap), RetryPolicy.upTo(10))
      const delays = Effect.runSync(RetryPolicy.delays(policy, transient(10)))
      for (const delay of delays) assert.isAtMost(Duration.toMillis(delay), cap)
    }
  )

  it.effect.prop(
    "full jitter makes each delay d * U, U the next random draw, so it lies within [0, d]",
    [
      Arbitraries.integer(1, 10_000),
      Arbitrary.array(Arbitrary.schema(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 0.999 }))), {
        minLength: 6,
        maxLength: 6
      })
    ],
    ([base, draws]) =>
      Effect.gen(function* () {
        const policy = RetryPolicy.backoff({ base, factor: 2 }).pipe(RetryPolicy.fullJitter, RetryPolicy.upTo(6))
        const delays = yield* RetryPolicy.delays(policy, transient(6)).pipe(drawing(draws))
        assert.lengthOf(delays, 6)
        delays.forEach((delay, i) => {
          const nominal = base * 2 ** i
          assert.closeTo(Duration.toMillis(delay), nominal * draws[i]!, 1e-6 * nominal)
        })
      })
  )
})
