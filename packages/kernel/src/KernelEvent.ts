/**
 * Kernel events: every decision the loop takes, as plain Schema-encodable data
 * with a `type`. The CLI prints them as JSON Lines; observers and the event
 * `Stream` receive the same values.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"
import * as ModelError from "./ModelError.js"
import * as ModelProvider from "./ModelProvider.js"
import * as Usage from "./Usage.js"

const event = <Type extends string, Fields extends Schema.Struct.Fields>(type: Type, fields: Fields) =>
  Schema.Struct({ type: Schema.Literal(type), at: Schema.Number, ...fields })

/**
 * Every status a run can end with.
 *
 * - `completed`: the model ended its turn with no tool calls left.
 * - `content_filtered`: the provider's filter stopped the response.
 * - `context_exhausted`: the context overflowed and could not shrink further.
 * - `auth_error`, `invalid_request`, `quota_exceeded`: fatal provider errors.
 * - `retries_exhausted`: a call used its retries, was told to wait longer
 *   than `max_retry_wait_ms`, or met a transient error its server marked not
 *   retryable (`x-should-retry: false`), and no fallback model was left.
 * - `retry_budget_exhausted`: the session-wide retry budget ran out, or the
 *   provider-wide retry quota (`RetryQuota`) refused a retry.
 * - `max_turns`, `wall_clock_exceeded`, `cost_exceeded`: a bound tripped.
 * - `failed`: an error that is never retried (`unknown`, `process_crashed`).
 * - `interrupted`: the run was interrupted.
 * - `paused`: a durable run stopped where it would have ended with a status
 *   of `pause_on` (`on_exhausted: pause`): unfinished, its journal kept, to
 *   be resumed. A session that is not durable never pauses.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RunStatus = Schema.Literals([
  "completed",
  "content_filtered",
  "context_exhausted",
  "auth_error",
  "invalid_request",
  "quota_exceeded",
  "retries_exhausted",
  "retry_budget_exhausted",
  "max_turns",
  "wall_clock_exceeded",
  "cost_exceeded",
  "failed",
  "interrupted",
  "paused"
])

/**
 * @since 0.1.0
 * @category models
 */
export type RunStatus = typeof RunStatus.Type

/**
 * Retry figures: the most retries any single call used, and the session total.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RetryCounts = Schema.Struct({
  max_per_call: Schema.Number,
  session_total: Schema.Number
})

/**
 * A short, encodable summary of an error for events.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorSummary = Schema.Struct({
  category: ModelError.Category,
  message: Schema.String,
  status: Schema.optional(Schema.Number),
  retry_after_ms: Schema.optional(Schema.Number)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface ErrorSummary extends Schema.Schema.Type<typeof ErrorSummary> {}

/** @since 0.1.0 @category schemas */
export const RunStarted = event("run_started", { run_id: Schema.String, model: Schema.String, input: Schema.String })
/** @since 0.1.0 @category schemas */
export const TurnStarted = event("turn_started", { turn: Schema.Number })
/** @since 0.1.0 @category schemas */
export const ModelRequested = event("model_request", {
  turn: Schema.Number,
  model: Schema.String,
  attempt: Schema.Number,
  messages: Schema.Number,
  estimated_tokens: Schema.Number,
  tools: Schema.Number
})
/** @since 0.1.0 @category schemas */
export const ModelResponded = event("model_response", {
  turn: Schema.Number,
  model: Schema.String,
  stop_reason: ModelProvider.StopReason,
  usage: Usage.Usage,
  duration_ms: Schema.Number
})
/** @since 0.1.0 @category schemas */
export const RetryScheduled = event("retry_scheduled", {
  turn: Schema.Number,
  model: Schema.String,
  category: ModelError.Category,
  message: Schema.String,
  attempt: Schema.Number,
  session_retries_used: Schema.Number,
  session_retries_left: Schema.Number,
  delay_ms: Schema.Number,
  retry_after_ms: Schema.NullOr(Schema.Number),
  source: Schema.Literals(["backoff", "retry_after"])
})
/**
 * The provider-wide retry quota (`RetryQuota`) refused a retry the session's
 * own budget allowed; the run ends `retry_budget_exhausted`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const RetryQuotaExhausted = event("retry_quota_exhausted", {
  turn: Schema.Number,
  model: Schema.String,
  category: ModelError.Category,
  message: Schema.String
})
/** @since 0.1.0 @category schemas */
export const StreamRestarted = event("stream_restarted", {
  turn: Schema.Number,
  model: Schema.String,
  /** The attempt that failed; the next attempt's deltas replace its text. */
  attempt: Schema.Number,
  category: ModelError.Category,
  /** How many characters of text the failed attempt's deltas showed: a frontend drops them. */
  discarded_text_chars: Schema.Number
})
/**
 * A fragment of the model's answer, published as it arrives. The deltas of
 * a turn's final attempt, joined, are the text the turn appends to history.
 *
 * @since 0.3.0
 * @category schemas
 */
export const TextDelta = event("text_delta", {
  turn: Schema.Number,
  model: Schema.String,
  attempt: Schema.Number,
  text: Schema.String
})
/**
 * A fragment of the model's reasoning, published as it arrives.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ThinkingDelta = event("thinking_delta", {
  turn: Schema.Number,
  model: Schema.String,
  attempt: Schema.Number,
  text: Schema.String
})
/**
 * The model began a tool call (its input still streaming). `id` is the id the
 * kernel uses for the call, after making ids unique.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ToolUseStarted = event("tool_use_started", {
  turn: Schema.Number,
  id: Schema.String,
  name: Schema.String
})
/** @since 0.1.0 @category schemas */
export const Fallback = event("fallback", {
  turn: Schema.Number,
  from: Schema.String,
  to: Schema.String,
  category: ModelError.Category,
  session_retries_used: Schema.Number,
  session_retries_left: Schema.Number
})
/** @since 0.1.0 @category schemas */
export const ContextReduced = event("context_reduced", {
  turn: Schema.Number,
  before: Schema.Number,
  after: Schema.Number,
  target: Schema.NullOr(Schema.Number),
  reductions: Schema.Number
})
/** @since 0.1.0 @category schemas */
export const ContentFilteredEvent = event("content_filtered", {
  turn: Schema.Number,
  model: Schema.String,
  message: Schema.String,
  partial_text: Schema.String
})
/** @since 0.1.0 @category schemas */
export const ToolCallStarted = event("tool_call_started", {
  turn: Schema.Number,
  id: Schema.String,
  name: Schema.String
})
/** @since 0.1.0 @category schemas */
export const ToolResulted = event("tool_result", {
  turn: Schema.Number,
  id: Schema.String,
  name: Schema.String,
  is_error: Schema.Boolean,
  duration_ms: Schema.Number,
  /** The first 2,000 characters of the result. */
  preview: Schema.String
})
/**
 * A circuit breaker changed state. `subject` names what it guards (a tool provider).
 *
 * @since 0.1.0
 * @category schemas
 */
export const BreakerChanged = event("breaker_changed", {
  subject: Schema.String,
  from: Schema.Literals(["closed", "open", "half_open"]),
  to: Schema.Literals(["closed", "open", "half_open"]),
  reason: Schema.String
})
/** @since 0.1.0 @category schemas */
export const Warning = event("warning", { message: Schema.String })
/** @since 0.1.0 @category schemas */
export const TurnEnded = event("turn_ended", {
  turn: Schema.Number,
  stop_reason: ModelProvider.StopReason,
  tool_calls: Schema.Number
})
/** @since 0.1.0 @category schemas */
export const RunEnded = event("run_ended", {
  run_id: Schema.String,
  status: RunStatus,
  turns: Schema.Number,
  retries: RetryCounts,
  usage: Usage.Usage,
  cost_usd: Schema.NullOr(Schema.Number),
  wall_ms: Schema.Number,
  error: Schema.NullOr(ErrorSummary),
  /** The text of the run's last answer, as `RunOutcome.final_text`. */
  final_text: Schema.String
})

/**
 * A durable run paused instead of ending with `reason` (`on_exhausted:
 * pause`): `at` is when it paused, `error` what would have ended it,
 * `resume_at` when a runner resumes it (`pause_resume_after_ms`, never sooner
 * than the error's retry-after), `null` when only a caller does.
 *
 * @since 0.6.0
 * @category schemas
 */
export const RunPaused = event("run_paused", {
  run_id: Schema.String,
  turn: Schema.Number,
  /** The attempt whose failure paused the run. */
  attempt: Schema.Number,
  reason: RunStatus,
  error: ErrorSummary,
  retries: RetryCounts,
  resume_at: Schema.NullOr(Schema.Number)
})
/**
 * A paused run goes on: its next attempt follows. `reset_budget` says
 * whether its caller asked for the retry budget and the call's retries to
 * start again; `paused_ms` is how long it was paused (wall-clock time,
 * which `max_wall_clock_ms` counts).
 *
 * @since 0.6.0
 * @category schemas
 */
export const RunResumed = event("run_resumed", {
  run_id: Schema.String,
  turn: Schema.Number,
  /** The attempt whose failure paused the run. */
  attempt: Schema.Number,
  reset_budget: Schema.Boolean,
  paused_ms: Schema.Number
})

/**
 * Every kernel event.
 *
 * @since 0.1.0
 * @category schemas
 */
export const KernelEvent = Schema.Union([
  RunStarted,
  TurnStarted,
  ModelRequested,
  ModelResponded,
  RetryScheduled,
  RetryQuotaExhausted,
  StreamRestarted,
  TextDelta,
  ThinkingDelta,
  ToolUseStarted,
  Fallback,
  ContextReduced,
  ContentFilteredEvent,
  ToolCallStarted,
  ToolResulted,
  BreakerChanged,
  Warning,
  TurnEnded,
  RunPaused,
  RunResumed,
  RunEnded
])

/**
 * @since 0.1.0
 * @category models
 */
export type KernelEvent = typeof KernelEvent.Type

/**
 * The event types, as strings.
 *
 * @since 0.1.0
 * @category models
 */
export type EventType = KernelEvent["type"]

/**
 * The event of a given type.
 *
 * @since 0.1.0
 * @category models
 */
export type EventOf<T extends EventType> = Extract<KernelEvent, { readonly type: T }>

/**
 * A distributive omit of `at`, for building events before they are stamped.
 *
 * @since 0.1.0
 * @category models
 */
export type Unstamped = KernelEvent extends infer E ? (E extends KernelEvent ? Omit<E, "at"> : never) : never

/**
 * An event stamped with its Clock time: the one place an `Unstamped` event
 * becomes a `KernelEvent`. Its keys read `type, at, ...`, as those of every
 * event do (`JSON.stringify` writes them in that order).
 *
 * @since 0.2.0
 * @category constructors
 */
export const stamp = (event: Unstamped, at: number): KernelEvent => Object.assign({ type: event.type, at }, event)

/**
 * Summarises a model error for an event.
 *
 * @since 0.1.0
 * @category constructors
 */
export const summarize = (error: ModelError.ModelError): ErrorSummary => ({
  category: error.category,
  message: error.message,
  ...(error.status !== undefined ? { status: error.status } : {}),
  ...(error.retryAfter !== undefined ? { retry_after_ms: Math.round(Duration.toMillis(error.retryAfter)) } : {})
})
