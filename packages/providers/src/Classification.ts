/**
 * How each provider's failures map to the kernel's error categories: one
 * ordered table per provider, first matching row wins. The same tables are
 * documented in the package README and tested row by row.
 *
 * A row matches on the HTTP status (absent for a mid-stream SSE error), the
 * error `type`, the OpenAI error `code` (and Azure's `innererror.code`), a
 * pattern over the message, and the `x-should-retry` header. Statuses that a
 * row lists must match; criteria a row leaves out match anything.
 *
 * @since 0.1.0
 */
import type { ModelError } from "@agent-kernel/kernel"

/**
 * What is known about one failure, from the status line and the error body.
 *
 * @since 0.1.0
 * @category models
 */
export interface Facts {
  /** The HTTP status; absent for an error event inside a 200 stream. */
  readonly status?: number | undefined
  /** Anthropic `error.type`, OpenAI `error.type`. */
  readonly type?: string | undefined
  /** OpenAI `error.code`. */
  readonly code?: string | undefined
  /** Azure OpenAI `error.innererror.code` (for example `ResponsibleAIPolicyViolation`). */
  readonly innerCode?: string | undefined
  readonly message?: string | undefined
  /** The `x-should-retry` response header, when it says `true` or `false`. */
  readonly shouldRetry?: boolean | undefined
}

/**
 * Which statuses a row accepts.
 *
 * @since 0.1.0
 * @category models
 */
export type StatusMatch = ReadonlyArray<number> | "4xx" | "5xx"

/**
 * One row of a classification table.
 *
 * @since 0.1.0
 * @category models
 */
export interface Rule {
  /** A stable id, used by tests and the README (for example `anthropic.429`). */
  readonly id: string
  readonly status?: StatusMatch | undefined
  readonly type?: ReadonlyArray<string> | undefined
  readonly code?: ReadonlyArray<string> | undefined
  readonly innerCode?: ReadonlyArray<string> | undefined
  readonly message?: RegExp | undefined
  /** Matches only when the server sent `x-should-retry` with this value. */
  readonly shouldRetry?: boolean | undefined
  readonly category: ModelError.Category
  /** Pulls token counts out of a context-length message. */
  readonly tokens?: ((message: string) => TokenCounts) | undefined
  /** Why the row exists, for the README. */
  readonly note: string
}

/**
 * Token counts parsed from a context-length error.
 *
 * @since 0.1.0
 * @category models
 */
export interface TokenCounts {
  readonly promptTokens?: number | undefined
  readonly maxTokens?: number | undefined
}

/**
 * The result of classifying: the category and the row that decided it
 * (`undefined` when no row matched and the fallback `unknown` applied).
 *
 * @since 0.1.0
 * @category models
 */
export interface Classified extends TokenCounts {
  readonly category: ModelError.Category
  readonly rule: Rule | undefined
}

const toNumber = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const n = Number(value.replace(/[,_]/g, ""))
  return Number.isFinite(n) ? n : undefined
}

/**
 * Parses Anthropic's "prompt is too long: N tokens > M maximum".
 *
 * @since 0.1.0
 * @category parsing
 */
export const anthropicTokens = (message: string): TokenCounts => {
  const match = /prompt is too long:\s*([\d,_]+)\s*tokens\s*>\s*([\d,_]+)\s*maximum/i.exec(message)
  return { promptTokens: toNumber(match?.[1]), maxTokens: toNumber(match?.[2]) }
}

/**
 * Parses OpenAI's "maximum context length is M tokens. However, your messages
 * resulted in N tokens" (and the "you requested N tokens" variant).
 *
 * @since 0.1.0
 * @category parsing
 */
export const openAiTokens = (message: string): TokenCounts => {
  const max = /maximum context length is\s*([\d,_]+)/i.exec(message)
  const prompt = /(?:resulted in|requested)\s*([\d,_]+)\s*tokens/i.exec(message)
  return { promptTokens: toNumber(prompt?.[1]), maxTokens: toNumber(max?.[1]) }
}

/**
 * The last row of both tables: a failure no other row made transient, sent
 * with `x-should-retry: true`, is retried, as the official SDKs do. Being
 * last, it can never override a row the spec forbids retrying (auth_error,
 * invalid_request, quota_exceeded), nor a context overflow or a filter.
 */
const shouldRetryRow = (provider: string): Rule => ({
  id: `${provider}.should_retry`,
  shouldRetry: true,
  category: "server_error",
  note: "x-should-retry: true on a failure no other row matched (an odd status, an unknown error type): transient"
})

/**
 * Just above the catch-all `4xx` row: an odd 4xx (418, 423, 425...) that only
 * the catch-all would call `invalid_request` is retried when the server sends
 * `x-should-retry: true`, as the official SDKs do. The rows above it (400,
 * 401, 402, 403, 404, 422, 429...) still win, so the header never makes
 * auth_error, invalid_request or quota_exceeded retryable.
 */
const shouldRetry4xxRow = (provider: string): Rule => ({
  id: `${provider}.4xx.should_retry`,
  status: "4xx",
  shouldRetry: true,
  category: "server_error",
  note: "x-should-retry: true on a 4xx no specific row matched (418, 423, 425...): transient"
})

/**
 * The Anthropic Messages API table.
 *
 * @since 0.1.0
 * @category tables
 */
export const anthropic: ReadonlyArray<Rule> = [
  {
    id: "anthropic.prompt_too_long",
    status: [400],
    message: /prompt is too long/i,
    category: "context_length_exceeded",
    tokens: anthropicTokens,
    note: '400 invalid_request_error "prompt is too long: N tokens > M maximum"; N and M parsed'
  },
  {
    id: "anthropic.413",
    status: [413],
    category: "context_length_exceeded",
    note: "413 request_too_large"
  },
  { id: "anthropic.429", status: [429], category: "rate_limited", note: "429 rate_limit_error" },
  { id: "anthropic.529", status: [529], category: "overloaded", note: "529 overloaded_error" },
  { id: "anthropic.401", status: [401], category: "auth_error", note: "401 authentication_error" },
  { id: "anthropic.403", status: [403], category: "auth_error", note: "403 permission_error" },
  { id: "anthropic.402", status: [402], category: "quota_exceeded", note: "402 billing_error" },
  { id: "anthropic.408", status: [408], category: "timeout", note: "408 request timeout" },
  {
    id: "anthropic.409",
    status: [409],
    category: "server_error",
    note: "409 conflict (a lock or concurrent update on the server side): transient, retried as the official SDKs do"
  },
  {
    id: "anthropic.overloaded_type",
    status: "5xx",
    type: ["overloaded_error"],
    category: "overloaded",
    note: "a 5xx whose body says overloaded_error"
  },
  {
    id: "anthropic.5xx",
    status: "5xx",
    category: "server_error",
    note: "500/502/503/504 (api_error, timeout_error) and any other 5xx"
  },
  {
    id: "anthropic.400_404_422",
    status: [400, 404, 422],
    category: "invalid_request",
    note: "any other 400/404/422 (invalid_request_error, not_found_error)"
  },
  shouldRetry4xxRow("anthropic"),
  { id: "anthropic.4xx", status: "4xx", category: "invalid_request", note: "any other 4xx" },
  // Mid-stream `event: error` after a 200 carries no status: classify by type.
  {
    id: "anthropic.stream.prompt_too_long",
    message: /prompt is too long/i,
    category: "context_length_exceeded",
    tokens: anthropicTokens,
    note: "mid-stream: prompt is too long"
  },
  {
    id: "anthropic.stream.overloaded_error",
    type: ["overloaded_error"],
    category: "overloaded",
    note: "mid-stream overloaded_error"
  },
  {
    id: "anthropic.stream.rate_limit_error",
    type: ["rate_limit_error"],
    category: "rate_limited",
    note: "mid-stream rate_limit_error"
  },
  {
    id: "anthropic.stream.api_error",
    type: ["api_error", "timeout_error", "server_error"],
    category: "server_error",
    note: "mid-stream api_error / timeout_error, or a flat `event: error` of type server_error"
  },
  {
    id: "anthropic.stream.request_too_large",
    type: ["request_too_large"],
    category: "context_length_exceeded",
    note: "mid-stream request_too_large"
  },
  {
    id: "anthropic.stream.auth",
    type: ["authentication_error", "permission_error"],
    category: "auth_error",
    note: "mid-stream authentication_error / permission_error"
  },
  {
    id: "anthropic.stream.billing_error",
    type: ["billing_error"],
    category: "quota_exceeded",
    note: "mid-stream billing_error"
  },
  {
    id: "anthropic.stream.invalid_request",
    type: ["invalid_request_error", "not_found_error"],
    category: "invalid_request",
    note: "mid-stream invalid_request_error / not_found_error"
  },
  shouldRetryRow("anthropic")
]

/**
 * The OpenAI Chat Completions table (also used for OpenAI-compatible servers).
 *
 * @since 0.1.0
 * @category tables
 */
export const openAi: ReadonlyArray<Rule> = [
  {
    id: "openai.content_filter",
    code: ["content_filter"],
    category: "content_filtered",
    note: "Azure and compatible servers: a prompt or answer rejected by the content filter (400 code content_filter)"
  },
  {
    id: "openai.content_filter.innererror",
    innerCode: ["ResponsibleAIPolicyViolation"],
    category: "content_filtered",
    note: "Azure: innererror.code ResponsibleAIPolicyViolation, whatever the outer code"
  },
  {
    id: "openai.429.insufficient_quota",
    status: [429],
    code: ["insufficient_quota"],
    category: "quota_exceeded",
    note: "429 code insufficient_quota: not retried"
  },
  {
    id: "openai.429.insufficient_quota_type",
    status: [429],
    type: ["insufficient_quota"],
    category: "quota_exceeded",
    note: "429 type insufficient_quota (older responses)"
  },
  { id: "openai.429", status: [429], category: "rate_limited", note: "429 code rate_limit_exceeded (or no code)" },
  {
    id: "openai.context_length_exceeded",
    code: ["context_length_exceeded"],
    category: "context_length_exceeded",
    tokens: openAiTokens,
    note: "400 code context_length_exceeded; token counts parsed from the message"
  },
  {
    id: "openai.context_message",
    status: [400, 413],
    message: /maximum context length|context length exceeded|context window/i,
    category: "context_length_exceeded",
    tokens: openAiTokens,
    note: "400/413 whose message names the context length (compatible servers without a code)"
  },
  { id: "openai.401", status: [401], category: "auth_error", note: "401 invalid_api_key" },
  { id: "openai.403", status: [403], category: "auth_error", note: "403 (unsupported region, no model access)" },
  { id: "openai.402", status: [402], category: "quota_exceeded", note: "402 (compatible servers: out of credits)" },
  { id: "openai.408", status: [408], category: "timeout", note: "408 request timeout" },
  {
    id: "openai.409",
    status: [409],
    category: "server_error",
    note: "409 conflict (a lock or concurrent update on the server side): transient, retried as the official SDKs do"
  },
  {
    id: "openai.503.overloaded",
    status: [503, 529],
    message: /overload/i,
    category: "overloaded",
    note: "a 503 (or 529) whose message says overloaded"
  },
  {
    id: "openai.5xx",
    status: "5xx",
    category: "server_error",
    note: "any other 5xx"
  },
  {
    id: "openai.400_404_422",
    status: [400, 404, 422],
    category: "invalid_request",
    note: "any other 400/404/422"
  },
  shouldRetry4xxRow("openai"),
  { id: "openai.4xx", status: "4xx", category: "invalid_request", note: "any other 4xx" },
  // Error chunks inside a 200 stream carry no status: classify by code/type.
  {
    id: "openai.stream.insufficient_quota",
    code: ["insufficient_quota"],
    category: "quota_exceeded",
    note: "mid-stream insufficient_quota"
  },
  {
    id: "openai.stream.rate_limit",
    code: ["rate_limit_exceeded"],
    category: "rate_limited",
    note: "mid-stream rate_limit_exceeded"
  },
  {
    id: "openai.stream.overloaded_error",
    type: ["overloaded_error"],
    category: "overloaded",
    note: "mid-stream error (a flat `event: error` too) of type overloaded_error"
  },
  {
    id: "openai.stream.overloaded",
    message: /overload/i,
    category: "overloaded",
    note: "mid-stream error that says overloaded"
  },
  {
    id: "openai.stream.server_error",
    type: ["server_error", "api_error"],
    category: "server_error",
    note: "mid-stream server_error"
  },
  {
    id: "openai.stream.invalid_request",
    type: ["invalid_request_error"],
    category: "invalid_request",
    note: "mid-stream invalid_request_error"
  },
  shouldRetryRow("openai")
]

const statusMatches = (match: StatusMatch | undefined, status: number | undefined): boolean => {
  if (match === undefined) return true
  if (status === undefined) return false
  if (match === "4xx") return status >= 400 && status < 500
  if (match === "5xx") return status >= 500 && status < 600
  return match.includes(status)
}

const oneOf = (allowed: ReadonlyArray<string> | undefined, value: string | undefined): boolean =>
  allowed === undefined || (value !== undefined && allowed.includes(value))

/**
 * Whether one row matches the facts.
 *
 * @since 0.1.0
 * @category classification
 */
export const matches = (rule: Rule, facts: Facts): boolean =>
  statusMatches(rule.status, facts.status) &&
  oneOf(rule.type, facts.type) &&
  oneOf(rule.code, facts.code) &&
  oneOf(rule.innerCode, facts.innerCode) &&
  (rule.shouldRetry === undefined || rule.shouldRetry === facts.shouldRetry) &&
  (rule.message === undefined || (facts.message !== undefined && rule.message.test(facts.message)))

/**
 * Classifies a failure with a table: the first matching row wins, and
 * `unknown` when none matches.
 *
 * @example
 * ```ts
 * import { Classification } from "@agent-kernel/providers"
 *
 * Classification.classify(Classification.anthropic, { status: 529, type: "overloaded_error" }).category
 * // "overloaded"
 * ```
 *
 * @since 0.1.0
 * @category classification
 */
export const classify = (table: ReadonlyArray<Rule>, facts: Facts): Classified => {
  for (const rule of table) {
    if (matches(rule, facts)) {
      const tokens = rule.tokens !== undefined && facts.message !== undefined ? rule.tokens(facts.message) : {}
      return { category: rule.category, rule, ...tokens }
    }
  }
  return { category: "unknown", rule: undefined }
}

/**
 * A failure as the tables read it: the status (absent for an error event
 * inside a 200 stream), the response headers, and the facts of the error
 * body.
 *
 * @since 0.2.0
 * @category models
 */
export interface Failure {
  readonly status?: number | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly facts: Omit<Facts, "status" | "shouldRetry">
}

/**
 * The `x-should-retry` header as a boolean, when it says `true` or `false`.
 *
 * @since 0.2.0
 * @category classification
 */
export const shouldRetryOf = (headers: Readonly<Record<string, string>> | undefined): boolean | undefined => {
  const value = headers?.["x-should-retry"]?.trim().toLowerCase()
  return value === "true" ? true : value === "false" ? false : undefined
}

/**
 * Classifies a failure from everything the response said: status, the
 * `x-should-retry` header and the body's facts. `retryable` is `false` when
 * the server sent `x-should-retry: false` (a transient error is then final
 * for this call). This is the one classification both the kernel providers
 * and the effect/ai adapter (`@agent-kernel/ai`) use.
 *
 * @since 0.2.0
 * @category classification
 */
export const classifyFailure = (
  table: ReadonlyArray<Rule>,
  failure: Failure
): Classified & { readonly facts: Facts; readonly retryable: false | undefined } => {
  const shouldRetry = shouldRetryOf(failure.headers)
  const facts: Facts = { ...failure.facts, status: failure.status, shouldRetry }
  return { ...classify(table, facts), facts, retryable: shouldRetry === false ? false : undefined }
}
