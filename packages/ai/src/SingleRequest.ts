/**
 * One HTTP request per kernel attempt: the guard that keeps the kernel the
 * only retry layer when an effect/ai `LanguageModel` runs under it.
 *
 * An effect/ai 4.1 provider client sends one request per call (the 4.0
 * Anthropic and OpenAI clients add no retry of their own), but retries are
 * added around it, and each would multiply the kernel's retries and ignore
 * its budget, its retry-after floor and its rule that auth and quota errors
 * are never retried:
 * - an `HttpClient.retryTransient` (or any `HttpClient.retry`) as the
 *   client's transform, which re-sends 408, 429, 5xx and transport failures;
 * - an `ExecutionPlan` with `attempts` around the call
 *   (`Effect.withExecutionPlan`, `Stream.withExecutionPlan`);
 * - `LanguageModel` itself, which re-sends a request with the full prompt
 *   when a provider rejects an incremental one (with a `ResponseIdTracker`
 *   in context).
 *
 * Build the client on `SingleRequest.layer` (the `HttpClient` in context,
 * wrapped) and, inside a call of the adapter, a second request is never
 * sent: it dies with `ResendBlocked`, which no retry combinator catches, and
 * the adapter answers with the classified failure of the first request,
 * which the guard recorded. Outside the adapter the client is unchanged.
 *
 * @since 0.1.0
 */
import { Redaction } from "@agent-kernel/providers"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import type * as AiErrors from "./AiErrors.js"
import * as Errors from "./internal/errors.js"

/**
 * The state of one kernel attempt: how many requests it sent and how the
 * first one failed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Attempt {
  readonly sent: Ref.Ref<number>
  readonly firstFailure: Ref.Ref<Option.Option<AiErrors.Failure>>
  /** The credentials the request carried, so that an error echoing them can be redacted. */
  readonly credentials: Ref.Ref<ReadonlyArray<Redacted.Redacted<string>>>
}

/**
 * The attempt in progress, set by the adapter around each call; none
 * outside it.
 *
 * @since 0.1.0
 * @category references
 */
export const CurrentAttempt: Context.Reference<Attempt | undefined> = Context.Reference<Attempt | undefined>(
  "@agent-kernel/ai/SingleRequest/CurrentAttempt",
  { defaultValue: () => undefined }
)

/**
 * A second request within one attempt, stopped before it was sent. A
 * defect, so that no retry combinator above the client catches it.
 *
 * @since 0.1.0
 * @category errors
 */
export class ResendBlocked extends Data.TaggedError("ResendBlocked")<{
  readonly method: string
  readonly url: string
}> {
  /** @since 0.1.0 */
  override get message(): string {
    return `a retry layer above the HttpClient tried to send ${this.method} ${this.url} again within one kernel attempt`
  }
}

/**
 * Whether a defect is the guard's.
 *
 * @since 0.1.0
 * @category guards
 */
export const isResendBlocked = (u: unknown): u is ResendBlocked => u instanceof ResendBlocked

/**
 * A fresh attempt.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeAttempt: Effect.Effect<Attempt> = Effect.map(
  Effect.all([
    Ref.make(0),
    Ref.make(Option.none<AiErrors.Failure>()),
    Ref.make<ReadonlyArray<Redacted.Redacted<string>>>([])
  ]),
  ([sent, firstFailure, credentials]) => ({ sent, firstFailure, credentials })
)

/**
 * The most of an error body the guard reads (as the kernel's providers cap
 * theirs): a hostile server cannot make the guard buffer without bound.
 */
const maxErrorBodyBytes = 1024 * 1024

const concatBytes = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => {
  const bytes = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.length, 0))
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.length
  }
  return bytes
}

/** Up to `limit` bytes of a body; none when it could not be read. */
const readCapped = (response: HttpClientResponse.HttpClientResponse, limit: number) =>
  response.stream.pipe(
    Stream.mapAccum(
      () => 0,
      (size, chunk: Uint8Array) => {
        const kept = chunk.subarray(0, Math.max(0, limit - size))
        return [size + kept.length, [{ kept, full: size + kept.length >= limit }]] as const
      }
    ),
    Stream.takeUntil((read) => read.full),
    Stream.runCollect,
    Effect.map((reads) => concatBytes(reads.map((read) => read.kept))),
    Effect.option
  )

/**
 * Records an error response, reading at most `maxErrorBodyBytes` of its
 * body, and hands the client above a response over the bytes read (the
 * original body is consumed).
 */
const recordResponse = (attempt: Attempt, response: HttpClientResponse.HttpClientResponse) =>
  Effect.gen(function* () {
    const bytes = yield* readCapped(response, maxErrorBodyBytes)
    const text = Option.map(bytes, (read) => new TextDecoder().decode(read))
    yield* Ref.set(
      attempt.firstFailure,
      Option.some<AiErrors.Failure>({
        _tag: "Http",
        status: response.status,
        headers: Redaction.keptHeaders(response.headers),
        body: Option.match(text, { onNone: () => undefined, onSome: Redaction.bodyOfText })
      })
    )
    const replayed = Option.flatMap(bytes, (read) =>
      Option.liftThrowable(
        () =>
          new Response(read.length === 0 ? null : new Uint8Array(read), {
            status: response.status,
            headers: response.headers
          })
      )()
    )
    return Option.match(replayed, {
      onNone: () => response,
      onSome: (web) => HttpClientResponse.fromWeb(response.request, web)
    })
  })

const recordError = (attempt: Attempt, error: HttpClientError.HttpClientError) => {
  const reason = error.reason
  switch (reason._tag) {
    case "TransportError":
    case "EncodeError":
    case "InvalidUrlError":
      return Ref.set(
        attempt.firstFailure,
        Option.some<AiErrors.Failure>({
          _tag: "Transport",
          reason: reason._tag,
          description: reason.description,
          code: Errors.codeOf(reason.cause),
          timedOut: Errors.timedOutOf(reason.cause)
        })
      )
    default:
      return Effect.void
  }
}

const sendFirst = (
  attempt: Attempt,
  effect: Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>,
  headers: Readonly<Record<string, string>>
) =>
  Ref.set(
    attempt.credentials,
    Errors.credentialsOf(headers).map((value) => Redacted.make(value))
  ).pipe(
    Effect.andThen(effect),
    Effect.tapError((error) => recordError(attempt, error)),
    Effect.flatMap((response) =>
      response.status >= 200 && response.status < 300 ? Effect.succeed(response) : recordResponse(attempt, response)
    )
  )

/**
 * Wraps a client: within an attempt, the first request goes out (its
 * credentials and its failure are recorded; an error body is read once,
 * at most 1 MiB of it, and the client above reads the same bytes), and any
 * further one dies with `ResendBlocked`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const guard = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transform(client, (effect, request) =>
    Effect.flatMap(CurrentAttempt, (attempt) => {
      if (attempt === undefined) return effect
      return Effect.flatMap(
        Ref.getAndUpdate(attempt.sent, (sent) => sent + 1),
        (sent) =>
          sent > 0
            ? Effect.die(new ResendBlocked({ method: request.method, url: request.url }))
            : sendFirst(attempt, effect, request.headers)
      )
    })
  )

/**
 * What the adapter is told about the effect/ai client it wraps.
 *
 * @since 0.3.0
 * @category models
 */
export interface Service {
  /**
   * Whether the client sends HTTP requests through a guarded `HttpClient`.
   * When it does, an adapter call whose answer or HTTP error arrived while
   * no request passed the guard is refused: the client was built on
   * another `HttpClient`, and its retries would go unseen.
   */
  readonly sendsHttp: boolean
}

/**
 * The adapter's proof that the client it wraps was built on `layer` (or
 * sends no HTTP at all: `layerNoHttp`). `LanguageModelProvider.make` and
 * `layer` require it, so forgetting the guard is a type error, not a
 * silent second retry layer.
 *
 * @since 0.3.0
 * @category services
 */
export class Guarded extends Context.Service<Guarded, Service>()("@agent-kernel/ai/SingleRequest/Guarded") {}

/**
 * The `HttpClient` in context, guarded, and the `Guarded` proof the
 * adapter requires. Provide it under the client's layer, over the
 * platform's client, and to the adapter's layer (`Layer.provideMerge` keeps
 * both outputs).
 *
 * @example
 * ```ts
 * import { SingleRequest } from "@agent-kernel/ai"
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * // The HttpClient an effect/ai client is built on, guarded, with the proof the adapter requires.
 * const guarded = SingleRequest.layer.pipe(Layer.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<HttpClient.HttpClient | Guarded, never, HttpClient.HttpClient> = Layer.merge(
  Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, guard)),
  Layer.succeed(Guarded, { sendsHttp: true })
)

/**
 * The proof for a `LanguageModel` that sends no HTTP (one in memory, a test
 * double): there is no request to guard. A model that does send HTTP must
 * use `layer` instead; one given this proof retries unseen.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerNoHttp: Layer.Layer<Guarded> = Layer.succeed(Guarded, { sendsHttp: false })
