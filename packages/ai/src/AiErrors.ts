/**
 * @effect/ai's `AiError` and the kernel's `ModelError`, both ways.
 *
 * `toModelError` classifies with the kernel providers' own tables
 * (`Classification` and `RetryAfter` from `@agent-kernel/providers`): an
 * `HttpResponseError` keeps the status, the response headers and the body,
 * which is all the tables read, so the category, the retry hint,
 * `x-should-retry` and a context overflow's token counts come out exactly as
 * the kernel's own Anthropic and OpenAI providers give them. Where an
 * `AiError` keeps too little (`MalformedOutput`, `UnknownError`, an unreadable
 * body), the error says so in `details.note` and takes a category the kernel
 * never retries.
 *
 * | AiError | ModelError category |
 * |---|---|
 * | `HttpResponseError` `StatusCode` | the dialect's classification table, on status, headers and body |
 * | `HttpResponseError` `Decode`, `EmptyBody` | `server_error` for a 5xx, else `unknown` |
 * | `HttpRequestError` `Transport` | `connection_error` |
 * | `HttpRequestError` `Encode`, `InvalidUrl` | `invalid_request` |
 * | `MalformedInput` | `invalid_request` |
 * | `MalformedOutput` | `unknown` |
 * | `UnknownError` | `unknown` |
 *
 * @since 0.1.0
 */
import { ModelError } from "@agent-kernel/kernel"
import { Classification, Redaction, RetryAfter } from "@agent-kernel/providers"
import * as AiError from "@effect/ai/AiError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
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
   * Which table classifies HTTP failures. Default: the one of the @effect/ai
   * client that raised the error (`AnthropicClient`, `OpenAiClient`,
   * `OpenRouterClient`); for any other client, `openai`, and the error's
   * `details.note` says the dialect was assumed.
   */
  readonly dialect?: Dialect | undefined
  /** Secrets (API keys) to replace with `<redacted>` wherever a server echoed them into the error. */
  readonly redact?: ReadonlyArray<Redacted.Redacted<string>> | undefined
  /** The failure came inside a stream, after some of the response: the kernel restarts the whole request. */
  readonly midStream?: boolean | undefined
}

/**
 * The failure behind an error, as recorded by the single-request guard or
 * read from an `AiError`.
 *
 * @since 0.1.0
 * @category models
 */
export type Failure =
  | ({ readonly _tag: "Http" } & Errors.HttpFailure)
  | ({ readonly _tag: "Transport" } & Errors.TransportFailure)

interface Source {
  /** The `AiError` tag, or where the failure was seen. */
  readonly source: string
  readonly module?: string | undefined
  readonly method?: string | undefined
  readonly note?: string | undefined
}

const resolveDialect = (options: Options, module: string | undefined): { dialect: Dialect; note?: string } => {
  if (options.dialect !== undefined) return { dialect: options.dialect }
  const known = module === undefined ? undefined : Errors.dialectOfModule(module)
  return known !== undefined
    ? { dialect: known }
    : { dialect: "openai", note: `no dialect is known for module ${module ?? "(none)"}; classified as openai` }
}

const joinNotes = (...notes: ReadonlyArray<string | undefined>): string | undefined => {
  const present = notes.filter((note): note is string => note !== undefined)
  return present.length === 0 ? undefined : present.join("; ")
}

const classifyHttp = (failure: Errors.HttpFailure, options: Options, source: Source) =>
  Effect.gen(function* () {
    const { dialect, note } = resolveDialect(options, source.module)
    const classified = Errors.classifyHttp(dialect, failure)
    const retryAfter = yield* RetryAfter.parse(failure.headers)
    const facts = classified.facts
    const label = facts.type ?? facts.code ?? `HTTP ${failure.status}`
    const details: Record<string, unknown> = {
      rule: classified.rule?.id ?? "fallback.unknown",
      source: source.source,
      dialect,
      ...(source.module !== undefined ? { module: source.module, method: source.method } : {}),
      headers: failure.headers,
      ...(failure.body !== undefined ? { body: failure.body } : {}),
      ...(joinNotes(note, source.note) !== undefined ? { note: joinNotes(note, source.note) } : {})
    }
    return build(classified.category, options, {
      message: `${label}: ${facts.message ?? "no message"}`,
      status: failure.status,
      retryAfter: Option.getOrUndefined(retryAfter),
      retryable: classified.retryable,
      details,
      promptTokens: classified.promptTokens,
      maxTokens: classified.maxTokens
    })
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

const build = (category: ModelError.Category, options: Options, fields: Fields): ModelError.ModelError => {
  const secrets = (options.redact ?? []).map(Redacted.value)
  const details: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields.details)) details[key] = Redaction.scrubDeep(secrets, value)
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

const fromTransport = (failure: Errors.TransportFailure, options: Options, source: Source): ModelError.ModelError =>
  build(Errors.transportCategory(failure), options, {
    message: `${failure.reason}: ${failure.code ?? failure.description ?? "the request failed before any response"}`,
    details: {
      rule: `effect_ai.request.${failure.reason}`,
      source: source.source,
      reason: failure.reason,
      ...(failure.code !== undefined ? { code: failure.code } : {}),
      ...(source.module !== undefined ? { module: source.module, method: source.method } : {}),
      ...(source.note !== undefined ? { note: source.note } : {})
    }
  })

/**
 * Classifies a recorded failure: an HTTP response through the dialect's
 * table, a transport failure as the kernel's providers do.
 *
 * @since 0.1.0
 * @category mapping
 */
export const fromFailure = (
  failure: Failure,
  options: Options,
  source: { readonly source: string; readonly note?: string | undefined }
): Effect.Effect<ModelError.ModelError> =>
  failure._tag === "Http"
    ? classifyHttp(failure, options, source)
    : Effect.succeed(fromTransport(failure, options, source))

const describe = (error: { readonly description?: string | undefined }, fallback: string): string =>
  error.description ?? fallback

/** The cause an `AiError` kept (a parse error's issues, a thrown error's message), shortened for `details`. */
const causeOf = (cause: unknown, options: Options): { readonly cause?: string } => {
  if (cause === undefined) return {}
  const text = ParseResult.isParseError(cause)
    ? ParseResult.TreeFormatter.formatErrorSync(cause)
    : cause instanceof Error
      ? cause.message
      : String(cause)
  // Scrubbed before the cut: a secret split by the cut would no longer match.
  return { cause: Redaction.excerpt((options.redact ?? []).map(Redacted.value), text, 2_000) }
}

/** The variants that carry no response: their category, and why it is the one. */
const withoutResponse = {
  MalformedInput: {
    category: "invalid_request",
    rule: "effect_ai.malformed_input",
    fallback: "the request could not be expressed for this provider",
    note: "raised before sending: the same input would fail the same way"
  },
  MalformedOutput: {
    category: "unknown",
    rule: "effect_ai.malformed_output",
    fallback: "the response did not decode",
    note: "@effect/ai keeps no HTTP status, headers or body for an undecodable response, so it cannot be classified; not retried"
  },
  UnknownError: {
    category: "unknown",
    rule: "effect_ai.unknown",
    fallback: "an error occurred",
    note: "UnknownError carries no status or body to classify; not retried"
  }
} as const satisfies Record<string, { readonly category: ModelError.Category } & Record<string, string>>

/**
 * The `ModelError` for an `AiError`. See the module's table.
 *
 * @example
 * ```ts
 * import { AiErrors } from "@agent-kernel/ai"
 * import { AiError } from "@effect/ai"
 * import { Effect, Option } from "effect"
 *
 * const error = new AiError.HttpResponseError({
 *   module: "AnthropicClient",
 *   method: "createMessage",
 *   reason: "StatusCode",
 *   request: { method: "POST", url: "https://api.anthropic.com/v1/messages", urlParams: [], hash: Option.none(), headers: {} },
 *   response: { status: 429, headers: { "retry-after": "3" } }
 * })
 * // RateLimited, retryAfter 3 seconds
 * const mapped = AiErrors.toModelError(error, { provider: "anthropic", model: "claude-sonnet-4-5" })
 * ```
 *
 * @since 0.1.0
 * @category mapping
 */
export const toModelError = (error: AiError.AiError, options: Options): Effect.Effect<ModelError.ModelError> => {
  const source = { source: error._tag, module: error.module, method: error.method }
  switch (error._tag) {
    case "HttpResponseError": {
      const failure = Errors.httpFailureOf(error)
      if (error.reason === "StatusCode") return classifyHttp(failure, options, source)
      return Effect.succeed(
        build(Errors.unreadableCategory(failure.status), options, {
          message: `${error.reason}: ${describe(error, "the response body could not be read")}`,
          status: failure.status,
          retryable: Errors.retryableOf(failure.headers),
          details: {
            rule: `effect_ai.response.${error.reason}`,
            ...source,
            headers: failure.headers,
            note: "@effect/ai keeps no cause for an unreadable body (a reset mid-body and a garbled body look the same); not retried unless the status is 5xx"
          }
        })
      )
    }
    case "HttpRequestError":
      return Effect.succeed(
        fromTransport(
          { reason: error.reason, description: error.description, code: Errors.codeOf(error.cause) },
          options,
          source
        )
      )
    case "MalformedInput":
    case "MalformedOutput":
    case "UnknownError": {
      const { category, rule, fallback, note } = withoutResponse[error._tag]
      return Effect.succeed(
        build(category, options, {
          message: `${error._tag}: ${describe(error, fallback)}`,
          details: { rule, ...source, ...causeOf(error.cause, options), note }
        })
      )
    }
  }
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
 * providers classify an error event inside a 200 stream.
 *
 * @since 0.2.0
 * @category mapping
 */
export const fromStreamError = (error: unknown, options: Options): Effect.Effect<ModelError.ModelError> =>
  Effect.sync(() => {
    const { dialect, note } = resolveDialect(options, undefined)
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
        ...(note !== undefined ? { note } : {})
      },
      promptTokens: classified.promptTokens,
      maxTokens: classified.maxTokens
    })
  })

const unknownRequest = {
  method: "POST",
  url: "",
  urlParams: [],
  hash: Option.none(),
  headers: {}
} as const

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

/**
 * The `AiError` for a kernel `ModelError`, for code written against
 * @effect/ai. An error with an HTTP status becomes an `HttpResponseError`
 * holding the status, the kept response headers (with the retry hint as
 * `retry-after-ms` and `x-should-retry: false` when the server forbade a
 * retry) and the body, so `toModelError` classifies it back to the same
 * category. A timeout or connection failure becomes an `HttpRequestError`
 * (`Transport`); an invalid request with no status, `MalformedInput`;
 * anything else, an `UnknownError` whose description names the category.
 * The request URL is not known to the kernel and is left empty.
 *
 * @since 0.1.0
 * @category mapping
 */
export const toAiError = (error: ModelError.ModelError): AiError.AiError => {
  const module = `agent-kernel/${error.provider}`
  const method = "generate"
  const description = `${error.category}: ${error.message}`
  if (error.status !== undefined) {
    const body = error.details?.["body"]
    return new AiError.HttpResponseError({
      module,
      method,
      reason: "StatusCode",
      request: unknownRequest,
      response: { status: error.status, headers: responseHeaders(error) },
      description,
      ...(body !== undefined ? { body: JSON.stringify(body, null, 2) } : {})
    })
  }
  switch (error.category) {
    case "timeout":
    case "connection_error":
      return new AiError.HttpRequestError({ module, method, reason: "Transport", request: unknownRequest, description })
    case "invalid_request":
      return new AiError.MalformedInput({ module, method, description })
    default:
      return new AiError.UnknownError({ module, method, description })
  }
}
