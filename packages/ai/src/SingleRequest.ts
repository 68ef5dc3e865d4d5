/**
 * One HTTP request per kernel attempt: the guard that keeps the kernel the
 * only retry layer.
 *
 * @effect/ai 0.37's clients do not retry by themselves, but every place a
 * retry is usually added sits above the `HttpClient` they are built on: a
 * `transformClient: HttpClient.retryTransient(...)` on `AnthropicClient` or
 * `OpenAiClient`, a per-request `AnthropicConfig.withClientTransform` /
 * `OpenAiConfig.withClientTransform`, an `ExecutionPlan` around the call.
 * Each would multiply the kernel's retries and ignore its budget, its
 * retry-after floor and its rule that auth and quota errors are never
 * retried. Build the client on `SingleRequest.layer` (the `HttpClient`
 * in context, wrapped) and, inside a call of the adapter, a second request
 * is never sent: it dies with `ResendBlocked`, which no retry combinator
 * catches, and the adapter answers with the classified failure of the first
 * request, which the guard recorded. Outside the adapter the client is
 * unchanged.
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Redaction } from "@agent-kernel/providers"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
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
export class CurrentAttempt extends Context.Reference<CurrentAttempt>()(
  "@agent-kernel/ai/SingleRequest/CurrentAttempt",
  { defaultValue: (): Attempt | undefined => undefined }
) {}

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

/** Up to `limit` bytes of a body, and whether there was more. */
const readCapped = (response: HttpClientResponse.HttpClientResponse, limit: number) =>
  response.stream.pipe(
    Stream.runFoldWhile(
      { chunks: Chunk.empty<Uint8Array>(), size: 0, cut: false },
      (read) => !read.cut,
      (read, chunk: Uint8Array) => {
        const room = limit - read.size
        return chunk.length > room
          ? { chunks: Chunk.append(read.chunks, chunk.subarray(0, room)), size: limit, cut: true }
          : { chunks: Chunk.append(read.chunks, chunk), size: read.size + chunk.length, cut: false }
      }
    ),
    Effect.map((read) => {
      const bytes = new Uint8Array(read.size)
      let offset = 0
      for (const chunk of read.chunks) {
        bytes.set(chunk, offset)
        offset += chunk.length
      }
      return bytes
    }),
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
        () => new Response(read.length === 0 ? null : read, { status: response.status, headers: response.headers })
      )()
    )
    return Option.match(replayed, {
      onNone: () => response,
      onSome: (web) => HttpClientResponse.fromWeb(response.request, web)
    })
  })

const recordError = (attempt: Attempt, error: HttpClientError.HttpClientError) =>
  error._tag === "RequestError"
    ? Ref.set(
        attempt.firstFailure,
        Option.some<AiErrors.Failure>({
          _tag: "Transport",
          reason: error.reason,
          description: error.description,
          code: Errors.codeOf(error.cause)
        })
      )
    : Effect.void

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
            : Ref.set(attempt.credentials, Errors.credentialsOf(request.headers).map(Redacted.make)).pipe(
                Effect.zipRight(effect),
                Effect.tapError((error) => recordError(attempt, error)),
                Effect.flatMap((response) =>
                  response.status >= 200 && response.status < 300
                    ? Effect.succeed(response)
                    : recordResponse(attempt, response)
                )
              )
      )
    })
  )

/**
 * What the adapter is told about the @effect/ai client it wraps.
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
 * @category tags
 */
export class Guarded extends Context.Tag("@agent-kernel/ai/SingleRequest/Guarded")<Guarded, Service>() {}

/**
 * The `HttpClient` in context, guarded, and the `Guarded` proof the
 * adapter requires. Provide it under the @effect/ai client's layer, over the
 * platform's client, and to the adapter's layer (`Layer.provideMerge` keeps
 * both outputs).
 *
 * @example
 * ```ts
 * import { SingleRequest } from "@agent-kernel/ai"
 * import { AnthropicClient } from "@effect/ai-anthropic"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Layer } from "effect"
 *
 * const guarded = SingleRequest.layer.pipe(Layer.provide(NodeHttpClient.layerUndici))
 * // The client sends through the guard; the adapter's layer gets the proof too.
 * const client = AnthropicClient.layerConfig({}).pipe(Layer.provideMerge(guarded))
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
