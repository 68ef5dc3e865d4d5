/**
 * The model-provider error taxonomy: one `Schema.TaggedError` per category,
 * and the one pure function that decides the kernel's reaction to each.
 *
 * Modelled close to the reasons of `effect/ai`'s `AiError` (each error says
 * `isRetryable`, and carries the server's `retryAfter`), plus the categories
 * the kernel needs that it lacks (overloaded, context length, content
 * filter, process crash).
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"
import * as Usage from "./Usage.js"

/**
 * The snake_case category of every model error.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Category = Schema.Literals([
  "rate_limited",
  "overloaded",
  "server_error",
  "timeout",
  "connection_error",
  "context_length_exceeded",
  "auth_error",
  "invalid_request",
  "quota_exceeded",
  "content_filtered",
  "process_crashed",
  "unknown"
])

/**
 * @since 0.1.0
 * @category models
 */
export type Category = typeof Category.Type

/**
 * What the kernel does about an error:
 * - `retry`: transient; back off and send the same request again.
 * - `reduce_context`: never re-send; shrink the context and send a smaller request.
 * - `fatal`: a configuration or programming error; no retry and no fallback.
 * - `surface`: publish its own event and end the run with that status.
 * - `fail`: not retried; the run ends `failed`.
 *
 * @since 0.1.0
 * @category models
 */
export type Reaction = "retry" | "reduce_context" | "fatal" | "surface" | "fail"

/**
 * The kernel's reaction to each category. Pure and total, so policies and
 * property tests can rely on it.
 *
 * @since 0.1.0
 * @category reactions
 */
export const reactionOf = (category: Category): Reaction => {
  switch (category) {
    case "rate_limited":
    case "overloaded":
    case "server_error":
    case "timeout":
    case "connection_error":
      return "retry"
    case "context_length_exceeded":
      return "reduce_context"
    case "auth_error":
    case "invalid_request":
    case "quota_exceeded":
      return "fatal"
    case "content_filtered":
      return "surface"
    case "process_crashed":
    case "unknown":
      return "fail"
  }
}

/**
 * Fields every model error carries.
 *
 * - `retryAfter`: the server's hint; encoded as milliseconds.
 * - `retryable`: `false` when the server said not to retry (`x-should-retry: false`),
 *   which makes an otherwise transient error final for that call.
 * - `midStream`: the failure arrived inside a stream, after a 200 status.
 * - `details`: the raw error body and headers, with secrets redacted.
 * - `usage`: tokens the provider reported before the failure (a stream that
 *   failed mid-way); the kernel counts them, so cost bounds see every attempt.
 */
const commonFields = {
  provider: Schema.String,
  model: Schema.String,
  message: Schema.String,
  status: Schema.optional(Schema.Number),
  retryAfter: Schema.optional(Schema.DurationFromMillis),
  retryable: Schema.optional(Schema.Boolean),
  midStream: Schema.optional(Schema.Boolean),
  details: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  usage: Schema.optional(Usage.Usage)
}

/**
 * 429 rate limit. Transient.
 *
 * @since 0.1.0
 * @category errors
 */
export class RateLimited extends Schema.TaggedError<RateLimited>("@agent-kernel/RateLimited")(
  "RateLimited",
  commonFields
) {
  /** @since 0.1.0 */
  get category(): "rate_limited" {
    return "rate_limited"
  }
  /**
   * Whether the kernel may retry this error, as `isRetryable(error)` says
   * (the name `effect/ai`'s errors give it).
   *
   * @since 0.4.0
   */
  get isRetryable(): boolean {
    return isRetryable(this)
  }
}

/**
 * The provider is overloaded (Anthropic 529, a 503 that says so). Transient.
 *
 * @since 0.1.0
 * @category errors
 */
export class Overloaded extends Schema.TaggedError<Overloaded>("@agent-kernel/Overloaded")("Overloaded", commonFields) {
  /** @since 0.1.0 */
  get category(): "overloaded" {
    return "overloaded"
  }
  /**
   * Whether the kernel may retry this error, as `isRetryable(error)` says
   * (the name `effect/ai`'s errors give it).
   *
   * @since 0.4.0
   */
  get isRetryable(): boolean {
    return isRetryable(this)
  }
}

/**
 * A 5xx from the provider. Transient.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerError extends Schema.TaggedError<ServerError>("@agent-kernel/ServerError")(
  "ServerError",
  commonFields
) {
  /** @since 0.1.0 */
  get category(): "server_error" {
    return "server_error"
  }
  /**
   * Whether the kernel may retry this error, as `isRetryable(error)` says
   * (the name `effect/ai`'s errors give it).
   *
   * @since 0.4.0
   */
  get isRetryable(): boolean {
    return isRetryable(this)
  }
}

/**
 * A connect, first-byte or idle-stream timeout. Transient.
 *
 * @since 0.1.0
 * @category errors
 */
export class Timeout extends Schema.TaggedError<Timeout>("@agent-kernel/Timeout")("Timeout", commonFields) {
  /** @since 0.1.0 */
  get category(): "timeout" {
    return "timeout"
  }
  /**
   * Whether the kernel may retry this error, as `isRetryable(error)` says
   * (the name `effect/ai`'s errors give it).
   *
   * @since 0.4.0
   */
  get isRetryable(): boolean {
    return isRetryable(this)
  }
}

/**
 * Connection refused, reset, or a DNS failure. Transient.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConnectionError extends Schema.TaggedError<ConnectionError>("@agent-kernel/ConnectionError")(
  "ConnectionError",
  commonFields
) {
  /** @since 0.1.0 */
  get category(): "connection_error" {
    return "connection_error"
  }
  /**
   * Whether the kernel may retry this error, as `isRetryable(error)` says
   * (the name `effect/ai`'s errors give it).
   *
   * @since 0.4.0
   */
  get isRetryable(): boolean {
    return isRetryable(this)
  }
}

/**
 * The prompt is larger than the model's window. The kernel reduces context
 * instead of re-sending. Carries the provider's token counts when it gave them.
 *
 * @since 0.1.0
 * @category errors
 */
export class ContextLengthExceeded extends Schema.TaggedError<ContextLengthExceeded>(
  "@agent-kernel/ContextLengthExceeded"
)("ContextLengthExceeded", {
  ...commonFields,
  promptTokens: Schema.optional(Schema.Number),
  maxTokens: Schema.optional(Schema.Number)
}) {
  /** @since 0.1.0 */
  get category(): "context_length_exceeded" {
    return "context_length_exceeded"
  }
  /**
   * Whether the kernel may retry this error, as `isRetryable(error)` says
   * (the name `effect/ai`'s errors give it).
   *
   * @since 0.4.0
   */
  get isRetryable(): boolean {
    return isRetryable(this)
  }
}

/**
 * 401, or 403 permission errors. Fatal: no retry, no fallback.
 *
 * @since 0.1.0
 * @category errors
 */
export class AuthError extends Schema.TaggedError<AuthError>("@agent-kernel/AuthError")("AuthError", commonFields) {
  /** @since 0.1.0 */
  get category(): "auth_error" {
    return "auth_error"
  }
  /**
   * Whether the kernel may retry this error, as `isRetryable(error)` says
   * (the name `effect/ai`'s errors give it).
   *
   * @since 0.4.0
   */
  get isRetryable(): boolean {
    return isRetryable(this)
  }
}

/**
 * The request itself is wrong. Fatal: no retry, no fallback.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>("@agent-kernel/InvalidRequest")(
  "InvalidRequest",
  commonFields
) {
  /** @since 0.1.0 */
  get category(): "invalid_request" {
    return "invalid_request"
  }
  /**
   * Whether the kernel may retry this error, as `isRetryable(error)` says
   * (the name `effect/ai`'s errors give it).
   *
   * @since 0.4.0
   */
  get isRetryable(): boolean {
    return isRetryable(this)
  }
}

/**
 * Out of quota, billing or a spend limit (OpenAI `insufficient_quota`, Anthropic 402).
 * A 429 that retrying cannot fix. Fatal: no retry, no fallback.
 *
 * @since 0.1.0
 * @category errors
 */
export class QuotaExceeded extends Schema.TaggedError<QuotaExceeded>("@agent-kernel/QuotaExceeded")(
  "QuotaExceeded",
  commonFields
) {
  /** @since 0.1.0 */
  get category(): "quota_exceeded" {
    return "quota_exceeded"
  }
  /**
   * Whether the kernel may retry this error, as `isRetryable(error)` says
   * (the name `effect/ai`'s errors give it).
   *
   * @since 0.4.0
   */
  get isRetryable(): boolean {
    return isRetryable(this)
  }
}

/**
 * The provider's content filter stopped the response. Surfaced as its own event.
 *
 * When the filter fails a stream mid-way, `partialText` is the text the
 * model wrote before it: the kernel keeps it (history, `final_text` and the
 * `content_filtered` event), as it keeps a refusal's text at a finish.
 *
 * @since 0.1.0
 * @category errors
 */
export class ContentFiltered extends Schema.TaggedError<ContentFiltered>("@agent-kernel/ContentFiltered")(
  "ContentFiltered",
  { ...commonFields, partialText: Schema.optional(Schema.String) }
) {
  /** @since 0.1.0 */
  get category(): "content_filtered" {
    return "content_filtered"
  }
  /**
   * Whether the kernel may retry this error, as `isRetryable(error)` says
   * (the name `effect/ai`'s errors give it).
   *
   * @since 0.4.0
   */
  get isRetryable(): boolean {
    return isRetryable(this)
  }
}

/**
 * A subprocess-backed component died. Carries its exit code or signal and the
 * tail of its stderr.
 *
 * @since 0.1.0
 * @category errors
 */
export class ProcessCrashed extends Schema.TaggedError<ProcessCrashed>("@agent-kernel/ProcessCrashed")(
  "ProcessCrashed",
  {
    ...commonFields,
    exitCode: Schema.optional(Schema.NullOr(Schema.Number)),
    signal: Schema.optional(Schema.NullOr(Schema.String)),
    stderrTail: Schema.optional(Schema.String)
  }
) {
  /** @since 0.1.0 */
  get category(): "process_crashed" {
    return "process_crashed"
  }
  /**
   * Whether the kernel may retry this error, as `isRetryable(error)` says
   * (the name `effect/ai`'s errors give it).
   *
   * @since 0.4.0
   */
  get isRetryable(): boolean {
    return isRetryable(this)
  }
}

/**
 * Anything that fits no other category. Not retried.
 *
 * @since 0.1.0
 * @category errors
 */
export class Unknown extends Schema.TaggedError<Unknown>("@agent-kernel/Unknown")("Unknown", commonFields) {
  /** @since 0.1.0 */
  get category(): "unknown" {
    return "unknown"
  }
  /**
   * Whether the kernel may retry this error, as `isRetryable(error)` says
   * (the name `effect/ai`'s errors give it).
   *
   * @since 0.4.0
   */
  get isRetryable(): boolean {
    return isRetryable(this)
  }
}

/**
 * The union of every model error, as a Schema (for encoding into events and
 * history exports, and for deriving arbitraries).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelError = Schema.Union([
  RateLimited,
  Overloaded,
  ServerError,
  Timeout,
  ConnectionError,
  ContextLengthExceeded,
  AuthError,
  InvalidRequest,
  QuotaExceeded,
  ContentFiltered,
  ProcessCrashed,
  Unknown
])

/**
 * @since 0.1.0
 * @category models
 */
export type ModelError = typeof ModelError.Type

/**
 * The fields shared by every member, for constructing by category.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelErrorFields {
  readonly provider: string
  readonly model: string
  readonly message: string
  readonly status?: number | undefined
  readonly retryAfter?: Duration.Duration | undefined
  readonly retryable?: boolean | undefined
  readonly midStream?: boolean | undefined
  readonly details?: { readonly [key: string]: unknown } | undefined
  readonly usage?: Usage.Usage | undefined
}

const constructors = {
  rate_limited: RateLimited,
  overloaded: Overloaded,
  server_error: ServerError,
  timeout: Timeout,
  connection_error: ConnectionError,
  context_length_exceeded: ContextLengthExceeded,
  auth_error: AuthError,
  invalid_request: InvalidRequest,
  quota_exceeded: QuotaExceeded,
  content_filtered: ContentFiltered,
  process_crashed: ProcessCrashed,
  unknown: Unknown
} as const

/**
 * Builds the member of the union for a category.
 *
 * @example
 * ```ts
 * import { ModelError } from "@agent-kernel/kernel"
 *
 * const error = ModelError.make("rate_limited", { provider: "anthropic", model: "m", message: "slow down" })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (category: Category, fields: ModelErrorFields): ModelError => {
  const Ctor = constructors[category]
  return new Ctor(stripUndefined(fields))
}

const stripUndefined = <A extends object>(fields: A): A =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as A

/**
 * Whether a value is any model error.
 *
 * @since 0.1.0
 * @category guards
 */
export const isModelError: (u: unknown) => u is ModelError = Schema.is(ModelError)

/**
 * Whether the kernel may retry this error: its category is transient and the
 * server did not forbid it.
 *
 * @since 0.1.0
 * @category reactions
 */
export const isRetryable = (error: ModelError): boolean =>
  reactionOf(error.category) === "retry" && error.retryable !== false
