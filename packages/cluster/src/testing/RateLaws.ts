/**
 * Laws of an adaptive rate: reusable property checks that you run against
 * your own `AdaptiveRate.Policy`. Each law draws sequences of events
 * (requests to send, successes, throttles with and without a retry-after,
 * throttles of sends granted before the last cut) at random times, plays
 * them through the policy's pure transitions, and checks every step. When
 * one breaks a law, `check` fails with a `LawViolation` naming the step and
 * the shrunk events.
 *
 * @example
 * ```ts
 * import { AdaptiveRate } from "@agent-kernel/cluster"
 * import { RateLaws } from "@agent-kernel/cluster/testing"
 *
 * const program = RateLaws.checkAll(RateLaws.all, AdaptiveRate.make({ beta: 0.5 }))
 * ```
 *
 * @since 0.2.0
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AdaptiveRate from "../AdaptiveRate.js"

/**
 * One event of a case, `gap` milliseconds after the previous one (before it
 * when negative).
 *
 * @since 0.2.0
 * @category models
 */
export type Event =
  | { readonly _tag: "Reserve"; readonly gap: number }
  | { readonly _tag: "Success"; readonly gap: number }
  | {
      readonly _tag: "Throttle"
      readonly gap: number
      readonly retryAfterMs: number | undefined
      /** The throttled send was granted before the last cut. */
      readonly stale: boolean
    }

/**
 * One step of a played case: the event, when it happened, the state before
 * and after, and a reservation's decision.
 *
 * @since 0.2.0
 * @category models
 */
export interface Step {
  readonly index: number
  readonly event: Event
  readonly now: number
  readonly before: AdaptiveRate.State
  readonly after: AdaptiveRate.State
  readonly decision: AdaptiveRate.Decision | undefined
}

/**
 * A law: a name, and the problem (if any) with a played case.
 *
 * @since 0.2.0
 * @category models
 */
export interface Law {
  readonly name: string
  readonly test: (policy: AdaptiveRate.Policy, steps: ReadonlyArray<Step>) => Option.Option<string>
}

/**
 * A law that a case broke.
 *
 * @since 0.2.0
 * @category errors
 */
export class LawViolation extends Data.TaggedError("LawViolation")<{
  readonly law: string
  readonly message: string
}> {}

/** Float slack for comparisons of rates computed along different paths. */
const slack = 1e-9

const integer = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))

/**
 * Cases: up to 200 events at gaps of up to 2 s, one in ten earlier than the
 * one before it, about one in five a throttle, one throttle's hint in ten
 * days long.
 *
 * @since 0.2.0
 * @category cases
 */
export const events: Arbitrary.Arbitrary<ReadonlyArray<Event>> = Arbitrary.array(
  Arbitrary.flatMap(
    Arbitrary.map(Arbitrary.all({ kind: integer(0, 9), forward: integer(0, 2_000), back: integer(0, 9) }), (drawn) => ({
      kind: drawn.kind,
      // One event in ten reads a clock up to 1 s behind the last: a store's clock may step back.
      gap: drawn.back === 0 ? -drawn.forward / 2 : drawn.forward
    })),
    ({ gap, kind }) =>
      kind < 4
        ? Arbitrary.Constant<Event>({ _tag: "Reserve", gap })
        : kind < 8
          ? Arbitrary.Constant<Event>({ _tag: "Success", gap })
          : Arbitrary.map(
              Arbitrary.all({ retryAfter: integer(-1, 5_000), long: integer(0, 9), stale: integer(0, 3) }),
              ({ long, retryAfter, stale }): Event => ({
                _tag: "Throttle",
                gap,
                // One hint in ten is days long, beyond any sensible hold.
                retryAfterMs: retryAfter < 0 ? undefined : long === 0 ? retryAfter * 1_000_000 : retryAfter,
                stale: stale === 0
              })
            )
  ),
  { minLength: 1, maxLength: 200 }
)

/**
 * Plays events through a policy from a fresh key, starting at `start`
 * (epoch milliseconds).
 *
 * @since 0.2.0
 * @category running
 */
export const play = (
  policy: AdaptiveRate.Policy,
  played: ReadonlyArray<Event>,
  start = 1_700_000_000_000
): ReadonlyArray<Step> => {
  const steps: Array<Step> = []
  let state = AdaptiveRate.initial(policy)
  let now = start
  played.forEach((event, index) => {
    now += event.gap
    const before = state
    let decision: AdaptiveRate.Decision | undefined
    switch (event._tag) {
      case "Reserve": {
        const [answer, next] = AdaptiveRate.reserve(policy, state, now)
        decision = answer
        state = next
        break
      }
      case "Success":
        state = AdaptiveRate.onSuccess(policy, state, now)
        break
      case "Throttle":
        state = AdaptiveRate.onThrottle(policy, state, now, {
          generation: event.stale ? state.generation - 1 : state.generation,
          retryAfterMs: event.retryAfterMs
        })
        break
    }
    steps.push({ index, event, now, before, after: state, decision })
  })
  return steps
}

/** The first problem of the steps, as `Option`. */
const first = (steps: ReadonlyArray<Step>, problem: (step: Step) => string | undefined): Option.Option<string> => {
  for (const step of steps) {
    const found = problem(step)
    if (found !== undefined) return Option.some(`step ${step.index + 1} (${step.event._tag}): ${found}`)
  }
  return Option.none()
}

const fresh = (step: Step): boolean => step.event._tag === "Throttle" && !step.event.stale

/** The cubic curve through `lastMax`, written from its definition rather than taken from the module. */
const cubic = (policy: AdaptiveRate.Policy, lastMax: number, seconds: number): number =>
  lastMax + policy.scale * (seconds - Math.cbrt((lastMax * (1 - policy.beta)) / policy.scale)) ** 3

/**
 * Never exceeds the last accepted rate by more than the growth curve
 * allows: after a throttle at `t₀` that took the accepted rate `L` (at most
 * the rate in force), the rate at `t` stays at or below
 * `L + scale · (t − t₀ − K)³` until the next throttle; before the first
 * throttle, at or below twice the measured rate (or the initial rate). Only
 * a success raises the rate.
 *
 * @since 0.2.0
 * @category laws
 */
export const growsWithinCurve: Law = {
  name: "never exceeds the last accepted rate by more than the growth curve allows",
  test: (policy, steps) => {
    let cut: { readonly at: number; readonly accepted: number } | undefined
    return first(steps, (step) => {
      if (fresh(step)) {
        if (step.after.lastMax > step.before.rate + slack)
          return `took ${step.after.lastMax} as the accepted rate, above the ${step.before.rate} in force`
        cut = { at: step.now, accepted: step.after.lastMax }
      }
      const rate = step.after.rate
      if (step.event._tag !== "Success")
        return rate > step.before.rate * (1 + slack) + slack
          ? `raised the rate from ${step.before.rate} to ${rate} without a success`
          : undefined
      const ceiling =
        cut === undefined
          ? Math.max(policy.initialRate, 2 * step.after.measured)
          : cubic(policy, cut.accepted, (step.now - cut.at) / 1_000)
      const allowed = Math.max(policy.minRate, Math.min(policy.maxRate, ceiling))
      return rate > allowed * (1 + slack) + slack
        ? `the rate ${rate} is above the ${allowed} the curve allows${cut === undefined ? " before any throttle" : ` ${step.now - cut.at} ms after the throttle that accepted ${cut.accepted}`}`
        : undefined
    })
  }
}

/**
 * Backs off on every throttle: a throttle of a send granted at the rate in
 * force leaves the rate at most `beta` times that rate (or the minimum),
 * and no throttle raises it.
 *
 * @since 0.2.0
 * @category laws
 */
export const backsOffOnEveryThrottle: Law = {
  name: "backs off on every throttle",
  test: (policy, steps) =>
    first(steps, (step) => {
      if (step.event._tag !== "Throttle") return undefined
      if (step.after.rate > step.before.rate + slack)
        return `raised the rate from ${step.before.rate} to ${step.after.rate}`
      if (step.event.stale) return undefined
      const allowed = Math.max(policy.minRate, policy.beta * step.before.rate)
      return step.after.rate > allowed * (1 + slack) + slack
        ? `left the rate at ${step.after.rate}, above beta × ${step.before.rate} = ${allowed}`
        : undefined
    })
}

const isState = Schema.is(AdaptiveRate.State)

/**
 * Stays within the policy's bounds: the rate is never below `minRate` nor
 * above `maxRate`, and every state is one the store keeps (`State`: finite,
 * with positive rates).
 *
 * @since 0.2.0
 * @category laws
 */
export const staysWithinBounds: Law = {
  name: "never below the minimum rate nor above the maximum",
  test: (policy, steps) =>
    first(steps, (step) =>
      step.after.rate < policy.minRate - slack || step.after.rate > policy.maxRate * (1 + slack)
        ? `the rate ${step.after.rate} is outside [${policy.minRate}, ${policy.maxRate}]`
        : isState(step.after)
          ? undefined
          : `left a state the store cannot keep: ${JSON.stringify(step.after)}`
    )
}

/**
 * Never undercuts a retry-after hint: no send is granted to go before any
 * throttle's `now + retryAfterMs` (a hint longer than `maxHold` holding for
 * `maxHold`), and no hint holds the key longer than `maxHold`.
 *
 * @since 0.2.0
 * @category laws
 */
export const honoursRetryAfter: Law = {
  name: "a retry-after hint is never undercut",
  test: (policy, steps) => {
    let hold = Number.NEGATIVE_INFINITY
    return first(steps, (step) => {
      if (step.event._tag === "Throttle" && step.event.retryAfterMs !== undefined)
        hold = Math.max(hold, step.now + Math.min(step.event.retryAfterMs, policy.maxHold))
      if (step.after.holdUntil > step.before.holdUntil && step.after.holdUntil > step.now + policy.maxHold + slack)
        return `held the key until ${step.after.holdUntil}, beyond the ${policy.maxHold} ms most a hint holds`
      if (step.decision?._tag !== "Send") return undefined
      return step.now + step.decision.wait < hold - slack
        ? `granted a send at ${step.now + step.decision.wait}, before the hint's ${hold}`
        : undefined
    })
  }
}

/**
 * Waits are bounded: a grant waits at most the horizon, a caller told to
 * come back waits a positive time, never longer than the hold (or the last
 * grant) plus the time the sends already granted take at the minimum rate.
 *
 * @since 0.2.0
 * @category laws
 */
export const boundedWaits: Law = {
  name: "waits are bounded",
  test: (policy, steps) =>
    first(steps, (step) => {
      const decision = step.decision
      if (decision === undefined) return undefined
      if (decision._tag === "Send")
        return decision.wait < 0 || decision.wait > policy.horizon + slack
          ? `a grant waits ${decision.wait} ms, outside [0, ${policy.horizon}]`
          : undefined
      const start = Math.max(0, step.after.holdUntil - step.now, step.after.at - step.now)
      const bound = start + (Math.max(0, 1 - step.after.tokens) * 1_000) / policy.minRate
      return !(decision.wait > 0) || !Number.isFinite(decision.wait) || decision.wait > bound + slack
        ? `told to come back after ${decision.wait} ms (bound ${bound})`
        : undefined
    })
}

/**
 * Paces sends within the rate: any run of grants, from one whose send goes
 * at `r₁` to one at `r₂`, counts at most `burst + R · (r₂ − r₁ + horizon)`
 * sends, `R` the highest rate in force over the run (a grant may be paid for
 * up to the horizon before its send goes).
 *
 * @since 0.2.0
 * @category laws
 */
export const pacesWithinTheRate: Law = {
  name: "never lets sends go faster than the rate allows",
  test: (policy, steps) => {
    const grants = steps.flatMap((step) =>
      step.decision?._tag === "Send" ? [{ step, release: step.now + step.decision.wait }] : []
    )
    for (let i = 0; i < grants.length; i++) {
      let highest = 0
      let at = grants[i]!.step.index
      for (let j = i; j < grants.length; j++) {
        for (; at <= grants[j]!.step.index; at++)
          highest = Math.max(highest, steps[at]!.before.rate, steps[at]!.after.rate)
        const span = grants[j]!.release - grants[i]!.release
        const allowed = policy.burst + (highest * (span + policy.horizon)) / 1_000
        if (j - i + 1 > allowed * (1 + slack) + slack)
          return Option.some(
            `step ${grants[j]!.step.index + 1} (Reserve): ${j - i + 1} sends went within ${span} ms of each other, ` +
              `above the ${allowed} that ${highest} a second allows`
          )
      }
    }
    return Option.none()
  }
}

/**
 * Every law above.
 *
 * @since 0.2.0
 * @category laws
 */
export const all: ReadonlyArray<Law> = [
  growsWithinCurve,
  backsOffOnEveryThrottle,
  staysWithinBounds,
  honoursRetryAfter,
  boundedWaits,
  pacesWithinTheRate
]

/**
 * Options of a check: the cases drawn (default 200) and a seed to repeat a run.
 *
 * @since 0.2.0
 * @category models
 */
export interface CheckOptions {
  readonly runs?: number | undefined
  readonly seed?: number | undefined
}

/**
 * Checks a law on a policy; fails with a `LawViolation` on the shrunk case
 * that breaks it.
 *
 * @since 0.2.0
 * @category running
 */
export const check = (
  law: Law,
  policy: AdaptiveRate.Policy,
  options: CheckOptions = {}
): Effect.Effect<void, LawViolation> =>
  Effect.flatMap(
    Arbitrary.checkEffect(events, (drawn) => Option.isNone(law.test(policy, play(policy, drawn))), {
      runs: options.runs ?? 200,
      size: 200,
      ...(options.seed === undefined ? {} : { seed: options.seed })
    }),
    (result) => {
      if (result._tag === "Passed") return Effect.void
      const counterexample = result._tag === "Falsified" ? result.shrunkInput : undefined
      const problem =
        counterexample === undefined
          ? undefined
          : law.test(policy, play(policy, counterexample)).pipe(Option.getOrUndefined)
      return Effect.fail(
        new LawViolation({
          law: law.name,
          message: `${law.name}: ${problem ?? Arbitrary.formatCheckFailure(result) ?? result._tag}${counterexample === undefined ? "" : `\nevents: ${JSON.stringify(counterexample)}`}`
        })
      )
    }
  )

/**
 * Checks every law on a policy, one after another.
 *
 * @since 0.2.0
 * @category running
 */
export const checkAll = (
  laws: ReadonlyArray<Law>,
  policy: AdaptiveRate.Policy,
  options: CheckOptions = {}
): Effect.Effect<void, LawViolation> => Effect.forEach(laws, (law) => check(law, policy, options), { discard: true })
