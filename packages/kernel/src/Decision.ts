/**
 * The decision core of the turn loop: what the kernel does about each model
 * error and each bound, as pure functions of plain values.
 *
 * Every reaction of the spec lives here: retry (after how long, and why),
 * fall back (to which model), reduce the context, or end the run (with which
 * status). The loop (`Session`) is an interpreter that performs what these
 * functions return and nothing else, the way `CircuitBreaker` is a thin
 * shell over its pure state machine. Because they are pure, they are
 * property-tested alone, and a simulation, a replay or a durable runtime
 * reaches the same decisions as a live run.
 *
 * The functions take what the decision depends on and nothing more: the
 * error, the retry policy's step for it (stepping a schedule may draw
 * jitter, so the interpreter does it, and only when `stepsPolicy` says so),
 * and a `Context` of the run's figures, bounds and budget. What only an
 * effect can learn is learned by the interpreter and handed in: the
 * provider-wide quota's answer (`afterQuota`, asked when `spendsRetry`
 * says so) and the size of a reduced context (`afterReduction`).
 *
 * `plan` turns a decision into everything the loop does about it: the
 * session budget's charge (and what an interrupted retry gives back), the
 * call's counters (a fallback starts the next model's retries from zero),
 * the text a content filter's failure keeps, and the events that go with it
 * (`retry_scheduled`, `stream_restarted`, `fallback`,
 * `retry_quota_exhausted`, `content_filtered`).
 *
 * @since 0.2.0
 */
import type * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import type * as Option from "effect/Option"
import * as internal from "./internal/decision.js"
import type * as KernelEvent from "./KernelEvent.js"
import type * as ModelError from "./ModelError.js"
import type * as ModelProvider from "./ModelProvider.js"
import type * as RetryBudget from "./RetryBudget.js"
import type * as RunOutcome from "./RunOutcome.js"
import type * as Settings from "./Settings.js"

/**
 * What the kernel does next.
 *
 * - `Retry`: sleep `delay`, then send the same request to the same model.
 *   `source` says whose delay it is (the policy's backoff, or the server's
 *   retry-after); `budget` is the session budget after this retry's charge.
 * - `Fallback`: send the request to the next model of the chain, `to`, with
 *   a per-call retry count of its own; `budget` is the session budget after
 *   the step's charge (a step after an error the server said not to retry is
 *   not charged).
 * - `Reduce`: shrink the working context, aiming at the provider's counts
 *   when the error carries them, then send a smaller request. `reductions`
 *   counts context overflows in the run, this one included.
 * - `End`: end the run with `status`; `error` is what ended it, if an error did.
 *
 * @since 0.2.0
 * @category models
 */
export type Decision = Data.TaggedEnum<{
  Retry: {
    readonly delay: Duration.Duration
    readonly source: "backoff" | "retry_after"
    readonly budget: RetryBudget.State
  }
  Fallback: { readonly to: string; readonly budget: RetryBudget.State }
  Reduce: { readonly error: ModelError.ModelError; readonly reductions: number }
  End: {
    readonly status: RunOutcome.RunStatus
    readonly error?: ModelError.ModelError | undefined
    /** Set when a context overflow ended the run: overflows met in the run, this one included. */
    readonly reductions?: number | undefined
  }
}>

/**
 * @since 0.2.0
 * @category models
 */
export type Retry = Data.TaggedEnum.Value<Decision, "Retry">

/**
 * @since 0.2.0
 * @category models
 */
export type Fallback = Data.TaggedEnum.Value<Decision, "Fallback">

/**
 * @since 0.2.0
 * @category models
 */
export type Reduce = Data.TaggedEnum.Value<Decision, "Reduce">

/**
 * @since 0.2.0
 * @category models
 */
export type End = Data.TaggedEnum.Value<Decision, "End">

/**
 * Constructors and matchers of `Decision`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const { $is, $match, End, Fallback, Reduce, Retry } = internal.constructors

/**
 * The settings a decision reads.
 *
 * @since 0.2.0
 * @category models
 */
export type Bounds = Pick<
  Settings.Settings,
  "max_turns" | "max_retry_wait_ms" | "max_wall_clock_ms" | "max_cost_usd" | "max_context_reductions"
>

/**
 * What a decision depends on besides the error: the run's figures, its
 * bounds and the session budget.
 *
 * @since 0.2.0
 * @category models
 */
export interface Context {
  /** Clock time of the decision, in milliseconds. */
  readonly now: number
  /** When the run started, in Clock milliseconds. */
  readonly startedAt: number
  readonly bounds: Bounds
  /** The run's cost so far; `null` while no call of the run had a price. */
  readonly cost: number | null
  /** Context overflows met in this run so far. */
  readonly reductions: number
  /** The next model of the routing chain, if one is left. */
  readonly fallback: string | undefined
  readonly budget: RetryBudget.Budget
  readonly budgetState: RetryBudget.State
}

/**
 * Whether the retry policy is stepped for this error: only for an error the
 * kernel may retry (a transient category the server did not mark
 * `retryable: false`). Other errors never reach the policy, so they never
 * draw its jitter.
 *
 * @since 0.2.0
 * @category decisions
 */
export const stepsPolicy: (error: ModelError.ModelError) => boolean = internal.stepsPolicy

/**
 * The reaction to a failed model call.
 *
 * - auth_error, invalid_request, quota_exceeded: end with the category; no
 *   retry, no fallback.
 * - content_filtered: end `content_filtered`.
 * - unknown, process_crashed: end `failed`.
 * - context_length_exceeded: reduce, until `max_context_reductions`
 *   overflows have been met; then end `context_exhausted`.
 * - a transient error: the policy's delay, floored at the error's
 *   retry-after. When the policy is done, the error is not retryable, or the
 *   delay is longer than `max_retry_wait_ms`, the call is over on this model:
 *   fall back to the next one (charged to the budget unless the error was not
 *   retryable), or end `retries_exhausted` when none is left. Otherwise end
 *   `wall_clock_exceeded` or `cost_exceeded` if the wait would break a bound,
 *   `retry_budget_exhausted` if the budget cannot pay, or retry.
 *
 * Bounds come before the budget. A retry whose wait would break a bound ends
 * the run with the bound's status (`wall_clock_exceeded`, then
 * `cost_exceeded`) even when the budget is empty too, and is not charged; a
 * fallback is checked against the bounds as they stand (no wait) before it
 * is charged, so a run its cost already ended never spends a token on a
 * model it will not call. For example, with `max_cost_usd: 1`, a cost of 2
 * and an empty budget, a 529 ends `cost_exceeded`, not
 * `retry_budget_exhausted`.
 *
 * `step` is the policy's delay for this error (`None` when the policy is
 * done, or when `stepsPolicy` is false and it was not stepped).
 *
 * @since 0.2.0
 * @category decisions
 */
export const decide: (
  error: ModelError.ModelError,
  step: Option.Option<Duration.Duration>,
  context: Context
) => Decision = internal.decide

/**
 * The bounds checked before every model call, and before a retry's sleep
 * (with the sleep's length as `extraMillis`): the wall clock, then the cost.
 *
 * @since 0.2.0
 * @category decisions
 */
export const beforeCall: (
  context: Pick<Context, "now" | "startedAt" | "bounds" | "cost">,
  extraMillis?: number
) => Option.Option<End> = internal.beforeCall

/**
 * The time the run has left under `max_wall_clock_ms` at Clock time `now`, in
 * milliseconds (zero or less once the bound is reached); `undefined` when no
 * wall-clock bound is set. `beforeCall` ends the run when it is used up; the
 * interpreter runs a model call or a turn's tool calls for at most this long.
 *
 * @since 0.2.0
 * @category decisions
 */
export const timeLeft: (bounds: Bounds, startedAt: number, now: number) => number | undefined = internal.timeLeft

/**
 * The end of a run whose work (a model call, or a turn's tool calls) the
 * wall-clock bound cut short: `wall_clock_exceeded`. Cutting the work at
 * `timeLeft` is the bound itself, not a choice; this is its ending, the same
 * value every time.
 *
 * @since 0.2.0
 * @category decisions
 */
export const pastDeadline: End = internal.pastDeadline

/**
 * The reaction to a context reduction, given the kernel's token estimate of
 * the context before it and of what the context provider returned (`after`,
 * `undefined` when the provider could not reduce): the run ends
 * `context_exhausted` unless the context is strictly smaller, since the same
 * request again would overflow again (the spec's "no context provider can
 * shrink further"). `None`: send the smaller context.
 *
 * @since 0.2.0
 * @category decisions
 */
export const afterReduction: (
  error: ModelError.ModelError,
  before: number,
  after: number | undefined
) => Option.Option<End> = internal.afterReduction

/**
 * Whether a decision spends a retry: a `Retry`, or a `Fallback` the session
 * budget was charged for (`before` is the budget's state before the
 * decision). The provider-wide `RetryQuota` is asked for exactly these; a
 * free fallback, a reduction or an end never asks it.
 *
 * @since 0.2.0
 * @category decisions
 */
export const spendsRetry: (decision: Decision, before: RetryBudget.State) => boolean = internal.spendsRetry

/**
 * The reaction to the provider-wide `RetryQuota`'s answer for a decision that
 * spends a retry: a refusal ends the run `retry_budget_exhausted`, as an
 * empty session budget does; a grant (`None`) lets the decision stand.
 *
 * @since 0.2.0
 * @category decisions
 */
export const afterQuota: (granted: boolean, error: ModelError.ModelError) => Option.Option<End> = internal.afterQuota

/**
 * The bound checked before every turn: `max_turns`.
 *
 * @since 0.2.0
 * @category decisions
 */
export const beforeTurn: (turns: number, bounds: Bounds) => Option.Option<End> = internal.beforeTurn

/**
 * The reaction to a successful model response: a content filter's stop ends
 * the run `content_filtered` (any tool_use it holds is answered, never run);
 * a response with no tool calls ends it `completed`; otherwise the tools run
 * (`None`).
 *
 * @since 0.2.0
 * @category decisions
 */
export const afterResponse: (stopReason: ModelProvider.StopReason, toolCalls: number) => Option.Option<End> =
  internal.afterResponse

/**
 * The counters of a model call that a failed attempt's decision moves.
 *
 * @since 0.4.0
 * @category models
 */
export interface Counters {
  /** Retries of the call on its current model: what `max_retries` caps. */
  readonly retries: number
  /** The most retries any one model of any call of the run used. */
  readonly maxPerCall: number
  /** Which model of the routing chain the call is on (0: the session's model). */
  readonly modelIndex: number
  /** Context overflows met in the run. */
  readonly reductions: number
}

/**
 * The failed attempt a decision is about, as the loop knows it.
 *
 * @since 0.4.0
 * @category models
 */
export interface Attempt extends Counters {
  readonly turn: number
  /** The model the attempt was sent to. */
  readonly model: string
  /** The attempt in the turn, from 1 (it carries on across a fallback). */
  readonly attempt: number
  /** How many characters of text the attempt showed observers before it failed. */
  readonly shownTextChars: number
}

/**
 * What `plan` needs besides the decision: the error, the attempt, the
 * session budget and its state before the decision, and the provider-wide
 * quota's answer (`true` when the decision spends no retry, see
 * `spendsRetry`).
 *
 * @since 0.4.0
 * @category models
 */
export interface Failure {
  readonly error: ModelError.ModelError
  readonly attempt: Attempt
  readonly budget: RetryBudget.Budget
  readonly budgetState: RetryBudget.State
  readonly granted: boolean
}

/**
 * Everything the loop does about a failed attempt.
 *
 * - `decision`: what happens next (an `End` when the quota refused a retry).
 * - `budget`: the session budget's state once the decision is charged.
 * - `counters`: the call's counters after it (a retry counts one; a fallback
 *   moves to the next model with no retries; an overflow counts one).
 * - `events`: the events that go with it, in order, without their time.
 * - `kept`: text the failed attempt keeps as the model's answer (what a
 *   content filter let through before it stopped the stream).
 * - `refund`: for a retry, the budget and counters as they were before its
 *   charge: a retry interrupted before it runs gives its charge back.
 *
 * @since 0.4.0
 * @category models
 */
export interface Plan {
  readonly decision: Decision
  readonly budget: RetryBudget.State
  readonly counters: Counters
  readonly events: ReadonlyArray<KernelEvent.Unstamped>
  readonly kept: string | undefined
  readonly refund: { readonly budget: RetryBudget.State; readonly counters: Counters } | undefined
}

/**
 * What the loop does about a failed attempt, given `decide`'s decision for
 * it: a refusal by the quota (`failure.granted` false) ends the run as
 * `afterQuota` says, with a `retry_quota_exhausted` event, the budget
 * unspent; a retry or a fallback after an attempt that showed text, and a
 * retry after a failure mid-stream, are announced by `stream_restarted`
 * first; a content filter's error keeps its partial text.
 *
 * @example
 * ```ts
 * import { Decision, ModelError, RetryBudget, Settings } from "@agent-kernel/kernel"
 * import { Duration, Option } from "effect"
 *
 * const budget = RetryBudget.fixed(3)
 * const error = ModelError.make("overloaded", { provider: "p", model: "m", message: "busy" })
 * const context: Decision.Context = {
 *   now: 0, startedAt: 0, bounds: Settings.defaults, cost: null, reductions: 0,
 *   fallback: undefined, budget, budgetState: budget.initial
 * }
 * const decision = Decision.decide(error, Option.some(Duration.millis(500)), context)
 * const attempt = { turn: 1, model: "m", attempt: 1, retries: 0, maxPerCall: 0, modelIndex: 0, reductions: 0, shownTextChars: 0 }
 * const plan = Decision.plan(decision, { error, attempt, budget, budgetState: budget.initial, granted: true })
 * plan.events.map((event) => event.type) // ["retry_scheduled"]
 * plan.counters.retries // 1
 * ```
 *
 * @since 0.4.0
 * @category decisions
 */
export const plan: (decision: Decision, failure: Failure) => Plan = internal.plan

/**
 * The settings that say whether a run pauses where it would end.
 *
 * @since 0.6.0
 * @category models
 */
export type PauseSettings = Pick<Settings.Settings, "on_exhausted" | "pause_on" | "pause_resume_after_ms">

/**
 * Whether the end `end` pauses the run instead (where the runtime can keep
 * it, see `Session.Effects.pause`): `on_exhausted` is `pause` and the end's
 * status is one of `pause_on`.
 *
 * @example
 * ```ts
 * import { Decision, Settings } from "@agent-kernel/kernel"
 *
 * const settings = { ...Settings.defaults, on_exhausted: "pause" as const }
 * Decision.pauses(Decision.End({ status: "retries_exhausted" }), settings) // true
 * Decision.pauses(Decision.End({ status: "auth_error" }), settings) // false
 * ```
 *
 * @since 0.6.0
 * @category decisions
 */
export const pauses: (end: End, settings: PauseSettings) => boolean = internal.pauses

/**
 * When a runner resumes a run paused at `pausedAt` by `error`: `None` unless
 * `pause_resume_after_ms` is set; then that long after the pause, never
 * sooner than the error's retry-after (a quota's reset time).
 *
 * @example
 * ```ts
 * import { Decision, ModelError, Settings } from "@agent-kernel/kernel"
 * import { Duration } from "effect"
 *
 * const quota = ModelError.make("quota_exceeded", {
 *   provider: "p",
 *   model: "m",
 *   message: "out of credits",
 *   retryAfter: Duration.minutes(10)
 * })
 * const settings = { ...Settings.defaults, on_exhausted: "pause" as const, pause_resume_after_ms: 60_000 }
 * Decision.resumeAt(quota, 0, settings) // Option.some(600_000): the quota's reset, later than a minute
 * Decision.resumeAt(quota, 0, Settings.defaults) // Option.none(): only a caller resumes it
 * ```
 *
 * @since 0.6.0
 * @category decisions
 */
export const resumeAt: (
  error: ModelError.ModelError | undefined,
  pausedAt: number,
  settings: PauseSettings
) => Option.Option<number> = internal.resumeAt
