import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AdaptiveRate from "../src/AdaptiveRate.js"
import * as RateLaws from "../src/testing/RateLaws.js"

const policy = AdaptiveRate.defaults

/** A number from `minimum` to `maximum` in `steps` even steps. */
const between = (minimum: number, maximum: number, steps = 1_000) =>
  Arbitrary.map(
    Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: steps }))),
    (step) => minimum + ((maximum - minimum) * step) / steps
  )

/** Policies over the whole range of their options. */
const policies = Arbitrary.map(
  Arbitrary.all({
    beta: between(0.05, 0.95),
    scale: between(0.01, 5),
    minRate: between(0.05, 5),
    span: between(1, 400),
    initialShare: between(0, 1),
    burst: between(1, 20),
    horizon: between(0, 2_000),
    measureInterval: between(50, 2_000),
    smoothing: between(0.05, 1),
    maxHold: between(0, 120_000)
  }),
  (drawn) =>
    AdaptiveRate.make({
      beta: drawn.beta,
      scale: drawn.scale,
      minRate: drawn.minRate,
      maxRate: drawn.minRate * drawn.span,
      initialRate: drawn.minRate + (drawn.minRate * drawn.span - drawn.minRate) * drawn.initialShare,
      burst: drawn.burst,
      horizon: drawn.horizon,
      measureInterval: drawn.measureInterval,
      smoothing: drawn.smoothing,
      maxHold: drawn.maxHold
    })
)

/** A step of a hand-made trace, for showing that a law rejects what it should. */
const step = (
  event: RateLaws.Event,
  before: Partial<AdaptiveRate.State>,
  after: Partial<AdaptiveRate.State>,
  decision?: AdaptiveRate.Decision
): RateLaws.Step => ({
  index: 0,
  event,
  now: 10_000,
  before: { ...AdaptiveRate.initial(policy), started: true, ...before },
  after: { ...AdaptiveRate.initial(policy), started: true, ...after },
  decision
})

/** Plays `n` reservations at `now`, one after another: their decisions. */
const reserveMany = (state: AdaptiveRate.State, now: number, n: number) => {
  const decisions: Array<AdaptiveRate.Decision> = []
  let current = state
  for (let i = 0; i < n; i++) {
    const [decision, next] = AdaptiveRate.reserve(policy, current, now)
    decisions.push(decision)
    current = next
  }
  return { decisions, state: current }
}

describe("AdaptiveRate laws", () => {
  it.effect("the default policy keeps every law", () =>
    RateLaws.checkAll(RateLaws.all, policy, { runs: 300, seed: 26 })
  )

  it.effect("policies drawn over the range of their options keep every law", () =>
    Effect.gen(function* () {
      const drawn = yield* Arbitrary.sampleEffect(policies, { count: 25, seed: 2_026 })
      for (const each of drawn) yield* RateLaws.checkAll(RateLaws.all, each, { runs: 40, seed: 7 })
    })
  )

  it.effect(
    "the drawn cases reach fresh and stale throttles, holds, days-long hints, a clock going back, come-back answers and growth after a cut",
    () =>
      Effect.gen(function* () {
        const cases = yield* Arbitrary.sampleEffect(RateLaws.events, { count: 200, size: 200, seed: 26 })
        let later = 0
        let held = 0
        let grownAfterCut = 0
        let stale = 0
        let long = 0
        let back = 0
        for (const events of cases) {
          const steps = RateLaws.play(policy, events)
          if (steps.some((s) => s.decision?._tag === "Later")) later++
          if (steps.some((s) => s.decision?._tag === "Send" && s.after.holdUntil > s.now)) held++
          if (steps.some((s) => s.event._tag === "Throttle" && s.event.stale && s.before.generation > 0)) stale++
          if (steps.some((s) => s.event._tag === "Throttle" && (s.event.retryAfterMs ?? 0) > policy.maxHold)) long++
          if (steps.some((s) => s.event.gap < 0 && s.before.started)) back++
          if (steps.some((s) => s.event._tag === "Success" && s.after.generation > 0 && s.after.rate > s.before.rate))
            grownAfterCut++
        }
        // Each law has cases that exercise it, not only ones it passes vacuously.
        assert.isAbove(later, 20)
        assert.isAbove(held, 20)
        assert.isAbove(stale, 20)
        assert.isAbove(long, 20)
        assert.isAbove(back, 20)
        assert.isAbove(grownAfterCut, 20)
      })
  )

  it("each law rejects a step that breaks it", () => {
    const throttle: RateLaws.Event = { _tag: "Throttle", gap: 0, retryAfterMs: 1_000, stale: false }
    const raised = step(throttle, { rate: 10 }, { rate: 11, lastMax: 10, generation: 1 })
    const shallow = step(throttle, { rate: 10 }, { rate: 9, lastMax: 10, generation: 1 })
    assert.isTrue(Option.isSome(RateLaws.backsOffOnEveryThrottle.test(policy, [raised])))
    assert.isTrue(Option.isSome(RateLaws.backsOffOnEveryThrottle.test(policy, [shallow])))
    // After a cut accepting 10, the curve is back at 10 after K = ∛(10 × 0.3 / 0.4) ≈ 1.96 s, not at once.
    const cut = step(throttle, { rate: 10 }, { rate: 7, lastMax: 10, generation: 1 })
    const jump = { ...step({ _tag: "Success", gap: 0 }, { rate: 7 }, { rate: 10 }), now: 10_500 }
    assert.isTrue(Option.isSome(RateLaws.growsWithinCurve.test(policy, [cut, jump])))
    assert.isTrue(Option.isNone(RateLaws.growsWithinCurve.test(policy, [cut, { ...jump, now: 12_000 }])))
    assert.isTrue(
      Option.isSome(RateLaws.staysWithinBounds.test(policy, [step({ _tag: "Success", gap: 0 }, {}, { rate: 0.1 })]))
    )
    assert.isTrue(
      Option.isSome(
        RateLaws.staysWithinBounds.test(policy, [step({ _tag: "Success", gap: 0 }, {}, { measured: Number.NaN })])
      )
    )
    const early: AdaptiveRate.Decision = { _tag: "Send", wait: 500, generation: 1 }
    assert.isTrue(
      Option.isSome(RateLaws.honoursRetryAfter.test(policy, [cut, step({ _tag: "Reserve", gap: 0 }, {}, {}, early)]))
    )
    // Two sends at once at 2 a second, burst 1: the second should wait 500 ms.
    const now: AdaptiveRate.Decision = { _tag: "Send", wait: 0, generation: 0 }
    const twice = [
      step({ _tag: "Reserve", gap: 0 }, {}, {}, now),
      { ...step({ _tag: "Reserve", gap: 0 }, {}, {}, now), index: 1 }
    ]
    assert.isTrue(Option.isSome(RateLaws.pacesWithinTheRate.test(policy, twice)))
    const paced = { ...twice[1]!, decision: { ...now, wait: 500 } }
    assert.isTrue(Option.isNone(RateLaws.pacesWithinTheRate.test(policy, [twice[0]!, paced])))
    const endless = step(throttle, {}, { holdUntil: 10_000 + policy.maxHold + 1 })
    assert.isTrue(Option.isSome(RateLaws.honoursRetryAfter.test(policy, [endless])))
    const far: AdaptiveRate.Decision = { _tag: "Send", wait: policy.horizon + 1, generation: 0 }
    assert.isTrue(Option.isSome(RateLaws.boundedWaits.test(policy, [step({ _tag: "Reserve", gap: 0 }, {}, {}, far)])))
  })
})

describe("AdaptiveRate", () => {
  it("paces a fresh key at the initial rate, granting no further ahead than the horizon", () => {
    const { decisions } = reserveMany(AdaptiveRate.initial(policy), 0, 3)
    // 2 a second: now, then 500 ms on (beyond the 250 ms horizon: come back 250 ms later).
    assert.deepStrictEqual(decisions, [
      { _tag: "Send", wait: 0, generation: 0 },
      { _tag: "Later", wait: 250 },
      { _tag: "Later", wait: 250 }
    ])
  })

  it("before the first throttle the rate doubles with the measured rate of successes (a slow start)", () => {
    let state = AdaptiveRate.initial(policy)
    // Ten successes in each half second, for two seconds: about 20 a second accepted.
    for (let at = 0; at < 2_000; at += 50) state = AdaptiveRate.onSuccess(policy, state, at)
    assert.isAbove(state.measured, 15)
    assert.closeTo(state.rate, 2 * state.measured, 1e-9)
  })

  it("a throttle cuts to beta × the lower of the rate in force and the accepted rate, and starts the curve there", () => {
    const state: AdaptiveRate.State = {
      ...AdaptiveRate.initial(policy),
      started: true,
      rate: 40,
      measured: 30,
      at: 1_000,
      intervalFrom: 1_000
    }
    const cut = AdaptiveRate.onThrottle(policy, state, 1_100, { generation: 0 })
    assert.closeTo(cut.rate, 21, 1e-9)
    assert.deepStrictEqual([cut.lastMax, cut.since, cut.generation], [30, 1_100, 1])
    // With successes at 30 a second, back at the plateau K = ∛(30 × 0.3 / 0.4) s after the cut, and above it after.
    const k = AdaptiveRate.plateauAfter(policy, 30) * 1_000
    const succeed = (from: AdaptiveRate.State, start: number, end: number) => {
      let state = from
      for (let at = start; at < end; at += 1_000 / 30) state = AdaptiveRate.onSuccess(policy, state, at)
      return AdaptiveRate.onSuccess(policy, state, end)
    }
    const plateau = succeed(cut, 1_100, 1_100 + k)
    assert.closeTo(plateau.rate, 30, 1e-6)
    assert.isAbove(succeed(plateau, 1_100 + k, 1_100 + k + 1_000).rate, 30)
  })

  it("a throttle of a send granted before the last cut does not cut again, but its retry-after holds", () => {
    const state: AdaptiveRate.State = { ...AdaptiveRate.initial(policy), started: true, rate: 20, generation: 3 }
    const stale = AdaptiveRate.onThrottle(policy, state, 0, { generation: 2, retryAfterMs: 800 })
    assert.deepStrictEqual([stale.rate, stale.generation, stale.holdUntil], [20, 3, 800])
  })

  it("a retry-after holds every send of the key until it has passed", () => {
    const held = AdaptiveRate.onThrottle(policy, AdaptiveRate.initial(policy), 0, {
      generation: 0,
      retryAfterMs: 1_000
    })
    const [before] = AdaptiveRate.reserve(policy, held, 500)
    assert.deepStrictEqual(before, { _tag: "Later", wait: 250 })
    const [within] = AdaptiveRate.reserve(policy, held, 800)
    assert.deepStrictEqual(within, { _tag: "Send", wait: 200, generation: 1 })
  })

  it("a hint longer than maxHold, or endless, holds the key for maxHold; one that is not a number holds nothing", () => {
    const start: AdaptiveRate.State = { ...AdaptiveRate.initial(policy), started: true }
    for (const retryAfterMs of [86_400_000, Number.POSITIVE_INFINITY])
      assert.strictEqual(
        AdaptiveRate.onThrottle(policy, start, 0, { generation: 0, retryAfterMs }).holdUntil,
        policy.maxHold
      )
    for (const retryAfterMs of [Number.NaN, -5, 0])
      assert.strictEqual(AdaptiveRate.onThrottle(policy, start, 0, { generation: 0, retryAfterMs }).holdUntil, 0)
    // The held state stays finite, so it encodes to JSON for the Postgres store.
    const held = AdaptiveRate.onThrottle(policy, start, 0, { generation: 0, retryAfterMs: Number.POSITIVE_INFINITY })
    assert.deepStrictEqual(
      Schema.decodeSync(Schema.fromJsonString(AdaptiveRate.State))(
        Schema.encodeSync(Schema.fromJsonString(AdaptiveRate.State))(held)
      ),
      held
    )
  })

  it("a stored state with a rate that is not positive is refused at the store's boundary", () => {
    const json = Schema.encodeSync(Schema.fromJsonString(AdaptiveRate.State))(AdaptiveRate.initial(policy))
    for (const rate of [0, -1])
      assert.throws(() =>
        Schema.decodeSync(Schema.fromJsonString(AdaptiveRate.State))(json.replace(/"rate":[^,]+/, `"rate":${rate}`))
      )
  })

  it("the state encodes to JSON and back, as the Postgres store keeps it", () => {
    const { state } = reserveMany(AdaptiveRate.onSuccess(policy, AdaptiveRate.initial(policy), 5), 5, 2)
    const json = Schema.encodeSync(Schema.fromJsonString(AdaptiveRate.State))(state)
    assert.deepStrictEqual(Schema.decodeSync(Schema.fromJsonString(AdaptiveRate.State))(json), state)
  })

  it("a policy is its own options: a policy made from another with one option changed differs in that option only", () => {
    const gentle = AdaptiveRate.make({ beta: 0.85, scale: 0.2, horizon: "1 second" })
    assert.deepStrictEqual(AdaptiveRate.make({ ...gentle }), gentle)
    assert.deepStrictEqual(AdaptiveRate.make({ ...gentle, maxRate: 20 }), { ...gentle, maxRate: 20 })
    // No ceiling, said either way, is one policy.
    assert.deepStrictEqual(AdaptiveRate.make({ maxRate: Number.POSITIVE_INFINITY }), AdaptiveRate.defaults)
  })

  it("a policy with options out of range is an InvalidPolicy that names the option", () => {
    for (const [options, name] of [
      [{ beta: 1 }, "beta"],
      [{ minRate: 0 }, "minRate"],
      [{ minRate: 5, maxRate: 2 }, "maxRate"],
      [{ initialRate: 100, maxRate: 10 }, "initialRate"],
      [{ scale: Number.NaN }, "scale"],
      [{ burst: 0.5 }, "burst"]
    ] as const) {
      try {
        AdaptiveRate.make(options)
        assert.fail(`accepted ${JSON.stringify(options)}`)
      } catch (error) {
        assert.instanceOf(error, AdaptiveRate.InvalidPolicy)
        assert.include((error as AdaptiveRate.InvalidPolicy).message, name)
      }
    }
  })
})
