/**
 * Shared machinery of the HTTP providers: phased timeouts, bounded body
 * reads, and turning every failure into a classified, secret-free
 * `ModelError`.
 *
 * @internal
 */
import { ModelError, ModelProvider, type Usage } from "@agent-kernel/kernel"
import * as Config from "effect/Config"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Classification from "../Classification.js"
import * as Redaction from "../Redaction.js"
import * as RetryAfter from "../RetryAfter.js"
import * as Timeouts from "../Timeouts.js"
import * as Transport from "../Transport.js"

/** Everything a call needs to build errors and enforce limits. */
export interface Call {
  readonly provider: string
  readonly model: string
  readonly secret: Redacted.Redacted<string>
  readonly table: ReadonlyArray<Classification.Rule>
  readonly timeouts: Timeouts.Timeouts
  readonly maxBodyBytes: number
  readonly maxErrorBodyBytes: number
}

const secretsOf = (call: Call): ReadonlyArray<string> => [Redacted.value(call.secret)]

/** Replaces every occurrence of the key in a string. */
export const scrub = (call: Call, text: string): string => Redaction.scrub(secretsOf(call), text)

/** Replaces the key everywhere inside a JSON-like value. */
export const scrubDeep = (call: Call, value: unknown): unknown => Redaction.scrubDeep(secretsOf(call), value)

/** At most `max` characters of a text, the key scrubbed before the cut. */
const excerpt = (call: Call, text: string, max = 2_000): string => Redaction.excerpt(secretsOf(call), text, max)

interface ErrorFields {
  readonly message: string
  readonly status?: number | undefined
  readonly retryAfter?: Duration.Duration | undefined
  readonly retryable?: boolean | undefined
  readonly midStream?: boolean | undefined
  readonly details?: Record<string, unknown> | undefined
  readonly promptTokens?: number | undefined
  readonly maxTokens?: number | undefined
  readonly usage?: Usage.Usage | undefined
}

const scrubRecord = (call: Call, record: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(record)) out[key] = scrubDeep(call, value)
  return out
}

/** Builds a model error of a category, with the key scrubbed from message and details. */
export const makeError = (call: Call, category: ModelError.Category, fields: ErrorFields): ModelError.ModelError => {
  const common: ModelError.ModelErrorFields = {
    provider: call.provider,
    model: call.model,
    message: scrub(call, fields.message),
    status: fields.status,
    retryAfter: fields.retryAfter,
    retryable: fields.retryable,
    midStream: fields.midStream,
    details: fields.details === undefined ? undefined : scrubRecord(call, fields.details),
    usage: fields.usage
  }
  if (category === "context_length_exceeded") {
    return new ModelError.ContextLengthExceeded({
      provider: common.provider,
      model: common.model,
      message: common.message,
      ...(common.status !== undefined ? { status: common.status } : {}),
      ...(common.retryAfter !== undefined ? { retryAfter: common.retryAfter } : {}),
      ...(common.retryable !== undefined ? { retryable: common.retryable } : {}),
      ...(common.midStream !== undefined ? { midStream: common.midStream } : {}),
      ...(common.details !== undefined ? { details: common.details } : {}),
      ...(common.usage !== undefined ? { usage: common.usage } : {}),
      ...(fields.promptTokens !== undefined ? { promptTokens: fields.promptTokens } : {}),
      ...(fields.maxTokens !== undefined ? { maxTokens: fields.maxTokens } : {})
    })
  }
  return ModelError.make(category, common)
}

/**
 * The same error, carrying the usage a stream reported before it failed, so
 * that the kernel counts the tokens of failed attempts too. An error that
 * already carries usage keeps its own.
 */
export const withUsage = (call: Call, error: ModelError.ModelError, usage: Usage.Usage): ModelError.ModelError =>
  error.usage !== undefined
    ? error
    : makeError(call, error.category, {
        message: error.message,
        status: error.status,
        retryAfter: error.retryAfter,
        retryable: error.retryable,
        midStream: error.midStream,
        details: error.details,
        usage,
        ...(error._tag === "ContextLengthExceeded"
          ? { promptTokens: error.promptTokens, maxTokens: error.maxTokens }
          : {})
      })

/**
 * A request option the provider cannot honour: `invalid_request`, raised
 * before anything is sent, naming the option and the provider.
 */
export const unsupported = (
  call: Call,
  refused: { readonly option: string; readonly reason: string }
): ModelError.ModelError =>
  makeError(call, "invalid_request", {
    message: refused.reason,
    details: { rule: "request.unsupported_option", option: refused.option, provider: call.provider }
  })

/** A `Timeout` error for a phase. */
export const timeoutError = (call: Call, phase: Timeouts.Phase, midStream = false): ModelError.ModelError => {
  const limit =
    phase === "connect" ? call.timeouts.connect : phase === "first_byte" ? call.timeouts.firstByte : call.timeouts.idle
  return makeError(call, "timeout", {
    message: `${phase.replace("_", "-")} timeout after ${Duration.format(limit)}`,
    midStream: midStream ? true : undefined,
    details: { phase, timeout_ms: Duration.toMillis(limit) }
  })
}

/** Fails with the phase's `Timeout` error when `self` takes longer than its bound. */
const within = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  call: Call,
  phase: Timeouts.Phase,
  bound: Duration.Duration
): Effect.Effect<A, E | ModelError.ModelError, R> =>
  Effect.timeoutOrElse(self, { duration: bound, orElse: () => Effect.fail(timeoutError(call, phase)) })

const errorCode = (cause: unknown): string | undefined =>
  Predicate.hasProperty(cause, "code") && Predicate.isString(cause.code) ? cause.code : undefined

const causeMessage = (cause: unknown): string =>
  cause instanceof Error ? cause.message : Predicate.isString(cause) ? cause : "unknown cause"

/**
 * Maps a transport failure from the `HttpClient`. Connection refused, reset,
 * DNS failure and any other socket error are `connection_error`; a URL that
 * cannot be built, or a body that cannot be encoded, is `invalid_request`.
 * `details.reason` names the failure as `Transport`, `Decode`, `InvalidUrl`...
 */
export const fromClientError = (
  call: Call,
  error: HttpClientError.HttpClientError,
  midStream = false
): ModelError.ModelError => {
  const reason = error.reason
  const code = errorCode(reason.cause)
  const details = { reason: reason._tag.replace(/Error$/, ""), ...(code !== undefined ? { code } : {}) }
  if (reason._tag === "InvalidUrlError") {
    return makeError(call, "invalid_request", { message: `invalid URL: ${causeMessage(reason.cause)}`, details })
  }
  if (reason._tag === "EncodeError") {
    return makeError(call, "invalid_request", {
      message: `cannot encode request: ${causeMessage(reason.cause)}`,
      details
    })
  }
  return makeError(call, "connection_error", {
    message: `${code ?? "connection failed"}: ${causeMessage(reason.cause)}`,
    midStream: midStream ? true : undefined,
    details
  })
}

/**
 * Sends a request and waits for its status and headers under the connect and
 * first-byte timeouts. The request is aborted when the scope closes.
 */
export const open = Effect.fnUntraced(function* (
  transport: Transport.Service,
  request: HttpClientRequest.HttpClientRequest,
  call: Call
): Effect.fn.Return<HttpClientResponse.HttpClientResponse, ModelError.ModelError, Scope.Scope> {
  const client = HttpClient.withScope(transport.client)
  const classified = (
    response: Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError, Scope.Scope>
  ) =>
    within(
      Effect.mapError(response, (error) => fromClientError(call, error)),
      call,
      "first_byte",
      call.timeouts.firstByte
    )
  if (!transport.tracksConnect) return yield* classified(client.execute(request))
  const connected = yield* Deferred.make<void>()
  const { callId } = yield* Effect.acquireRelease(
    Effect.sync(() => transport.watch(() => Deferred.doneUnsafe(connected, Exit.void))),
    (watch) => Effect.sync(watch.unwatch)
  )
  const fiber = yield* Effect.forkScoped(
    client.execute(HttpClientRequest.setHeader(request, Transport.callHeader, callId))
  )
  // Connect phase: ends when the socket connects, or when the request settles first (connection refused...).
  yield* within(
    Effect.raceFirst(Deferred.await(connected), Effect.asVoid(Fiber.await(fiber))),
    call,
    "connect",
    call.timeouts.connect
  )
  return yield* classified(Fiber.join(fiber))
})

/** A body (or one SSE event) over its size limit: `unknown`, or `server_error` for a 5xx. */
export const tooLarge = (call: Call, status: number, limit: number, midStream: boolean): ModelError.ModelError =>
  makeError(call, status >= 500 ? "server_error" : "unknown", {
    message: `response body exceeded the ${limit} byte limit`,
    status,
    midStream: midStream ? true : undefined,
    details: { limit_bytes: limit }
  })

/** A body as text, under a size limit, with transport failures classified. */
export const boundedText = (
  bytes: Stream.Stream<Uint8Array, HttpClientError.HttpClientError>,
  call: Call,
  status: number,
  limit: number,
  midStream: boolean
): Stream.Stream<string, ModelError.ModelError> =>
  bytes.pipe(
    Stream.mapError((error) => fromClientError(call, error, midStream)),
    Stream.limitBytes(limit, () => Stream.fail(tooLarge(call, status, limit, midStream))),
    Stream.decodeText
  )

/**
 * A stream under the idle timeout: each of its pulls must produce within
 * `idle`. The stream it wraps yields only what carries content, so pings,
 * comments and whitespace never restart the timer, and a server that only
 * keeps the connection alive is cut at the bound. The timer starts at the
 * first pull, once the response headers have arrived.
 */
export const withinIdle = <A>(
  self: Stream.Stream<A, ModelError.ModelError>,
  call: Call,
  midStream: boolean
): Stream.Stream<A, ModelError.ModelError> =>
  Stream.timeoutOrElse(self, {
    duration: call.timeouts.idle,
    orElse: () => Stream.fail(timeoutError(call, "idle", midStream))
  })

/** Whether text holds anything but whitespace: padding and empty keep-alives do not. */
export const hasContent = (text: string): boolean => /\S/.test(text)

/**
 * Reads a whole body as text, bounded by size and by the idle timeout, which
 * only text other than whitespace restarts (a server can pad a JSON body
 * with whitespace to keep the connection alive, forever).
 */
export const readText = (
  bytes: Stream.Stream<Uint8Array, HttpClientError.HttpClientError>,
  call: Call,
  status: number,
  limit = call.maxBodyBytes
): Effect.Effect<string, ModelError.ModelError> =>
  boundedText(bytes, call, status, limit, false).pipe(
    // Whitespace is held back and handed on with the next text that carries content.
    Stream.mapAccumArray(
      () => "",
      (held, pieces) => {
        const text = held + pieces.join("")
        return hasContent(text) ? ["", [text]] : [text, []]
      },
      { onHalt: (held) => (held.length > 0 ? [held] : []) }
    ),
    (text) => withinIdle(text, call, false),
    Stream.mkString
  )

/** Parses JSON without throwing. */
export const parseJson = Redaction.parseJson

/**
 * Classifies an error from its facts, reading the retry hint and
 * `x-should-retry` from the headers when there are any: `true` lets the
 * table's last row make an otherwise unmatched failure transient, `false`
 * makes a transient one final for this call.
 */
export const classify = Effect.fnUntraced(function* (
  call: Call,
  facts: Classification.Facts,
  context: {
    readonly headers?: Readonly<Record<string, string>> | undefined
    readonly body?: unknown
    readonly midStream?: boolean | undefined
  }
): Effect.fn.Return<ModelError.ModelError> {
  const headers = context.headers ?? {}
  const { status, ...bodyFacts } = facts
  const classified = Classification.classifyFailure(call.table, { status, headers, facts: bodyFacts })
  const retryAfter = yield* RetryAfter.parse(headers)
  const label = facts.type ?? facts.code ?? (facts.status !== undefined ? `HTTP ${facts.status}` : "error")
  const details: Record<string, unknown> = {
    rule: classified.rule?.id ?? "fallback.unknown",
    ...(context.headers !== undefined ? { headers: Redaction.keptHeaders(context.headers) } : {}),
    ...(context.body !== undefined ? { body: context.body } : {})
  }
  return makeError(call, classified.category, {
    message: `${label}: ${facts.message ?? "no message"}`,
    status: facts.status,
    retryAfter: Option.getOrUndefined(retryAfter),
    retryable: classified.retryable,
    midStream: context.midStream === true ? true : undefined,
    details,
    promptTokens: classified.promptTokens,
    maxTokens: classified.maxTokens
  })
})

/**
 * Turns an error response into a classified error. The body is read under a
 * smaller size limit; a body that is not JSON, or not the provider's error
 * shape, is classified on the status alone.
 */
export const fromErrorResponse = Effect.fnUntraced(function* (
  response: HttpClientResponse.HttpClientResponse,
  call: Call,
  extract: (body: unknown) => Option.Option<Omit<Classification.Facts, "status">>
): Effect.fn.Return<ModelError.ModelError> {
  const read = yield* Effect.result(readText(response.stream, call, response.status, call.maxErrorBodyBytes))
  const text = Result.getOrUndefined(read)
  const json = text === undefined ? Option.none() : parseJson(text)
  const facts = Option.flatMap(json, extract)
  // The key is scrubbed before any cut: a key split by the cut would no longer match.
  const body = Option.isSome(json) ? json.value : text === undefined ? undefined : excerpt(call, text)
  const bodyNote = Result.isFailure(read)
    ? read.failure.message
    : Option.isNone(facts)
      ? `unparseable body: ${excerpt(call, text ?? "", 200)}`
      : undefined
  return yield* classify(
    call,
    { status: response.status, ...Option.getOrElse(facts, () => ({ message: bodyNote })) },
    { headers: response.headers, body }
  )
})

/** A malformed successful response: `unknown` (or `server_error` for a 5xx). */
export const malformed = (
  call: Call,
  status: number,
  reason: string,
  options?: { readonly midStream?: boolean; readonly body?: string }
): ModelError.ModelError =>
  makeError(call, status >= 500 ? "server_error" : "unknown", {
    message: `malformed response: ${reason}`,
    status,
    midStream: options?.midStream === true ? true : undefined,
    details: options?.body !== undefined ? { body: excerpt(call, options.body) } : undefined
  })

/**
 * The per-request `Call` of a provider: the model and the timeouts are read
 * at call time (the timeouts from the session's `CurrentCallTimeouts`, under
 * the provider's own `timeouts` option); the rest is fixed when the provider
 * is built.
 */
export const callFor =
  (fixed: Omit<Call, "model" | "maxErrorBodyBytes" | "timeouts">, timeouts: Timeouts.Options | undefined) =>
  (model: string): Effect.Effect<Call> =>
    Effect.map(Effect.service(ModelProvider.CurrentCallTimeouts), (current) => ({
      ...fixed,
      model,
      timeouts: Timeouts.resolve(timeouts, current),
      maxErrorBodyBytes: Math.min(fixed.maxBodyBytes, 1024 * 1024)
    }))

/** The options every provider shares. */
export interface CommonOptions {
  readonly apiKey?: Redacted.Redacted<string> | undefined
  readonly baseUrl?: string | undefined
  readonly stream?: boolean | undefined
  readonly timeouts?: Timeouts.Options | undefined
  readonly maxBodyBytes?: number | undefined
  readonly name?: string | undefined
}

/**
 * Resolves what every provider needs from its options and the environment:
 * the key and base URL (options first, then `Config`), the defaults, the
 * transport, and the per-request `Call` builder.
 */
export const configure = Effect.fnUntraced(function* (
  options: CommonOptions | undefined,
  provider: {
    readonly name: string
    readonly keyVariable: string
    readonly baseUrlVariable: string
    readonly defaultBaseUrl: string
    readonly table: ReadonlyArray<Classification.Rule>
  }
) {
  const transport = yield* Transport.Transport
  const apiKey = options?.apiKey ?? (yield* Config.Redacted(provider.keyVariable))
  const baseUrl = (
    options?.baseUrl ??
    (yield* Config.String(provider.baseUrlVariable).pipe(Config.withDefault(provider.defaultBaseUrl)))
  ).replace(/\/+$/, "")
  const name = options?.name ?? provider.name
  const callOf = callFor(
    { provider: name, secret: apiKey, table: provider.table, maxBodyBytes: options?.maxBodyBytes ?? 32 * 1024 * 1024 },
    options?.timeouts
  )
  return { transport, apiKey, baseUrl, name, stream: options?.stream ?? true, callOf }
})
