/**
 * A count-based circuit breaker for crashes, timeouts and denials.
 *
 * At agent call rates a rate-based window (resilience4j, Polly) never fills,
 * so this breaker counts. When it opens is a `Strategy` value: `consecutive(n)`
 * failures in a row, a `total(n)` of failures net of successes, or `either`
 * of several. It stays open for `cooldown`, then lets one probe through
 * (half-open): the probe's success closes it and starts the tally afresh; its
 * failure reopens it; an interrupted probe is abandoned and the next call
 * probes instead. Time comes from Effect's Clock, so TestClock drives it
 * exactly.
 *
 * `protect(breaker, { isFailure })(effect)` is the whole protocol in one
 * call: ask for a permit, run, record the outcome whatever it is.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
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
 * A change of status, with the reason `breaker_changed` carries.
 *
 * @since 0.1.0
 * @category models
 */
export type Transition = internal.Transition

/**
 * How a call ended, as far as the breaker cares: `Succeeded`, `Failed` (it
 * counts), `Excused` (a failure that says nothing against what the breaker
 * guards) or `Interrupted`.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome = internal.Outcome

/**
 * When failures open the breaker. An immutable tally: each outcome returns
 * the next one, and `tripped` says why the breaker should open, if it
 * should. Build one with `consecutive`, `total` and `either`.
 *
 * @since 0.1.0
 * @category models
 */
export type Strategy = internal.Strategy

/**
 * Opens after `threshold` failures in a row; any success resets the count.
 *
 * @since 0.1.0
 * @category strategies
 */
export const consecutive = (threshold: number): Strategy => internal.consecutive(threshold)

/**
 * Opens when failures outnumber successes by `threshold`. Each failure adds
 * one and each success takes `refund` off (default 1; never below zero), so
 * the count decays as the provider works again: a provider that fails more
 * often than one call in `1 + refund` trips it sooner or later, and one
 * that fails less often never does, however long the session. `refund: 0`
 * counts every failure for the life of the breaker.
 *
 * @since 0.1.0
 * @category strategies
 */
export const total = (threshold: number, options?: { readonly refund?: number | undefined }): Strategy =>
  internal.total(threshold, Math.max(0, options?.refund ?? 1))

/**
 * Trips as soon as any of the strategies trips; each hears every outcome.
 *
 * @since 0.1.0
 * @category strategies
 */
export const either = (...strategies: ReadonlyArray<Strategy>): Strategy => internal.either(strategies)

/**
 * The default: 3 consecutive failures, or 20 net of successes.
 *
 * @since 0.1.0
 * @category strategies
 */
export const defaultStrategy: Strategy = either(consecutive(3), total(20))

/**
 * A call `protect` refused because the breaker is open, or half-open with
 * its probe in flight. Nothing was run.
 *
 * @since 0.1.0
 * @category errors
 */
export class Rejected extends Schema.TaggedError<Rejected>("@agent-kernel/CircuitBreaker/Rejected")("BreakerRejected", {
  subject: Schema.String,
  reason: Schema.String,
  retryInMillis: Schema.Number
}) {
  /** @since 0.1.0 */
  override get message(): string {
    return `the circuit breaker of "${this.subject}" is open (${this.reason}); retry in ${this.retryInMillis} ms`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** What the breaker guards, as named in `breaker_changed` events. */
  readonly subject: string
  /** When it opens. Default `defaultStrategy`. */
  readonly strategy?: Strategy | undefined
  /** Default 30 seconds. */
  readonly cooldown?: Duration.Input | undefined
  /** Called on every transition. Default: `publishTransition(subject)`. */
  readonly onTransition?: ((transition: Transition) => Effect.Effect<void>) | undefined
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
  /** Asks to make a call. A permit must be followed by `complete` (or a `record*`). */
  readonly acquire: Effect.Effect<Permit>
  /** Records how the call a permit was granted for ended. */
  readonly complete: (permit: Exclude<Permit, { readonly _tag: "Rejected" }>, outcome: Outcome) => Effect.Effect<void>
  readonly recordSuccess: Effect.Effect<void>
  readonly recordFailure: (reason: string) => Effect.Effect<void>
  /** The strategy's counters (`consecutive`, `total`), for reports and tests. */
  readonly counts: Effect.Effect<Readonly<Record<string, number>>>
}

/**
 * The default transition hook: publishes `breaker_changed` on the EventBus
 * in context, if any.
 *
 * @since 0.1.0
 * @category constructors
 */
export const publishTransition =
  (subject: string) =>
  (transition: Transition): Effect.Effect<void> =>
    EventBus.publish({ type: "breaker_changed", subject, ...transition })

/**
 * Builds a breaker.
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const breaker = yield* CircuitBreaker.make({
 *     subject: "files",
 *     strategy: CircuitBreaker.either(CircuitBreaker.consecutive(3), CircuitBreaker.total(20)),
 *     cooldown: "30 seconds"
 *   })
 *   yield* CircuitBreaker.protect(breaker)(Effect.fail("process exited with code 1"))
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<CircuitBreaker> =>
  Effect.gen(function* () {
    const config: internal.BreakerConfig = {
      strategy: options.strategy ?? defaultStrategy,
      cooldownMillis: Duration.toMillis(options.cooldown ?? "30 seconds")
    }
    const ref = yield* Ref.make(internal.initial(config))
    const notify = options.onTransition ?? publishTransition(options.subject)
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
      complete: (permit, outcome) => run((state, now) => internal.complete(state, now, config, permit, outcome)),
      recordSuccess: run((state) => internal.success(state, config)),
      recordFailure: (reason) => run((state, now) => internal.failure(state, now, reason)),
      counts: Effect.map(Ref.get(ref), (state) => state.tally.counts)
    }
  })

/**
 * @since 0.1.0
 * @category models
 */
export interface ProtectOptions<E> {
  /** Whether a failure counts against the breaker. Default: every failure does. */
  readonly isFailure?: ((error: E) => boolean) | undefined
  /** The reason a counted failure is recorded with. Default: its `message`, or the error as text. */
  readonly describe?: ((error: E) => string) | undefined
}

/**
 * How an `Exit` counts: a failure per `isFailure`, a defect always, an
 * interruption (with no failure beside it) as an interruption.
 *
 * @since 0.1.0
 * @category outcomes
 */
export const outcomeOf = <A, E>(exit: Exit.Exit<A, E>, options: ProtectOptions<E> = {}): Outcome => {
  if (Exit.isSuccess(exit)) return { _tag: "Succeeded" }
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isSome(failure)) {
    const isFailure = options.isFailure ?? (() => true)
    return isFailure(failure.value)
      ? { _tag: "Failed", reason: (options.describe ?? describeError)(failure.value) }
      : { _tag: "Excused" }
  }
  const defect = Cause.findDefect(exit.cause)
  if (Result.isSuccess(defect)) return { _tag: "Failed", reason: `defect: ${describeError(defect.success)}` }
  return { _tag: "Interrupted" }
}

const describeError = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"
    ? error.message
    : String(error)

/**
 * Runs an effect behind the breaker: asks for a permit (failing with
 * `Rejected` when there is none, without running anything), runs the
 * effect, and records its outcome on exit, whatever it is, interruption
 * included.
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * interface ToolError {
 *   readonly fixable: boolean
 *   readonly message: string
 * }
 * declare const breaker: CircuitBreaker.CircuitBreaker
 * declare const callTool: Effect.Effect<string, ToolError>
 *
 * // A failure the caller can fix itself says nothing against the tool. The options come first,
 * // so `isFailure` names the error type it judges.
 * const guarded = CircuitBreaker.protect(breaker, { isFailure: (error: ToolError) => !error.fixable })(callTool)
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export function protect(
  breaker: CircuitBreaker
): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | Rejected, R>
export function protect<E>(
  breaker: CircuitBreaker,
  options: ProtectOptions<E>
): <A, E2 extends E, R>(effect: Effect.Effect<A, E2, R>) => Effect.Effect<A, E2 | Rejected, R>
export function protect<E>(breaker: CircuitBreaker, options: ProtectOptions<E> = {}) {
  return <A, E2 extends E, R>(effect: Effect.Effect<A, E2, R>): Effect.Effect<A, E2 | Rejected, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        breaker.acquire,
        (permit): Effect.Effect<A, E2 | Rejected, R> =>
          permit._tag === "Rejected"
            ? Effect.fail(
                new Rejected({ subject: breaker.subject, reason: permit.reason, retryInMillis: permit.retryInMillis })
              )
            : Effect.onExit(restore(effect), (exit) => breaker.complete(permit, outcomeOf<A, E>(exit, options)))
      )
    )
}
