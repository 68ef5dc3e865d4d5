/**
 * Decoding a response body, the same for every provider: a thin effectful
 * shell (bounded reads, SSE framing with `effect/encoding`'s `Sse` parser, the
 * idle timeout, classification) around
 * each provider's pure decoder, which says what every event means as
 * response parts. A body becomes a stream of `ResponsePart`s, emitted as the
 * events arrive.
 *
 * A provider's decoder never fails with a `ModelError` itself: it returns a
 * `Failure`, a plain description of what went wrong, which the shell turns
 * into a classified, secret-free error.
 *
 * @internal
 */
import type { ModelError, ResponsePart, Usage } from "@agent-kernel/kernel"
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Sse from "effect/encoding/Sse"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import * as Stream from "effect/Stream"
import type * as Classification from "../Classification.js"
import * as Http from "./http.js"

/** The error facts of an error object, without the status (the shell adds it). */
export type ErrorFacts = Omit<Classification.Facts, "status">

/** Why a body did not decode to a response: a plain description, classified by the shell. */
export type Failure =
  /** Not JSON, or not the expected shape. */
  | { readonly _tag: "Malformed"; readonly reason: string; readonly body?: string | undefined }
  /** The provider's error object where a response (or an event) was expected. */
  | { readonly _tag: "ErrorObject"; readonly facts: ErrorFacts; readonly body: unknown }
  /** The stream ended before the message was complete (no terminal event, or a terminal event without a stop reason). */
  | { readonly _tag: "Truncated"; readonly reason: string }
  /** A complete response that still fails (Anthropic `model_context_window_exceeded`). */
  | {
      readonly _tag: "Rejected"
      readonly category: ModelError.Category
      readonly message: string
      readonly details: Record<string, unknown>
      readonly promptTokens?: number | undefined
      readonly usage: Usage.Usage
    }

/** One SSE event handed to a provider's decoder, its data parsed when it is JSON. */
export interface Event {
  readonly name: string
  readonly data: string
  readonly json: Option.Option<unknown>
}

/** The decoder's answer to one event. */
export interface Stepped<S> {
  readonly state: S
  /**
   * The parts the event adds to the response. An event that adds none
   * carried nothing (a ping, an empty block, a repeated report): it never
   * restarts the idle timer.
   */
  readonly parts: ReadonlyArray<ResponsePart.ResponsePart>
  /** The terminal event: stop reading. */
  readonly done: boolean
}

/** A provider's pure stream decoder: a fold over events that emits the response's parts. */
export interface StreamDecoder<S> {
  readonly initial: (model: string) => S
  readonly step: (state: S, event: Event) => Result.Result<Stepped<S>, Failure>
  /** At the end of the stream: the closing parts (the last usage, `finish`), or why the response is incomplete. */
  readonly finish: (state: S) => Result.Result<ReadonlyArray<ResponsePart.ResponsePart>, Failure>
  /** The usage the stream reported so far, if any. */
  readonly usage: (state: S) => Option.Option<Usage.Usage>
}

/** How one provider reads its wire format. */
export interface Decoder<S> {
  /** The facts of the provider's error object, when a JSON value is one. */
  readonly errorFacts: (json: unknown) => Option.Option<ErrorFacts>
  /** A complete non-streaming body, as the parts a stream of it would make. */
  readonly message: (json: unknown, model: string) => Result.Result<ReadonlyArray<ResponsePart.ResponsePart>, Failure>
  readonly stream: StreamDecoder<S>
}

/** What decoding needs of the response besides its body. */
export interface Head {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

/**
 * A wire schema whose decoder Effect compiles once, on its first use, to
 * plain JavaScript (the interpreter where code generation is not allowed):
 * a stream decodes every one of its events with it.
 */
export const compiled = <S extends Schema.Top>(schema: S): S => {
  SchemaJITCompiler.enable(schema.ast)
  return schema
}

/** An error event that is not the provider's error object: the fields at the top level. */
const FlatError = Schema.Struct({
  type: Schema.String,
  message: Schema.optional(Schema.String),
  code: Schema.optional(Schema.Union([Schema.String, Schema.Number]))
})

const decodeFlatError = Schema.decodeUnknownOption(compiled(FlatError))

const keptAlive = <S>(state: S): Result.Result<Stepped<S>, Failure> => Result.succeed({ state, parts: [], done: false })

/** Steps a decoder by one continuing event: a keep-alive, an error event, or the decoder's own step. */
export const stepEvent = <S>(decoder: Decoder<S>, state: S, event: Sse.Event): Result.Result<Stepped<S>, Failure> => {
  // An event with empty data (`data:` alone) is a keep-alive: it carries nothing.
  if (!Http.hasContent(event.data)) return keptAlive(state)
  const json = Http.parseJson(event.data)
  const facts = Option.flatMap(json, decoder.errorFacts)
  if (Option.isSome(facts)) {
    return Result.fail({ _tag: "ErrorObject", facts: facts.value, body: Option.getOrElse(json, () => event.data) })
  }
  if (event.event === "error") {
    // A flat `event: error` ({"type": "overloaded_error", "message": ...}) carries its type at the top.
    const flat = Option.flatMap(json, decodeFlatError)
    return Result.fail({
      _tag: "ErrorObject",
      facts: Option.match(flat, {
        onNone: () => ({ message: event.data }),
        onSome: (error) => ({
          type: error.type,
          message: error.message,
          code: error.code === undefined ? undefined : String(error.code)
        })
      }),
      body: Option.getOrElse(json, () => event.data)
    })
  }
  return decoder.stream.step(state, { name: event.event, data: event.data, json })
}

/** Decodes a complete JSON body: not JSON, an error object, or the provider's message. */
export const decodeJson = <S>(
  decoder: Decoder<S>,
  text: string,
  model: string
): Result.Result<ReadonlyArray<ResponsePart.ResponsePart>, Failure> => {
  const json = Http.parseJson(text)
  if (Option.isNone(json)) return Result.fail({ _tag: "Malformed", reason: "not JSON", body: text })
  // Some servers answer 200 with an error object: classified like any error, by its type and code.
  const facts = decoder.errorFacts(json.value)
  if (Option.isSome(facts)) return Result.fail({ _tag: "ErrorObject", facts: facts.value, body: json.value })
  return Result.mapError(decoder.message(json.value, model), (failure) =>
    failure._tag === "Malformed" && failure.body === undefined ? { ...failure, body: text } : failure
  )
}

/** Turns a decoding failure into a classified error. */
const toError = (
  call: Http.Call,
  head: Head,
  failure: Failure,
  midStream: boolean
): Effect.Effect<ModelError.ModelError> => {
  switch (failure._tag) {
    case "Malformed":
      return Effect.succeed(
        Http.malformed(call, head.status, failure.reason, {
          midStream,
          ...(failure.body !== undefined ? { body: failure.body } : {})
        })
      )
    case "ErrorObject":
      // Inside a stream the error has no status of its own: the 200 belongs to the stream.
      return Http.classify(call, midStream ? failure.facts : { status: head.status, ...failure.facts }, {
        headers: head.headers,
        body: failure.body,
        midStream
      })
    case "Truncated":
      // The connection ended cleanly but the message did not: to the caller that is a cut
      // connection, transient like a reset, and the whole request is sent again.
      return Effect.succeed(
        Http.makeError(call, "connection_error", {
          message: `stream cut short: ${failure.reason}`,
          midStream: true,
          details: { reason: "truncated" }
        })
      )
    case "Rejected":
      return Effect.succeed(
        Http.makeError(call, failure.category, {
          message: failure.message,
          details: failure.details,
          promptTokens: failure.promptTokens,
          usage: failure.usage
        })
      )
  }
}

const orFail = <A>(
  call: Http.Call,
  head: Head,
  decoded: Result.Result<A, Failure>,
  midStream: boolean
): Effect.Effect<A, ModelError.ModelError> =>
  Result.isSuccess(decoded)
    ? Effect.succeed(decoded.success)
    : Effect.flatMap(toError(call, head, decoded.failure, midStream), Effect.fail)

/** What a run of events made: the decoder's state after them, their parts, and whether reading is over. */
export interface Stepping<S> {
  readonly state: S
  readonly parts: Array<ResponsePart.ResponsePart>
  /** The terminal event came: nothing after it is read. */
  readonly done: boolean
  /** The event that failed the response, after the parts of the events before it. */
  readonly failure: Failure | undefined
}

/** Steps a decoder through a run of events, up to the terminal event or the first failure. */
export const stepEvents = <S>(decoder: Decoder<S>, state: S, events: ReadonlyArray<Sse.Event>): Stepping<S> => {
  const parts: Array<ResponsePart.ResponsePart> = []
  let current = state
  for (const event of events) {
    const stepped = stepEvent(decoder, current, event)
    if (Result.isFailure(stepped)) return { state: current, parts, done: false, failure: stepped.failure }
    current = stepped.success.state
    for (const part of stepped.success.parts) parts.push(part)
    if (stepped.success.done) return { state: current, parts, done: true, failure: undefined }
  }
  return { state: current, parts, done: false, failure: undefined }
}

/** The SSE parser of one body, and the events it framed since they were last taken. */
interface Framing {
  readonly parser: Sse.Parser
  readonly events: Array<Sse.Event>
}

const framing = (maxEventSize: number): Framing => {
  const events: Array<Sse.Event> = []
  // A `retry:` directive is for browsers reconnecting an EventSource: it carries nothing here.
  const parser = Sse.makeParser(
    (event) => {
      if (event._tag === "Event") events.push(event)
    },
    { maxEventSize }
  )
  return { parser, events }
}

/**
 * A body's server-sent events, framed by `effect/encoding`'s parser (LF,
 * CRLF or a lone CR, wherever the network cut the chunks), failing when the
 * body or one event outgrows the body limit.
 */
const sseEvents = (
  call: Http.Call,
  head: Head,
  bytes: Stream.Stream<Uint8Array, HttpClientError.HttpClientError>
): Stream.Stream<Sse.Event, ModelError.ModelError> =>
  Http.boundedText(bytes, call, head.status, call.maxBodyBytes, true).pipe(
    Stream.mapAccumArrayEffect(
      () => framing(call.maxBodyBytes),
      (state, pieces) => {
        for (const piece of pieces) {
          if (state.parser.feed(piece) !== undefined) {
            return Effect.fail(Http.tooLarge(call, head.status, call.maxBodyBytes, true))
          }
        }
        return Effect.succeed([state, state.events.splice(0)] as const)
      }
    )
  )

const fromJson = <S>(
  call: Http.Call,
  head: Head,
  bytes: Stream.Stream<Uint8Array, HttpClientError.HttpClientError>,
  decoder: Decoder<S>
): Stream.Stream<ResponsePart.ResponsePart, ModelError.ModelError> =>
  Stream.fromIterableEffect(
    Effect.flatMap(Http.readText(bytes, call, head.status), (text) =>
      orFail(call, head, decodeJson(decoder, text, call.model), false)
    )
  )

const fromStream = <S>(
  call: Http.Call,
  head: Head,
  bytes: Stream.Stream<Uint8Array, HttpClientError.HttpClientError>,
  decoder: Decoder<S>
): Stream.Stream<ResponsePart.ResponsePart, ModelError.ModelError> =>
  Stream.suspend(() => {
    // The response so far, read at the end (its closing parts) and on failure (the usage it reported).
    let state = decoder.stream.initial(call.model)
    // A pull yields parts only: events that add none (pings, empty blocks) are read on, so they never
    // reach the idle timer.
    const parts = Stream.transformPull(sseEvents(call, head, bytes), (pull) => {
      let over = false
      let failed: Effect.Effect<never, ModelError.ModelError> | undefined
      const next: Effect.Effect<
        Arr.NonEmptyReadonlyArray<ResponsePart.ResponsePart>,
        ModelError.ModelError | Cause.Done
      > = Effect.suspend(() => {
        if (failed !== undefined) return failed
        if (over) return Cause.done()
        return Effect.flatMap(pull, (events) => {
          const stepping = stepEvents(decoder, state, events)
          state = stepping.state
          over = stepping.done
          if (stepping.failure !== undefined) {
            failed = Effect.flatMap(toError(call, head, stepping.failure, true), Effect.fail)
          }
          return Arr.isArrayNonEmpty(stepping.parts) ? Effect.succeed(stepping.parts) : next
        })
      })
      return Effect.succeed(next)
    })
    const closing = Stream.fromIterableEffect(
      Effect.suspend(() => orFail(call, head, decoder.stream.finish(state), true))
    )
    return Http.withinIdle(parts, call, true).pipe(
      Stream.concat(closing),
      // A failed stream still cost the tokens it reported: the error carries them.
      Stream.catch((error) =>
        Stream.fail(
          Option.match(decoder.stream.usage(state), {
            onNone: () => error,
            onSome: (usage) => Http.withUsage(call, error, usage)
          })
        )
      )
    )
  })

/**
 * Decodes a 2xx body by its content type into response parts: server-sent
 * events as they arrive, or one JSON document, whose parts come at once.
 */
export const body = <S>(
  call: Http.Call,
  head: Head,
  bytes: Stream.Stream<Uint8Array, HttpClientError.HttpClientError>,
  decoder: Decoder<S>
): Stream.Stream<ResponsePart.ResponsePart, ModelError.ModelError> =>
  (head.headers["content-type"] ?? "").includes("text/event-stream")
    ? fromStream(call, head, bytes, decoder)
    : fromJson(call, head, bytes, decoder)
