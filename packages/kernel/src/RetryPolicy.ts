/**
 * Retry policies as values: Effect `Schedule`s over `ModelError` inputs.
 *
 * The kernel never calls `Effect.retry` with a policy. It steps the schedule
 * itself, one error at a time, so that before every sleep it can check the
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
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as Intervals from "effect/ScheduleIntervals"
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
  readonly base: Duration.DurationInput
  readonly factor?: number | undefined
}): Schedule.Schedule<Duration.Duration> => Schedule.exponential(options.base, options.factor ?? 2)

/**
 * Caps each delay of a schedule.
 *
 * @since 0.1.0
 * @category building blocks
 */
export const capped =
  (max: Duration.DurationInput) =>
  <Out, In, R>(self: Schedule.Schedule<Out, In, R>): Schedule.Schedule<Out, In, R> => {
    const cap = Duration.decode(max)
    return Schedule.modifyDelay(self, (_, delay) => Duration.min(delay, cap))
  }

/**
 * Full jitter: each delay becomes U(0, d). Under contention it does the least
 * total work of the common jitter kinds (AWS, "Exponential Backoff and Jitter").
 *
 * @since 0.1.0
 * @category building blocks
 */
export const fullJitter = <Out, In, R>(self: Schedule.Schedule<Out, In, R>): Schedule.Schedule<Out, In, R> =>
  Schedule.jitteredWith(self, { min: 0, max: 1 })

/**
 * Proportional jitter: each delay is multiplied by U(0.8, 1.2) (Effect's `Schedule.jittered`).
 *
 * @since 0.1.0
 * @category building blocks
 */
export const proportionalJitter = <Out, In, R>(self: Schedule.Schedule<Out, In, R>): Schedule.Schedule<Out, In, R> =>
  Schedule.jittered(self)

/**
 * The jitter transformation for a settings `jitter` kind.
 *
 * @since 0.1.0
 * @category building blocks
 */
export const jitter =
  (kind: Settings.JitterKind) =>
  <Out, In, R>(self: Schedule.Schedule<Out, In, R>): Schedule.Schedule<Out, In, R> =>
    kind === "full" ? fullJitter(self) : kind === "proportional" ? proportionalJitter(self) : self

/**
 * At most `retries` retries per call.
 *
 * @since 0.1.0
 * @category building blocks
 */
export const upTo =
  (retries: number) =>
  <Out, In, R>(self: Schedule.Schedule<Out, In, R>): Schedule.Schedule<[Out, number], In, R> =>
    Schedule.intersect(self, Schedule.recurs(retries))

/**
 * Feeds a schedule with model errors and stops on any that is not retryable
 * (a non-transient category, or a server that said `x-should-retry: false`).
 *
 * @since 0.1.0
 * @category building blocks
 */
export const whileRetryable = <Out, R>(
  self: Schedule.Schedule<Out, unknown, R>
): Schedule.Schedule<Out, ModelError.ModelError, R> =>
  Schedule.whileInput<Out, ModelError.ModelError, R>(self, ModelError.isRetryable)

/**
 * Makes every delay at least the error's `retryAfter`. Jitter applied before
 * this step never takes a delay below the server's hint.
 *
 * @since 0.1.0
 * @category building blocks
 */
export const honorRetryAfter = <Out, R>(
  self: Schedule.Schedule<Out, ModelError.ModelError, R>
): Schedule.Schedule<Out, ModelError.ModelError, R> =>
  Schedule.intersect(self, Schedule.identity<ModelError.ModelError>()).pipe(
    Schedule.modifyDelay(([, error], delay) =>
      error.retryAfter === undefined ? delay : Duration.max(delay, error.retryAfter)
    ),
    Schedule.map(([out]) => out)
  )

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
 * One step of a policy: the delay before the next retry, or `None` when the
 * policy is done. The state threads through successive steps of one call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Step<State> {
  readonly delay: Option.Option<Duration.Duration>
  readonly state: State
}

/**
 * Steps a policy once with an error at time `now` (in Clock milliseconds).
 * This is how the kernel and the simulator drive a policy.
 *
 * @since 0.1.0
 * @category stepping
 */
export const step = <Out, R>(
  policy: Schedule.Schedule<Out, ModelError.ModelError, R>,
  now: number,
  error: ModelError.ModelError,
  state: unknown
): Effect.Effect<Step<unknown>, never, R> =>
  Effect.map(policy.step(now, error, state), ([next, , decision]) => ({
    state: next,
    delay: ScheduleDecision.isDone(decision)
      ? Option.none()
      : Option.some(Duration.millis(Math.max(0, Intervals.start(decision.intervals) - now)))
  }))

/**
 * The delays a policy would wait for a sequence of errors arriving at time
 * zero, stopping when the policy is done. Runs no real time; jitter uses the
 * `Random` service in context.
 *
 * @since 0.1.0
 * @category stepping
 */
export const delays = <Out, R>(
  policy: Schedule.Schedule<Out, ModelError.ModelError, R>,
  errors: Iterable<ModelError.ModelError>
): Effect.Effect<ReadonlyArray<Duration.Duration>, never, R> =>
  Effect.gen(function* () {
    const result: Array<Duration.Duration> = []
    let state: unknown = policy.initial
    let now = 0
    for (const error of errors) {
      const next = yield* step(policy, now, error, state)
      if (Option.isNone(next.delay)) break
      result.push(next.delay.value)
      state = next.state
      now += Duration.toMillis(next.delay.value)
    }
    return result
  })
