/**
 * A count-based circuit breaker for crashes, timeouts and denials.
 *
 * At agent call rates a rate-based window (resilience4j, Polly) never fills,
 * so this breaker counts: it opens after `consecutiveFailures` in a row or
 * `totalFailures` in the session, stays open for `cooldown`, then lets one
 * probe through (half-open). The probe's success closes it; its failure
 * reopens it. Time comes from Effect's Clock, so TestClock drives it exactly.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as EventBus from "./EventBus.js"
import * as internal from "./internal/circuitBreaker.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Status = internal.BreakerStatus

/**
 * What `acquire` grants: a normal call, the single half-open probe, or a
 * rejection with the time left until the next probe.
 *
 * @since 0.1.0
 * @category models
 */
export type Permit = internal.Permit

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** What the breaker guards, as named in `breaker_changed` events. */
  readonly subject: string
  /** Default 3. */
  readonly consecutiveFailures?: number | undefined
  /** Default 20. */
  readonly totalFailures?: number | undefined
  /** Default 30 seconds. */
  readonly cooldown?: Duration.DurationInput | undefined
  /** Called on every transition. Default: publish `breaker_changed` on the EventBus in context, if any. */
  readonly onTransition?: ((transition: internal.Transition) => Effect.Effect<void>) | undefined
}

/**
 * A circuit breaker.
 *
 * @since 0.1.0
 * @category models
 */
export interface CircuitBreaker {
  readonly subject: string
  /** The current status; an open breaker past its cooldown reads as half-open. */
  readonly status: Effect.Effect<Status>
  /** Asks to make a call. A `Probe` permit must be followed by `recordSuccess` or `recordFailure`. */
  readonly acquire: Effect.Effect<Permit>
  readonly recordSuccess: Effect.Effect<void>
  readonly recordFailure: (reason: string) => Effect.Effect<void>
  /** Counters, for reports and tests. */
  readonly counts: Effect.Effect<{ readonly consecutive: number; readonly total: number }>
}

/**
 * Builds a breaker.
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const breaker = yield* CircuitBreaker.make({ subject: "files", consecutiveFailures: 3, cooldown: "30 seconds" })
 *   const permit = yield* breaker.acquire
 *   if (permit._tag !== "Rejected") yield* breaker.recordFailure("process exited with code 1")
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<CircuitBreaker> =>
  Effect.gen(function* () {
    const config: internal.BreakerConfig = {
      consecutiveFailures: options.consecutiveFailures ?? 3,
      totalFailures: options.totalFailures ?? 20,
      cooldownMillis: Duration.toMillis(Duration.decode(options.cooldown ?? "30 seconds"))
    }
    const ref = yield* Ref.make(internal.initial)
    const notify =
      options.onTransition ??
      ((t: internal.Transition) =>
        EventBus.publish({
          type: "breaker_changed",
          subject: options.subject,
          from: t.from,
          to: t.to,
          reason: t.reason
        }))
    const run = <A>(step: (state: internal.BreakerState, now: number) => internal.Step<A>): Effect.Effect<A> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.modify(ref, (state) => {
          const next = step(state, now)
          return [next, next.state] as const
        })
      ).pipe(
        Effect.tap((next) => (next.transition === undefined ? Effect.void : notify(next.transition))),
        Effect.map((next) => next.value)
      )
    return {
      subject: options.subject,
      status: run((state, now) => internal.settle(state, now, config)),
      acquire: run((state, now) => internal.acquire(state, now, config)),
      recordSuccess: run((state) => internal.success(state)),
      recordFailure: (reason) => run((state, now) => internal.failure(state, now, config, reason)),
      counts: Effect.map(Ref.get(ref), ({ consecutive, total }) => ({ consecutive, total }))
    }
  })
