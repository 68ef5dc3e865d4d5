/**
 * effect/ai's `AiError` and the kernel's `ModelError`, both ways.
 *
 * An `AiError` of effect/ai 4.1 carries a typed `reason`. `toModelError`
 * reads it in this order:
 *
 * 1. A reason this module made (`toAiError`) carries the kernel's error
 *    whole (in `metadata["agent-kernel"]`, or in `cause` for a
 *    `NetworkError`, which has no metadata): that error comes back as it was.
 * 2. A reason that kept the HTTP response (`http.response`), from a client
 *    whose wire dialect is known (`AnthropicClient`, `OpenAiClient`,
 *    `OpenRouterClient`, or the `dialect` option), is classified by the
 *    kernel providers' own tables (`Classification`, `RetryAfter`) on its
 *    status, headers and body: the category, the retry hint,
 *    `x-should-retry` and a context overflow's token counts come out exactly
 *    as the kernel's own Anthropic and OpenAI providers give them.
 * 3. Any other reason is classified by its kind:
 *
 * | AiError reason | ModelError category |
 * |---|---|
 * | `RateLimitError` | `rate_limited` (its `retryAfter`, or the response's retry headers) |
 * | `QuotaExhaustedError` | `quota_exceeded` |
 * | `AuthenticationError` | `auth_error` |
 * | `ContentPolicyError` | `content_filtered` |
 * | `InvalidRequestError` | `context_length_exceeded` when its description says the prompt is over the window (with the counts), else `invalid_request` |
 * | `InternalProviderError` | `server_error` |
 * | `InvalidResponseError` | `server_error` for a 5xx, else `unknown` |
 * | `NetworkError` `TransportError` | `timeout` when its cause timed out, else `connection_error` |
 * | `NetworkError` `EncodeError`, `InvalidUrlError` | `invalid_request` |
 * | `InvalidOutputError`, `StructuredOutputError` | `unknown` |
 * | `UnsupportedSchemaError` | `invalid_request` |
 * | `ToolNotFoundError`, `ToolParameterValidationError`, `InvalidToolResultError`, `ToolResultEncodingError` | `unknown` |
 * | `ToolConfigurationError`, `ToolkitRequiredError`, `InvalidUserInputError` | `invalid_request` |
 * | `UnknownError` | `unknown` |
 *
 * Every mapped error carries `details.rule` (the row that decided),
 * `details.source` (the reason's tag), `details.aiError` (the `AiError`
 * itself, as JSON, so `toAiError` gives it back, less any credential,
 * cookie or `Redacted` response header; left out when JSON cannot hold it)
 * and, where the two sides disagree, `details.note` saying why.
 *
 * `toAiError` goes the other way; see its table.
 *
 * @since 0.1.0
 */
import { ModelError } from "@agent-kernel/kernel"
import { Classification, Redaction, RetryAfter } from "@agent-kernel/providers"
import * as AiError from "effect/ai/AiError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Errors from "./internal/errors.js"

/**
 * The wire dialect whose error bodies and classification table apply.
 *
 * @since 0.1.0
 * @category models
 */
export type Dialect = Errors.Dialect

/**
 * What a mapped error is attributed to.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The provider name errors carry, such as `anthropic`. */
  readonly provider: string
  readonly model: string
  /**
   * Which table classifies a reason that kept its HTTP response. Default: the
   * one of the client that raised the error (`AnthropicClient`,
   * `OpenAiClient`, `OpenRouterClient`); for any other client the reason's
   * own kind decides.
   */
  readonly dialect?: Dialect | undefined
  /** Secrets (API keys) to replace with `<redacted>` wherever a server echoed them into the error. */
  readonly redact?: ReadonlyArray<Redacted.Redacted<string>> | undefined
  /** The failure came inside a stream, after some of the response: the kernel restarts the whole request. */
  readonly midStream?: boolean | undefined
}

/**
 * The failure behind an error, as recorded by the single-request guard.
 *
 * @since 0.1.0
 * @category models
 */
export type Failure =
  | ({ readonly _tag: "Http" } & Errors.HttpFailure)
  | ({ readonly _tag: "Transport" } & Errors.TransportFailure)

/**
 * The key of the reason metadata that carries the kernel's error.
 *
 * @since 0.4.0
 * @category constants
 */
export const metadataKey = "agent-kernel"

/** What an `AiError` reason kept of the HTTP exchange. */
type HttpContext = typeof AiError.HttpContext.Type

// The AiError as JSON; one whose tool result JSON cannot hold is not carried.
const AiErrorJson = Schema.toCodecJson(AiError.AiError)
const encodeAiError = Schema.encodeOption(AiErrorJson)
const decodeAiError = Schema.decodeUnknownOption(AiErrorJson)

interface Source {
  /** The reason's tag, or where the failure was seen. */
  readonly source: string
  readonly module?: string | undefined
  readonly method?: string | undefined
  readonly note?: string | undefined
  /** The `AiError` mapped, as JSON. */
  readonly aiError?: unknown
}

const joinNotes = (...notes: ReadonlyArray<string | undefined>): string | undefined => {
  const present = notes.filter((note): note is string => note !== undefined)
  return present.length === 0 ? undefined : present.join("; ")
}

const sourceDetails = (source: Source): Record<string, unknown> => ({
  source: source.source,
  ...(source.module !== undefined ? { module: source.module, method: source.method } : {}),
  ...(source.aiError !== undefined ? { aiError: source.aiError } : {})
})

interface Fields {
  readonly message: string
  readonly status?: number | undefined
  readonly retryAfter?: Duration.Duration | undefined
  readonly retryable?: boolean | undefined
  readonly details: Record<string, unknown>
  readonly promptTokens?: number | undefined
  readonly maxTokens?: number | undefined
}

const secretsOf = (options: Options): ReadonlyArray<string> => (options.redact ?? []).map(Redacted.value)

const build = (category: ModelError.Category, options: Options, fields: Fields): ModelError.ModelError => {
  const secrets = secretsOf(options)
  const details: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields.details)) {
    if (value !== undefined) details[key] = Redaction.scrubDeep(secrets, value)
  }
  const common: ModelError.ModelErrorFields = {
    provider: options.provider,
    model: options.model,
    message: Redaction.scrub(secrets, fields.message),
    status: fields.status,
    retryAfter: fields.retryAfter,
    retryable: fields.retryable,
    midStream: options.midStream === true ? true : undefined,
    details
  }
  if (category !== "context_length_exceeded") return ModelError.make(category, common)
  return new ModelError.ContextLengthExceeded({
    provider: common.provider,
    model: common.model,
    message: common.message,
    details,
    ...(fields.status !== undefined ? { status: fields.status } : {}),
    ...(fields.retryAfter !== undefined ? { retryAfter: fields.retryAfter } : {}),
    ...(fields.retryable !== undefined ? { retryable: fields.retryable } : {}),
    ...(options.midStream === true ? { midStream: true } : {}),
    ...(fields.promptTokens !== undefined ? { promptTokens: fields.promptTokens } : {}),
    ...(fields.maxTokens !== undefined ? { maxTokens: fields.maxTokens } : {})
  })
}

const classifyHttp = (failure: Errors.HttpFailure, dialect: Dialect, options: Options, source: Source) =>
  Effect.map(RetryAfter.parse(failure.headers), (retryAfter) => {
    const classified = Errors.classifyHttp(dialect, failure)
    const facts = classified.facts
    const label = facts.type ?? facts.code ?? `HTTP ${failure.status}`
    return build(classified.category, options, {
      message: `${label}: ${facts.message ?? "no message"}`,
      status: failure.status,
      retryAfter: Option.getOrUndefined(retryAfter),
      retryable: classified.retryable,
      details: {
        rule: classified.rule?.id ?? "fallback.unknown",
        ...sourceDetails(source),
        dialect,
        headers: failure.headers,
        body: failure.body,
        note: source.note
      },
      promptTokens: classified.promptTokens,
      maxTokens: classified.maxTokens
    })
  })

const fromTransport = (failure: Errors.TransportFailure, options: Options, source: Source): ModelError.ModelError =>
  build(Errors.transportCategory(failure), options, {
    message: `${failure.reason}: ${failure.code ?? failure.description ?? "the request failed before any response"}`,
    details: {
      rule: `effect_ai.network.${failure.reason}`,
      ...sourceDetails(source),
      reason: failure.reason,
      code: failure.code,
      note: source.note
    }
  })

/**
 * Classifies a failure the single-request guard recorded: an HTTP response
 * through the dialect's table (OpenAI's when none is known, and
 * `details.note` says so), a transport failure as the kernel's providers do.
 *
 * @since 0.1.0
 * @category mapping
 */
export const fromFailure = (
  failure: Failure,
  options: Options,
  source: { readonly source: string; readonly note?: string | undefined }
): Effect.Effect<ModelError.ModelError> => {
  if (failure._tag === "Transport") return Effect.succeed(fromTransport(failure, options, source))
  const assumed = options.dialect === undefined ? "no dialect is known for the client; classified as openai" : undefined
  return classifyHttp(failure, options.dialect ?? "openai", options, {
    ...source,
    note: joinNotes(assumed, source.note)
  })
}

/** How a reason with no known dialect is classified: its category, the row, and why where the sides differ. */
interface Row {
  readonly category: ModelError.Category
  readonly rule: string
  readonly note?: string | undefined
  readonly promptTokens?: number | undefined
  readonly maxTokens?: number | undefined
}

const notRetried = (what: string) =>
  `${what}; effect/ai calls it retryable (another sample may do better), the kernel never retries an unknown error`

const toolRow = (tag: string): Row => ({
  category: "unknown",
  rule: `effect_ai.tool.${tag}`,
  note: "a tool error of effect/ai's own resolution, not the model's; the kernel validates and runs tools in its Toolbox"
})

/** The row for a reason, by its kind. Pure. */
const rowOf = (reason: AiError.AiErrorReason, status: number | undefined): Row => {
  switch (reason._tag) {
    case "RateLimitError":
      return { category: "rate_limited", rule: "effect_ai.rate_limit" }
    case "QuotaExhaustedError":
      return { category: "quota_exceeded", rule: "effect_ai.quota_exhausted" }
    case "AuthenticationError":
      return { category: "auth_error", rule: `effect_ai.authentication.${reason.kind}` }
    case "ContentPolicyError":
      return { category: "content_filtered", rule: "effect_ai.content_policy" }
    case "InvalidRequestError": {
      const overflow = Errors.contextOverflowOf(reason.description)
      return overflow === undefined
        ? { category: "invalid_request", rule: "effect_ai.invalid_request" }
        : { category: "context_length_exceeded", rule: "effect_ai.invalid_request.context_window", ...overflow }
    }
    case "InternalProviderError":
      return { category: "server_error", rule: "effect_ai.internal_provider" }
    case "InvalidResponseError":
      return {
        category: Errors.unreadableCategory(status),
        rule: "effect_ai.invalid_response",
        note: "a response that made no sense: a 5xx is transient, anything else is not retried, as the kernel's providers treat a malformed response"
      }
    case "NetworkError": {
      const timedOut = Errors.timedOutOf(reason.cause)
      return {
        category: Errors.transportCategory({ reason: reason.reason, timedOut }),
        rule: `effect_ai.network.${reason.reason}${timedOut ? ".timeout" : ""}`
      }
    }
    case "InvalidOutputError":
      return { category: "unknown", rule: "effect_ai.invalid_output", note: notRetried("the output did not decode") }
    case "StructuredOutputError":
      return {
        category: "unknown",
        rule: "effect_ai.structured_output",
        note: notRetried("the structured output did not validate")
      }
    case "UnsupportedSchemaError":
      return {
        category: "invalid_request",
        rule: "effect_ai.unsupported_schema",
        note: "raised before sending: the same schema fails the same way"
      }
    case "UnknownError":
      return { category: "unknown", rule: "effect_ai.unknown", note: "nothing to classify; never retried" }
    case "ToolNotFoundError":
    case "ToolParameterValidationError":
    case "InvalidToolResultError":
    case "ToolResultEncodingError":
      return toolRow(reason._tag)
    case "ToolConfigurationError":
    case "ToolkitRequiredError":
    case "InvalidUserInputError":
      return {
        category: "invalid_request",
        rule: `effect_ai.${reason._tag}`,
        note: "the request as given cannot be sent: the same input fails the same way"
      }
  }
}

const httpOf = (reason: AiError.AiErrorReason): HttpContext | undefined => ("http" in reason ? reason.http : undefined)

const byReason = (reason: AiError.AiErrorReason, options: Options, source: Source) => {
  const failure = Errors.httpFailureOf(httpOf(reason))
  const row = rowOf(reason, failure?.status)
  const fromHeaders = failure === undefined ? Effect.succeed(Option.none()) : RetryAfter.parse(failure.headers)
  return Effect.map(fromHeaders, (hinted) =>
    build(row.category, options, {
      message: reason.message,
      status: failure?.status,
      retryAfter: (reason._tag === "RateLimitError" ? reason.retryAfter : undefined) ?? Option.getOrUndefined(hinted),
      retryable: failure === undefined ? undefined : Errors.retryableOf(failure.headers),
      details: {
        rule: row.rule,
        ...sourceDetails(source),
        ...(failure !== undefined ? { headers: failure.headers, body: failure.body } : {}),
        ...(reason._tag === "NetworkError" ? { reason: reason.reason, code: Errors.codeOf(reason.cause) } : {}),
        note: row.note
      },
      promptTokens: row.promptTokens,
      maxTokens: row.maxTokens
    })
  )
}

/** The kernel's error a reason carries, when `toAiError` made it. */
const carriedModelError = (reason: AiError.AiErrorReason): Option.Option<ModelError.ModelError> =>
  Errors.decodeModelError(
    reason._tag === "NetworkError" ? reason.cause : "metadata" in reason ? reason.metadata[metadataKey] : undefined
  )

/** A carried error as the kernel gave it, redacted, and mid-stream if this side saw parts before it. */
const restored = (error: ModelError.ModelError, options: Options): ModelError.ModelError => {
  const secrets = secretsOf(options)
  const midStream = options.midStream === true && error.midStream !== true
  if (secrets.length === 0 && !midStream) return error
  return Errors.editModelError(error, (json) => {
    const encoded = Redaction.scrubDeep(secrets, json)
    return midStream && Predicate.isObject(encoded) ? { ...encoded, midStream: true } : encoded
  })
}

/**
 * An encoded `AiError` with its response headers cut to those a kernel error
 * keeps (`Errors.plainHeaders`: no credential, cookie or `Redacted` value,
 * which JSON would hold in the clear); none when they cannot be cut.
 */
const withKeptHeaders = (json: unknown, http: HttpContext | undefined): unknown => {
  const headers = http?.response?.headers
  if (headers === undefined) return json
  const kept = Errors.plainHeaders(headers)
  const entries = Object.entries(headers).filter(([name, value]) => kept[name.toLowerCase()] === value)
  if (entries.length === Object.keys(headers).length) return json
  if (
    !Predicate.hasProperty(json, "reason") ||
    !Predicate.hasProperty(json.reason, "http") ||
    !Predicate.hasProperty(json.reason.http, "response") ||
    !Predicate.isObject(json.reason.http.response)
  ) {
    return undefined
  }
  const response = { ...json.reason.http.response, headers: Object.fromEntries(entries) }
  return { ...json, reason: { ...json.reason, http: { ...json.reason.http, response } } }
}

/** The `AiError` as JSON for `details.aiError`, so that `toAiError` gives it back; none when JSON cannot hold it. */
const storedAiError = (error: AiError.AiError): unknown =>
  Option.getOrUndefined(Option.map(encodeAiError(error), (json) => withKeptHeaders(json, httpOf(error.reason))))

/**
 * The `ModelError` for an `AiError`. See the module's tables.
 *
 * @example
 * ```ts
 * import { AiErrors } from "@agent-kernel/ai"
 * import { AiError } from "effect/ai"
 * import { Duration, Effect } from "effect"
 *
 * const error = AiError.make({
 *   module: "SomeClient",
 *   method: "generate",
 *   reason: new AiError.RateLimitError({ retryAfter: Duration.seconds(3) })
 * })
 * // RateLimited, retryAfter 3 seconds
 * const mapped = Effect.runSync(AiErrors.toModelError(error, { provider: "some", model: "m" }))
 * ```
 *
 * @since 0.1.0
 * @category mapping
 */
export const toModelError = (error: AiError.AiError, options: Options): Effect.Effect<ModelError.ModelError> => {
  const reason = error.reason
  const carried = carriedModelError(reason)
  if (Option.isSome(carried)) return Effect.succeed(restored(carried.value, options))
  const source: Source = {
    source: reason._tag,
    module: error.module,
    method: error.method,
    aiError: storedAiError(error)
  }
  const failure = Errors.httpFailureOf(httpOf(reason))
  const dialect = options.dialect ?? Errors.dialectOfModule(error.module)
  return failure !== undefined && dialect !== undefined
    ? classifyHttp(failure, dialect, options, source)
    : byReason(reason, options, source)
}

const StreamError = Schema.Struct({
  type: Schema.optional(Schema.String),
  code: Schema.optional(Schema.NullOr(Schema.String)),
  message: Schema.optional(Schema.String)
})
const decodeStreamError = Schema.decodeUnknownOption(StreamError)

/**
 * The `ModelError` for an error part inside a `streamText` stream (an
 * Anthropic `event: error`, an OpenAI Responses `error` event): classified
 * by the dialect's table on its type, code and message, as the kernel's own
 * providers classify an error event inside a 200 stream (OpenAI's table
 * when no dialect is given, and `details.note` says so).
 *
 * @since 0.2.0
 * @category mapping
 */
export const fromStreamError = (error: unknown, options: Options): Effect.Effect<ModelError.ModelError> =>
  Effect.sync(() => {
    const dialect = options.dialect ?? "openai"
    const read = Option.getOrElse(decodeStreamError(error), () => ({}) as typeof StreamError.Type)
    // An OpenAI Responses error event says `type: "error"` and puts the error's kind in `code`.
    const type = read.type === undefined || read.type === "error" ? (read.code ?? undefined) : read.type
    const facts = { type, code: read.code ?? undefined, message: read.message }
    const classified = Classification.classifyFailure(Errors.dialects[dialect].table, { facts })
    return build(classified.category, options, {
      message: `${type ?? "error"}: ${read.message ?? "no message"}`,
      details: {
        rule: classified.rule?.id ?? "fallback.unknown",
        source: "stream",
        dialect,
        body: error,
        note: options.dialect === undefined ? "no dialect is known for the client; classified as openai" : undefined
      },
      promptTokens: classified.promptTokens,
      maxTokens: classified.maxTokens
    })
  })

/** The response headers an `AiError` keeps for a kernel error: the retry hint and `x-should-retry: false` included. */
const responseHeaders = (error: ModelError.ModelError): Record<string, string> => {
  const headers = Redaction.keptHeaders(error.details?.["headers"])
  if (
    error.retryAfter !== undefined &&
    headers["retry-after"] === undefined &&
    headers["retry-after-ms"] === undefined
  ) {
    headers["retry-after-ms"] = String(Duration.toMillis(error.retryAfter))
  }
  if (error.retryable === false) headers["x-should-retry"] = "false"
  return headers
}

const bodyText = (body: unknown): string | undefined =>
  body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body)

const httpContext = (error: ModelError.ModelError): HttpContext | undefined => {
  if (error.status === undefined) return undefined
  const body = bodyText(error.details?.["body"])
  return {
    response: { status: error.status, headers: responseHeaders(error) },
    ...(body !== undefined ? { body } : {})
  }
}

const authKind = (status: number | undefined): AiError.AuthenticationError["kind"] =>
  status === 401 ? "InvalidKey" : status === 403 ? "InsufficientPermissions" : "Unknown"

/**
 * The reason for a kernel error, carrying the error whole (see `toAiError`).
 *
 * @since 0.4.0
 * @category mapping
 */
export const toReason = (error: ModelError.ModelError): AiError.AiErrorReason => {
  const http = httpContext(error)
  const carried = Errors.encodeModelError(error)
  const common = {
    metadata: Option.match(carried, { onNone: () => ({}), onSome: (json) => ({ [metadataKey]: json }) }),
    ...(http !== undefined ? { http } : {})
  }
  const description = error.message
  switch (error.category) {
    case "rate_limited":
      return new AiError.RateLimitError({
        ...common,
        ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {})
      })
    case "quota_exceeded":
      return new AiError.QuotaExhaustedError(common)
    case "auth_error":
      return new AiError.AuthenticationError({ ...common, kind: authKind(error.status), description })
    case "content_filtered":
      return new AiError.ContentPolicyError({ ...common, description })
    case "invalid_request":
      return new AiError.InvalidRequestError({ ...common, description })
    case "context_length_exceeded":
      return new AiError.InvalidRequestError({
        ...common,
        parameter: "prompt",
        constraint: "must fit the model's context window",
        description
      })
    case "overloaded":
    case "server_error":
      return new AiError.InternalProviderError({ ...common, description })
    case "timeout":
    case "connection_error":
      return new AiError.NetworkError({
        reason: "TransportError",
        method: "POST",
        url: "",
        description,
        ...(Option.isSome(carried) ? { cause: carried.value } : {})
      })
    case "process_crashed":
    case "unknown":
      return new AiError.UnknownError({ ...common, description })
  }
}

/**
 * The `AiError` for a kernel `ModelError`, for code written against
 * effect/ai.
 *
 * | ModelError category | AiError reason |
 * |---|---|
 * | `rate_limited` | `RateLimitError` (`retryAfter`) |
 * | `quota_exceeded` | `QuotaExhaustedError` |
 * | `auth_error` | `AuthenticationError` (`InvalidKey` for a 401, `InsufficientPermissions` for a 403, else `Unknown`) |
 * | `content_filtered` | `ContentPolicyError` |
 * | `invalid_request` | `InvalidRequestError` |
 * | `context_length_exceeded` | `InvalidRequestError`, `parameter: "prompt"` |
 * | `overloaded`, `server_error` | `InternalProviderError` |
 * | `timeout`, `connection_error` | `NetworkError` `TransportError` |
 * | `process_crashed`, `unknown` | `UnknownError` |
 *
 * An error with an HTTP status keeps it in `http.response` with the kept
 * headers (the retry hint as `retry-after-ms` when the server sent none of
 * its own, and `x-should-retry: false` when the server forbade a retry) and
 * the body. The kernel's error rides along as JSON, in
 * `metadata["agent-kernel"]` (in `cause` for a `NetworkError`), so
 * `toModelError` gives it back unchanged (an error whose details JSON
 * cannot hold, such as an `Error` or a `Date`, is mapped by its category
 * instead). An error `toModelError` made from an `AiError` gives that
 * `AiError` back (from `details.aiError`).
 *
 * What effect/ai cannot say: its `isRetryable` is fixed per reason, so a
 * transient error the server forbade retrying (`retryable: false`) still
 * says `true` (the header is kept); `retryAfter` is a field of
 * `RateLimitError` only (an overload's hint is in the headers); and
 * `overloaded`/`server_error`, `timeout`/`connection_error`,
 * `context_length_exceeded`/`invalid_request` share a reason each.
 *
 * @since 0.1.0
 * @category mapping
 */
export const toAiError = (
  error: ModelError.ModelError,
  options: { readonly module?: string | undefined; readonly method?: string | undefined } = {}
): AiError.AiError => {
  const original = decodeAiError(error.details?.["aiError"])
  if (Option.isSome(original)) return original.value
  return AiError.make({
    module: options.module ?? `agent-kernel/${error.provider}`,
    method: options.method ?? "generate",
    reason: toReason(error)
  })
}
