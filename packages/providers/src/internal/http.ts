/**
 * Shared machinery of the HTTP providers: phased timeouts, bounded body
 * reads, SSE decoding, and turning every failure into a classified,
 * secret-free `ModelError`.
 *
 * @internal
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { ModelError, ModelProvider } from "@agent-kernel/kernel"
import * as Config from "effect/Config"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Chunk from "effect/Chunk"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
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
  readonly usage?: ModelProvider.Usage | undefined
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
export const withUsage = (
  call: Call,
  error: ModelError.ModelError,
  usage: ModelProvider.Usage
): ModelError.ModelError =>
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

const scrubRecord = (call: Call, record: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(record)) out[key] = scrubDeep(call, value)
  return out
}

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

const errorCode = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined

const causeMessage = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : "unknown cause"

/**
 * Maps a transport failure from the `HttpClient`. Connection refused, reset,
 * DNS failure and any other socket error are `connection_error`; a URL that
 * cannot be built is `invalid_request`.
 */
export const fromClientError = (
  call: Call,
  error: HttpClientError.HttpClientError,
  midStream = false
): ModelError.ModelError => {
  const code = errorCode(error.cause)
  const details = { reason: error.reason, ...(code !== undefined ? { code } : {}) }
  if (error._tag === "RequestError" && error.reason === "InvalidUrl") {
    return makeError(call, "invalid_request", { message: `invalid URL: ${causeMessage(error.cause)}`, details })
  }
  if (error._tag === "RequestError" && error.reason === "Encode") {
    return makeError(call, "invalid_request", {
      message: `cannot encode request: ${causeMessage(error.cause)}`,
      details
    })
  }
  return makeError(call, "connection_error", {
    message: `${code ?? "connection failed"}: ${causeMessage(error.cause)}`,
    midStream: midStream ? true : undefined,
    details
  })
}

/**
 * Sends a request and waits for its status and headers under the connect and
 * first-byte timeouts. The request is aborted when the scope closes.
 */
export const open = (
  transport: Transport.Service,
  request: HttpClientRequest.HttpClientRequest,
  call: Call
): Effect.Effect<HttpClientResponse.HttpClientResponse, ModelError.ModelError, Scope.Scope> =>
  Effect.gen(function* () {
    const client = HttpClient.withScope(transport.client)
    if (!transport.tracksConnect) {
      return yield* client.execute(request).pipe(
        Effect.mapError((error) => fromClientError(call, error)),
        Effect.timeoutFail({ duration: call.timeouts.firstByte, onTimeout: () => timeoutError(call, "first_byte") })
      )
    }
    const connected = yield* Deferred.make<void>()
    const { callId } = yield* Effect.acquireRelease(
      Effect.sync(() => transport.watch(() => Deferred.unsafeDone(connected, Exit.void))),
      (watch) => Effect.sync(watch.unwatch)
    )
    const fiber = yield* Effect.forkScoped(
      client.execute(HttpClientRequest.setHeader(request, Transport.callHeader, callId))
    )
    // Connect phase: ends when the socket connects, or when the request
    // settles first (for example, connection refused).
    yield* Effect.raceFirst(Deferred.await(connected), Effect.asVoid(Fiber.await(fiber))).pipe(
      Effect.timeoutFail({ duration: call.timeouts.connect, onTimeout: () => timeoutError(call, "connect") })
    )
    return yield* Fiber.join(fiber).pipe(
      Effect.mapError((error) => fromClientError(call, error)),
      Effect.timeoutFail({ duration: call.timeouts.firstByte, onTimeout: () => timeoutError(call, "first_byte") })
    )
  })

/** A body (or one SSE event) over its size limit: `unknown`, or `server_error` for a 5xx. */
export const tooLarge = (call: Call, status: number, limit: number, midStream: boolean): ModelError.ModelError =>
  makeError(call, status >= 500 ? "server_error" : "unknown", {
    message: `response body exceeded the ${limit} byte limit`,
    status,
    midStream: midStream ? true : undefined,
    details: { limit_bytes: limit }
  })

/** A body's bytes under a size limit, with transport failures classified. */
export const boundedBytes = (
  bytes: Stream.Stream<Uint8Array, HttpClientError.HttpClientError>,
  call: Call,
  status: number,
  limit: number,
  midStream: boolean
): Stream.Stream<Uint8Array, ModelError.ModelError> =>
  bytes.pipe(
    Stream.mapError((error) => fromClientError(call, error, midStream)),
    Stream.mapAccumEffect(0, (total, chunk: Uint8Array) => {
      const next = total + chunk.length
      return next > limit
        ? Effect.fail(tooLarge(call, status, limit, midStream))
        : Effect.succeed([next, chunk] as const)
    })
  )

/** How `withinIdle` reads a stream's elements. */
export interface IdleOptions<A> {
  /** Whether an element carries content: only those restart the idle timer. */
  readonly carries: (element: A) => boolean
  /** The terminal element: nothing after it is read. */
  readonly isLast: (element: A) => boolean
  readonly midStream: boolean
}

/**
 * A stream under the idle timeout: `idle` may pass between two elements that
 * `carries` accepts, and no more. Elements that carry nothing (pings, SSE
 * comments, empty events, whitespace) pass through but never restart the
 * timer, so a server that only keeps the connection alive is cut at the
 * bound. The timer starts at the first pull, when the response headers have
 * arrived. Elements are emitted as soon as content arrives: a content
 * element is never held back.
 */
export const withinIdle = <A>(
  self: Stream.Stream<A, ModelError.ModelError>,
  call: Call,
  options: IdleOptions<A>
): Stream.Stream<A, ModelError.ModelError> =>
  Stream.unwrapScoped(
    Effect.map(Stream.toPull(self), (pull) => {
      // The next chunk, or none at the end of the stream.
      const next: Effect.Effect<Option.Option<Chunk.Chunk<A>>, ModelError.ModelError> = pull.pipe(
        Effect.map(Option.some),
        Effect.catchAll(
          Option.match({
            onNone: () => Effect.succeed(Option.none<Chunk.Chunk<A>>()),
            onSome: (error) => Effect.fail(error)
          })
        )
      )
      // Pulls until a chunk carries content or holds the last element, or the stream ends; returns
      // everything pulled (up to the last element) and whether reading is over.
      const untilContent = (
        pulled: Chunk.Chunk<A>
      ): Effect.Effect<readonly [Chunk.Chunk<A>, boolean], ModelError.ModelError> =>
        Effect.flatMap(
          next,
          Option.match({
            onNone: () => Effect.succeed([pulled, true] as const),
            onSome: (chunk) => {
              const last = Chunk.findFirstIndex(chunk, options.isLast)
              if (Option.isSome(last)) {
                return Effect.succeed([Chunk.appendAll(pulled, Chunk.take(chunk, last.value + 1)), true] as const)
              }
              const all = Chunk.appendAll(pulled, chunk)
              return Chunk.some(chunk, options.carries)
                ? Effect.succeed([all, false] as const)
                : Effect.suspend(() => untilContent(all))
            }
          })
        )
      const withinBound = untilContent(Chunk.empty()).pipe(
        Effect.timeoutFail({
          duration: call.timeouts.idle,
          onTimeout: () => timeoutError(call, "idle", options.midStream)
        })
      )
      return Stream.unfoldChunkEffect(false, (over) =>
        over ? Effect.succeed(Option.none()) : Effect.map(withinBound, ([chunk, ended]) => Option.some([chunk, ended]))
      )
    })
  )

/** Runs a stream to its end (or its last element) under the idle timeout; see `withinIdle`. */
export const drainWithinIdle = <A>(
  self: Stream.Stream<A, ModelError.ModelError>,
  call: Call,
  options: IdleOptions<A>
): Effect.Effect<void, ModelError.ModelError> => Stream.runDrain(withinIdle(self, call, options))

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
  Effect.suspend(() => {
    const pieces: Array<string> = []
    return drainWithinIdle(
      boundedBytes(bytes, call, status, limit, false).pipe(
        Stream.decodeText(),
        Stream.tap((piece) => Effect.sync(() => pieces.push(piece)))
      ),
      call,
      { carries: (piece) => /\S/.test(piece), isLast: () => false, midStream: false }
    ).pipe(Effect.map(() => pieces.join("")))
  })

/** Parses JSON without throwing. */
export const parseJson = Redaction.parseJson

/**
 * Classifies an error from its facts, reading the retry hint and
 * `x-should-retry` from the headers when there are any: `true` lets the
 * table's last row make an otherwise unmatched failure transient, `false`
 * makes a transient one final for this call.
 */
export const classify = (
  call: Call,
  facts: Classification.Facts,
  context: {
    readonly headers?: Readonly<Record<string, string>> | undefined
    readonly body?: unknown
    readonly midStream?: boolean | undefined
  }
): Effect.Effect<ModelError.ModelError> =>
  Effect.gen(function* () {
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
export const fromErrorResponse = (
  response: HttpClientResponse.HttpClientResponse,
  call: Call,
  extract: (body: unknown) => Option.Option<Omit<Classification.Facts, "status">>
): Effect.Effect<ModelError.ModelError> =>
  Effect.gen(function* () {
    const read = yield* Effect.either(readText(response.stream, call, response.status, call.maxErrorBodyBytes))
    const text = read._tag === "Right" ? read.right : undefined
    const json = text === undefined ? Option.none() : parseJson(text)
    const facts = Option.flatMap(json, extract)
    // The key is scrubbed before any cut: a key split by the cut would no longer match.
    const body = Option.isSome(json) ? json.value : text === undefined ? undefined : excerpt(call, text)
    const bodyNote =
      read._tag === "Left"
        ? read.left.message
        : Option.isNone(facts)
          ? `unparseable body: ${excerpt(call, text ?? "", 200)}`
          : undefined
    return yield* classify(
      call,
      {
        status: response.status,
        ...Option.getOrElse(facts, () => ({ message: bodyNote }))
      },
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
 * @internal
 */
export const callFor =
  (fixed: Omit<Call, "model" | "maxErrorBodyBytes" | "timeouts">, timeouts: Timeouts.Options | undefined) =>
  (model: string): Effect.Effect<Call> =>
    Effect.map(ModelProvider.CurrentCallTimeouts, (current) => ({
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
 * @internal
 */
export const configure = (
  options: CommonOptions | undefined,
  provider: {
    readonly name: string
    readonly keyVariable: string
    readonly baseUrlVariable: string
    readonly defaultBaseUrl: string
    readonly table: ReadonlyArray<Classification.Rule>
  }
) =>
  Effect.gen(function* () {
    const transport = yield* Transport.Transport
    const apiKey = options?.apiKey ?? (yield* Config.redacted(provider.keyVariable))
    const baseUrl = (
      options?.baseUrl ??
      (yield* Config.string(provider.baseUrlVariable).pipe(Config.withDefault(provider.defaultBaseUrl)))
    ).replace(/\/+$/, "")
    const name = options?.name ?? provider.name
    const callOf = callFor(
      {
        provider: name,
        secret: apiKey,
        table: provider.table,
        maxBodyBytes: options?.maxBodyBytes ?? 32 * 1024 * 1024
      },
      options?.timeouts
    )
    return { transport, apiKey, baseUrl, name, stream: options?.stream ?? true, callOf }
  })
