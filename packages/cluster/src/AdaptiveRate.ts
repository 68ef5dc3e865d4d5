/**
 * An adaptive send rate: the pure core of the limiter that learns a
 * provider's capacity from its answers instead of being told it.
 *
 * The rate follows CUBIC, as the AWS SDK's adaptive retry mode does: a
 * throttle (a 429 or 529) cuts the rate to `beta` times the rate the
 * provider was accepting, and successes grow it back along the cubic curve
 * `lastMax + scale · (t − K)³`, where `t` is the seconds since the cut and
 * `K = ∛(lastMax · (1 − beta) / scale)`: fast at first, flat near the rate
 * that was throttled, then probing above it. The rate never grows beyond
 * twice the accepted rate measured over the last intervals, and never
 * leaves `[minRate, maxRate]`.
 *
 * Where it goes beyond the AWS SDK:
 * - it is paced from the first request, from `initialRate`, doubling with
 *   the measured accepted rate until the first throttle (a slow start), so a
 *   cold fleet does not learn the capacity from a burst of 429s;
 * - the measured rate is the rate the provider accepted (successes), not
 *   the rate sent, so after a throttle the curve's plateau is the capacity
 *   the provider showed, not the rate that overshot it;
 * - a retry-after hint holds every send for the key until it has passed
 *   (sends granted before the hint, at most `horizon` ahead, still go), for
 *   at most `maxHold`: a longer hint is the concern of each session that
 *   meets it, which decides whether to wait that long;
 * - one state per key lives in a `StateStore`, so the measured rate is the
 *   whole fleet's and a throttle seen by one runner slows every runner;
 * - a throttle of a request granted before the last cut does not cut again
 *   (it answers for a rate already given up), so one overshoot costs one cut;
 * - sends are granted at most `horizon` ahead: callers further back come back
 *   later, so a rate change applies to every send not yet granted.
 *
 * @example
 * ```ts
 * import { AdaptiveRate } from "@agent-kernel/cluster"
 *
 * const policy = AdaptiveRate.make({ beta: 0.5, maxRate: 100 })
 * const [decision, state] = AdaptiveRate.reserve(policy, AdaptiveRate.initial(policy), 0)
 * ```
 *
 * @since 0.2.0
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"

/**
 * Options of an adaptive rate; every one has a default.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The share of the accepted rate kept after a throttle. Default 0.7. */
  readonly beta?: number | undefined
  /** The cubic growth's scale, in requests a second per second³. Default 0.4. */
  readonly scale?: number | undefined
  /** The rate never goes below this (requests a second). Default 0.5. */
  readonly minRate?: number | undefined
  /** The rate never goes above this (requests a second). Default (and `Infinity`): no ceiling. */
  readonly maxRate?: number | undefined
  /** The rate of a key nobody has sent on yet (requests a second). Default 2. */
  readonly initialRate?: number | undefined
  /** Sends that may go at once after an idle spell. Default 1 (evenly spaced). */
  readonly burst?: number | undefined
  /** How far ahead a send is granted; callers further back come back later. Default 250 ms. */
  readonly horizon?: Duration.Input | undefined
  /** The interval over which the accepted rate is measured. Default 500 ms. */
  readonly measureInterval?: Duration.Input | undefined
  /** The weight of the newest interval in the measured rate. Default 0.8. */
  readonly smoothing?: number | undefined
  /** The longest a retry-after hint holds every send of the key. Default 60 s. */
  readonly maxHold?: Duration.Input | undefined
}

/**
 * An adaptive rate policy: its options resolved. A plain value, so policies
 * compare, print and store like data.
 *
 * @since 0.2.0
 * @category models
 */
export interface Policy {
  readonly beta: number
  readonly scale: number
  readonly minRate: number
  readonly maxRate: number
  readonly initialRate: number
  readonly burst: number
  /** Milliseconds. */
  readonly horizon: number
  /** Milliseconds. */
  readonly measureInterval: number
  readonly smoothing: number
  /** Milliseconds. */
  readonly maxHold: number
}

/**
 * A policy from options that are out of range.
 *
 * @since 0.2.0
 * @category errors
 */
export class InvalidPolicy extends Data.TaggedError("InvalidPolicy")<{ readonly message: string }> {}

/** Throws `InvalidPolicy` unless `value` is in `[low, high]` (`(low, high]` when `open`). */
const within = (name: string, value: number, low: number, high: number, open = false) => {
  const ok = open ? value > low && value <= high : value >= low && value <= high
  if (!ok)
    throw new InvalidPolicy({
      message: `${name} must be ${open ? "above" : "at least"} ${low} and at most ${high}, got ${value}`
    })
}

/**
 * A policy from options (the AWS SDK's constants by default). Throws
 * `InvalidPolicy` for options out of range: `beta` in (0, 1), positive
 * rates with `minRate ≤ initialRate ≤ maxRate`, `smoothing` in (0, 1].
 *
 * @example
 * ```ts
 * import { AdaptiveRate } from "@agent-kernel/cluster"
 *
 * const gentle = AdaptiveRate.make({ beta: 0.85, scale: 0.2 })
 * // A policy is its options: this one is `gentle`, capped at 20 requests a second.
 * const capped = AdaptiveRate.make({ ...gentle, maxRate: 20 })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options = {}): Policy => {
  // No ceiling is the largest finite rate, so that a policy stays plain JSON.
  const ceiling = options.maxRate === undefined || options.maxRate === Infinity ? Number.MAX_VALUE : options.maxRate
  const policy: Policy = {
    beta: options.beta ?? 0.7,
    scale: options.scale ?? 0.4,
    minRate: options.minRate ?? 0.5,
    maxRate: ceiling,
    initialRate: options.initialRate ?? Math.min(ceiling, Math.max(2, options.minRate ?? 0.5)),
    burst: options.burst ?? 1,
    horizon: Duration.toMillis(options.horizon ?? 250),
    measureInterval: Duration.toMillis(options.measureInterval ?? 500),
    smoothing: options.smoothing ?? 0.8,
    maxHold: Duration.toMillis(options.maxHold ?? 60_000)
  }
  within("beta", policy.beta, 0, 0.999, true)
  within("scale", policy.scale, 0, Number.MAX_VALUE, true)
  within("minRate", policy.minRate, 0, Number.MAX_VALUE, true)
  within("maxRate", policy.maxRate, policy.minRate, Number.MAX_VALUE)
  within("initialRate", policy.initialRate, policy.minRate, policy.maxRate)
  within("burst", policy.burst, 1, Number.MAX_VALUE)
  within("horizon", policy.horizon, 0, Number.MAX_VALUE)
  within("measureInterval", policy.measureInterval, 0, Number.MAX_VALUE, true)
  within("smoothing", policy.smoothing, 0, 1, true)
  within("maxHold", policy.maxHold, 0, Number.MAX_VALUE)
  return policy
}

/**
 * The default policy: the AWS SDK's constants (beta 0.7, scale 0.4, at
 * least 0.5 requests a second), from 2 requests a second.
 *
 * @since 0.2.0
 * @category constructors
 */
export const defaults: Policy = make()

/** A rate the state holds: positive and finite, so a state from a store cannot stall or divide by zero. */
const Rate = Schema.Finite.check(Schema.isGreaterThan(0))

/**
 * A key's state, kept in a `StateStore` (times are epoch milliseconds on the
 * store's clock, rates requests a second).
 *
 * @since 0.2.0
 * @category schemas
 */
export const State = Schema.Struct({
  /** False until the key's first transition, which starts its clock. */
  started: Schema.Boolean,
  /** The send rate in force. */
  rate: Rate,
  /** Sends the bucket holds at `at`; negative while sends are granted ahead. */
  tokens: Schema.Finite,
  at: Schema.Finite,
  /** The rate accepted when the provider last throttled (or the initial rate): the curve's plateau. */
  lastMax: Rate,
  /** When the growth curve started: the last cut, or the key's first use. */
  since: Schema.Finite,
  /** The cuts so far; a grant carries it, so a throttle can tell whether it answers for the rate in force. */
  generation: Schema.Int,
  /** The smoothed rate of accepted sends (successes) over past intervals. */
  measured: Schema.Finite,
  /** The start of the interval being measured, and the sends accepted in it. */
  intervalFrom: Schema.Finite,
  accepted: Schema.Finite,
  /** No send is granted to go before this (a retry-after hint). */
  holdUntil: Schema.Finite
})

/**
 * @since 0.2.0
 * @category models
 */
export interface State extends Schema.Schema.Type<typeof State> {}

/**
 * The state of a key nobody has used.
 *
 * @since 0.2.0
 * @category constructors
 */
export const initial = (policy: Policy): State => ({
  started: false,
  rate: policy.initialRate,
  tokens: policy.burst,
  at: 0,
  lastMax: policy.initialRate,
  since: 0,
  generation: 0,
  measured: 0,
  intervalFrom: 0,
  accepted: 0,
  holdUntil: 0
})

/**
 * What `reserve` answers: send after `wait` milliseconds (the grant carries
 * the generation to report the outcome with), or come back after `wait`
 * milliseconds without a grant.
 *
 * @since 0.2.0
 * @category models
 */
export type Decision =
  | { readonly _tag: "Send"; readonly wait: number; readonly generation: number }
  | { readonly _tag: "Later"; readonly wait: number }

/**
 * `K`: the seconds the curve takes from a cut back to the plateau.
 *
 * @since 0.2.0
 * @category curve
 */
export const plateauAfter = (policy: Policy, lastMax: number): number =>
  Math.cbrt((lastMax * (1 - policy.beta)) / policy.scale)

/**
 * The curve's rate `seconds` after it started at plateau `lastMax`:
 * `lastMax + scale · (seconds − K)³`.
 *
 * @since 0.2.0
 * @category curve
 */
export const curve = (policy: Policy, lastMax: number, seconds: number): number =>
  lastMax + policy.scale * (seconds - plateauAfter(policy, lastMax)) ** 3

/**
 * The most a success lets the rate grow to: twice the measured accepted rate
 * (or the initial rate, before anything is measured). Before the first
 * throttle the rate grows to it at once (a slow start that doubles); after,
 * along the curve, below it.
 *
 * @since 0.2.0
 * @category curve
 */
export const ceilingOf = (policy: Policy, state: State): number => Math.max(policy.initialRate, 2 * state.measured)

/** Within the policy's bounds. */
const bounded = (policy: Policy, rate: number): number => Math.min(policy.maxRate, Math.max(policy.minRate, rate))

/** A key's first transition starts its clock. */
const start = (state: State, now: number): State =>
  state.started
    ? state
    : {
        ...state,
        started: true,
        at: now,
        since: now,
        intervalFrom: now
      }

/** The bucket refilled at the rate in force up to `now` (a clock that went back refills nothing). */
const refill = (policy: Policy, state: State, now: number): State =>
  now <= state.at
    ? state
    : {
        ...state,
        tokens: Math.min(policy.burst, state.tokens + ((now - state.at) * state.rate) / 1_000),
        at: now
      }

/** The measured rate after the interval being measured, once it has run its length. */
const measure = (policy: Policy, state: State, now: number): State => {
  const elapsed = now - state.intervalFrom
  if (elapsed < policy.measureInterval) return state
  const rate = (state.accepted * 1_000) / elapsed
  return {
    ...state,
    measured: policy.smoothing * rate + (1 - policy.smoothing) * state.measured,
    intervalFrom: now,
    accepted: 0
  }
}

/** The state up to `now`: started, refilled and measured. */
const advance = (policy: Policy, state: State, now: number): State =>
  measure(policy, refill(policy, start(state, now), now), now)

/**
 * Asks to send at `now`: a grant to go after a wait within the horizon
 * (never before a retry-after hint has passed), or the time to come back.
 *
 * @since 0.2.0
 * @category transitions
 */
export const reserve = (policy: Policy, state: State, now: number): readonly [Decision, State] => {
  const current = advance(policy, state, now)
  const from = Math.max(now, current.holdUntil, current.at)
  const level = Math.min(policy.burst, current.tokens + ((from - current.at) * current.rate) / 1_000)
  const wait = from - now + (level >= 1 ? 0 : ((1 - level) * 1_000) / current.rate)
  if (wait > policy.horizon) return [{ _tag: "Later", wait: wait - policy.horizon }, current]
  return [
    { _tag: "Send", wait, generation: current.generation },
    { ...current, tokens: level - 1, at: from }
  ]
}

/**
 * What the provider said about a send.
 *
 * @since 0.2.0
 * @category models
 */
export interface Throttle {
  /** The generation of the send's grant (`Decision.Send`). */
  readonly generation: number
  /** The server's retry-after hint, in milliseconds. */
  readonly retryAfterMs?: number | undefined
}

/**
 * How long a retry-after hint holds every send of the key: the hint, at most
 * `maxHold`; none for no hint, or one that is not a positive number.
 *
 * @since 0.2.0
 * @category curve
 */
export const holdOf = (policy: Policy, retryAfterMs: number | undefined): number =>
  retryAfterMs !== undefined && retryAfterMs > 0 ? Math.min(retryAfterMs, policy.maxHold) : 0

/**
 * The provider throttled a send (429 or 529) at `now`: every send waits
 * for its retry-after hint (at most `maxHold`), and, unless the send was granted before the
 * last cut, the rate drops to `beta` times the rate being accepted (the
 * lower of the rate in force and the measured one) and the growth curve
 * starts again from there.
 *
 * @since 0.2.0
 * @category transitions
 */
export const onThrottle = (policy: Policy, state: State, now: number, throttle: Throttle): State => {
  const current = advance(policy, state, now)
  const hold = holdOf(policy, throttle.retryAfterMs)
  const held = hold > 0 ? { ...current, holdUntil: Math.max(current.holdUntil, now + hold) } : current
  if (throttle.generation !== current.generation) return held
  const accepted = held.measured > 0 ? Math.min(held.measured, held.rate) : held.rate
  return {
    ...held,
    rate: bounded(policy, accepted * policy.beta),
    lastMax: accepted,
    since: now,
    generation: held.generation + 1
  }
}

/**
 * A send succeeded at `now`: the rate moves to the growth curve's value,
 * no higher than twice the measured rate (or the initial rate); before the
 * first throttle, to twice the measured rate (a slow start).
 *
 * @since 0.2.0
 * @category transitions
 */
export const onSuccess = (policy: Policy, state: State, now: number): State => {
  const advanced = advance(policy, state, now)
  const current = { ...advanced, accepted: advanced.accepted + 1 }
  const ceiling = ceilingOf(policy, current)
  const grown = current.generation === 0 ? ceiling : curve(policy, current.lastMax, (now - current.since) / 1_000)
  return { ...current, rate: bounded(policy, Math.min(grown, ceiling)) }
}
