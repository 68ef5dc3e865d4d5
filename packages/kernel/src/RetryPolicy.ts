/**
 * Retry policies as values: Effect `Schedule`s over `ModelError` inputs.
 *
 * The kernel never calls `Effect.retry` with a policy. It steps the schedule
 * itself (`stepper`), one error at a time, so that before every sleep it can check the
 * session budget, the wall clock and `max_retry_wait_ms`, emit the exact
 * delay it is about to wait, and so that a simulation of a policy matches a
 * real run to the millisecond. Any `Schedule<unknown, ModelError>` is a
 * policy: compose the pieces below with Schedule combinators.
 *
 * Whatever the policy says, the kernel never sleeps less than a server's
 * retry-after and never retries a category whose reaction is not `retry`.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Pull from "effect/Pull"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"
import * as ModelError from "./ModelError.js"
import type * as Settings from "./Settings.js"

/**
 * A retry policy: a schedule fed with each error. When it is done, the call
 * has used its retries.
 *
 * @since 0.1.0
 * @category models
 */
export type RetryPolicy = Schedule.Schedule<unknown, ModelError.ModelError>

/**
 * Exponential backoff: `base * factor^n` for the n-th retry (n from 0).
 *
 * @since 0.1.0
 * @category building blocks
 */
export const backoff = (options: {
  readonly base: Duration.Input
  readonly factor?: number | undefined
}): Schedule.Schedule<Duration.Duration> => Schedule.exponential(options.base, options.factor ?? 2)

/**
 * Caps each delay of a schedule.
 *
 * @since 0.1.0
 * @category building blocks
 */
export const capped =
  (max: Duration.Input) =>
  <Out, In, E, R>(self: Schedule.Schedule<Out, In, E, R>): Schedule.Schedule<Out, In, E, R> => {
    const cap = Duration.fromInputUnsafe(max)
    return Schedule.modifyDelay(self, ({ duration }) => Effect.succeed(Duration.min(duration, cap)))
  }

/**
 * Full jitter: each delay becomes U(0, d). Under contention it does the least
 * total work of the common jitter kinds (AWS, "Exponential Backoff and Jitter").
 *
 * @since 0.1.0
 * @category building blocks
 */
export const fullJitter = <Out, In, E, R>(self: Schedule.Schedule<Out, In, E, R>): Schedule.Schedule<Out, In, E, R> =>
  Schedule.modifyDelay(self, ({ duration }) =>
    Effect.map(Random.next, (random) => Duration.millis(Duration.toMillis(duration) * random))
  )

/**
 * Proportional jitter: each delay is multiplied by U(0.8, 1.2) (Effect's `Schedule.jittered`).
 *
 * @since 0.1.0
 * @category building blocks
 */
export const proportionalJitter = <Out, In, E, R>(
  self: Schedule.Schedule<Out, In, E, R>
): Schedule.Schedule<Out, In, E, R> => Schedule.jittered(self)

/**
 * The jitter transformation for a settings `jitter` kind.
 *
 * @since 0.1.0
 * @category building blocks
 */
export const jitter =
  (kind: Settings.JitterKind) =>
  <Out, In, E, R>(self: Schedule.Schedule<Out, In, E, R>): Schedule.Schedule<Out, In, E, R> =>
    kind === "full" ? fullJitter(self) : kind === "proportional" ? proportionalJitter(self) : self

/**
 * At most `retries` retries per call.
 *
 * @since 0.1.0
 * @category building blocks
 */
export const upTo =
  (retries: number) =>
  <Out, In, E, R>(self: Schedule.Schedule<Out, In, E, R>): Schedule.Schedule<Out, In, E, R> =>
    Schedule.upTo(self, { times: retries })

/**
 * Feeds a schedule with model errors and stops on any that is not retryable
 * (a non-transient category, or a server that said `x-should-retry: false`).
 *
 * @since 0.1.0
 * @category building blocks
 */
export const whileRetryable = <Out, E, R>(
  self: Schedule.Schedule<Out, unknown, E, R>
): Schedule.Schedule<Out, ModelError.ModelError, E, R> => {
  // Any schedule that takes any input takes model errors.
  const fed: Schedule.Schedule<Out, ModelError.ModelError, E, R> = self
  return Schedule.while(fed, ({ input }) => ModelError.isRetryable(input))
}

/**
 * A delay floored at the error's `retryAfter`: never sooner than the server
 * asked. The one definition of the floor: `honorRetryAfter` applies it
 * inside a policy, and the kernel's `Decision` to whatever policy a session
 * runs (a user's own may ignore the hint).
 *
 * @example
 * ```ts
 * import { ModelError, RetryPolicy } from "@agent-kernel/kernel"
 * import { Duration } from "effect"
 *
 * const error = ModelError.make("rate_limited", { provider: "p", model: "m", message: "slow down", retryAfter: Duration.seconds(7) })
 * RetryPolicy.floorAtRetryAfter(Duration.millis(500), error) // 7 seconds
 * ```
 *
 * @since 0.4.0
 * @category building blocks
 */
export const floorAtRetryAfter = (delay: Duration.Duration, error: ModelError.ModelError): Duration.Duration =>
  error.retryAfter === undefined ? delay : Duration.max(delay, error.retryAfter)

/**
 * Makes every delay at least the error's `retryAfter` (`floorAtRetryAfter`).
 * Jitter applied before this step never takes a delay below the server's
 * hint.
 *
 * @since 0.1.0
 * @category building blocks
 */
export const honorRetryAfter = <Out, E, R>(
  self: Schedule.Schedule<Out, ModelError.ModelError, E, R>
): Schedule.Schedule<Out, ModelError.ModelError, E, R> =>
  Schedule.modifyDelay(self, ({ input, duration }) => Effect.succeed(floorAtRetryAfter(duration, input)))

/**
 * The kernel's default policy, from settings:
 * `exponential(base_delay_ms, backoff_factor)`, capped at `max_delay_ms`,
 * jittered, capped again (so jitter never exceeds the cap, while delays at
 * the cap still spread), at most `max_retries` retries, transient errors
 * only, and never sooner than the server's retry-after.
 *
 * @example
 * ```ts
 * import { RetryPolicy, Settings } from "@agent-kernel/kernel"
 *
 * const policy = RetryPolicy.fromSettings({ ...Settings.defaults, jitter: "full", max_retries: 3 })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSettings = (
  settings: Pick<Settings.Settings, "base_delay_ms" | "backoff_factor" | "max_delay_ms" | "jitter" | "max_retries">
): RetryPolicy =>
  backoff({ base: Duration.millis(settings.base_delay_ms), factor: settings.backoff_factor }).pipe(
    capped(Duration.millis(settings.max_delay_ms)),
    jitter(settings.jitter),
    capped(Duration.millis(settings.max_delay_ms)),
    upTo(settings.max_retries),
    whileRetryable,
    honorRetryAfter
  )

/**
 * A policy being stepped through one call's errors: given the Clock time (in
 * milliseconds) and the error, the delay before the next retry, or `None`
 * when the policy is done. It keeps the schedule's state between steps, so
 * one stepper serves one call (one model of a fallback chain).
 *
 * @since 0.4.0
 * @category models
 */
export type Stepper<E = never, R = never> = (
  now: number,
  error: ModelError.ModelError
) => Effect.Effect<Option.Option<Duration.Duration>, E, R>

/**
 * Starts stepping a policy: this is how the kernel and the simulator drive
 * one, so that before every sleep they can check the session budget, the
 * wall clock and `max_retry_wait_ms`, and emit the exact delay.
 *
 * @example
 * ```ts
 * import { RetryPolicy, Settings } from "@agent-kernel/kernel"
 * import { ScriptedModel } from "@agent-kernel/kernel/testing"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const next = yield* RetryPolicy.stepper(RetryPolicy.fromSettings({ ...Settings.defaults, jitter: "none" }))
 *   return yield* next(0, ScriptedModel.error("overloaded")) // Option.some(500 millis)
 * })
 * ```
 *
 * @since 0.4.0
 * @category stepping
 */
export const stepper = <Out, E, R>(
  policy: Schedule.Schedule<Out, ModelError.ModelError, E, R>
): Effect.Effect<Stepper<E, R>, never, R> =>
  Effect.map(
    Schedule.toStep(policy),
    (step): Stepper<E, R> =>
      (now, error) =>
        step(now, error).pipe(
          Effect.map(([, delay]) => Option.some(delay)),
          Pull.catchDone(() => Effect.succeedNone)
        )
  )

/**
 * The delays a policy would wait for a sequence of errors arriving at time
 * zero, stopping when the policy is done. Runs no real time; jitter uses the
 * `Random` service in context.
 *
 * @since 0.1.0
 * @category stepping
 */
export const delays = <Out, E, R>(
  policy: Schedule.Schedule<Out, ModelError.ModelError, E, R>,
  errors: Iterable<ModelError.ModelError>
): Effect.Effect<ReadonlyArray<Duration.Duration>, E, R> =>
  Effect.gen(function* () {
    const next = yield* stepper(policy)
    const result: Array<Duration.Duration> = []
    let now = 0
    for (const error of errors) {
      const delay = yield* next(now, error)
      if (Option.isNone(delay)) break
      result.push(delay.value)
      now += Duration.toMillis(delay.value)
    }
    return result
  })
