/**
 * Decoding a response body, the same for every provider: a thin effectful
 * shell (bounded reads, SSE framing, the idle timeout, classification) around
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
import * as Sse from "@effect/experimental/Sse"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type { ModelError, ModelProvider, ResponsePart } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
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
      readonly usage: ModelProvider.Usage
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
  readonly step: (state: S, event: Event) => Either.Either<Stepped<S>, Failure>
  /** At the end of the stream: the closing parts (the last usage, `finish`), or why the response is incomplete. */
  readonly finish: (state: S) => Either.Either<ReadonlyArray<ResponsePart.ResponsePart>, Failure>
  /** The usage the stream reported so far, if any. */
  readonly usage: (state: S) => Option.Option<ModelProvider.Usage>
}

/** How one provider reads its wire format. */
export interface Decoder<S> {
  /** The facts of the provider's error object, when a JSON value is one. */
  readonly errorFacts: (json: unknown) => Option.Option<ErrorFacts>
  /** A complete non-streaming body, as the parts a stream of it would make. */
  readonly message: (json: unknown, model: string) => Either.Either<ReadonlyArray<ResponsePart.ResponsePart>, Failure>
  readonly stream: StreamDecoder<S>
}

/** What decoding needs of the response besides its body. */
export interface Head {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

/** An error event that is not the provider's error object: the fields at the top level. */
const FlatError = Schema.Struct({
  type: Schema.String,
  message: Schema.optional(Schema.String),
  code: Schema.optional(Schema.Union(Schema.String, Schema.Number))
})

const decodeFlatError = Schema.decodeUnknownOption(FlatError)

/** Steps a decoder by one continuing event: a keep-alive, an error event, or the decoder's own step. */
export const stepEvent = <S>(decoder: Decoder<S>, state: S, event: Sse.Event): Either.Either<Stepped<S>, Failure> => {
  // An event with empty data (`data:` alone) is a keep-alive: it carries nothing.
  if (event.data.trim().length === 0) return Either.right({ state, parts: [], done: false })
  const json = Http.parseJson(event.data)
  const facts = Option.flatMap(json, decoder.errorFacts)
  if (Option.isSome(facts)) {
    return Either.left({ _tag: "ErrorObject", facts: facts.value, body: Option.getOrElse(json, () => event.data) })
  }
  if (event.event === "error") {
    // A flat `event: error` ({"type": "overloaded_error", "message": ...}) carries its type at the top.
    const flat = Option.flatMap(json, decodeFlatError)
    return Either.left({
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
): Either.Either<ReadonlyArray<ResponsePart.ResponsePart>, Failure> => {
  const json = Http.parseJson(text)
  if (Option.isNone(json)) return Either.left({ _tag: "Malformed", reason: "not JSON", body: text })
  // Some servers answer 200 with an error object: classified like any error, by its type and code.
  const facts = decoder.errorFacts(json.value)
  if (Option.isSome(facts)) return Either.left({ _tag: "ErrorObject", facts: facts.value, body: json.value })
  return Either.mapLeft(decoder.message(json.value, model), (failure) =>
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
  decoded: Either.Either<A, Failure>,
  midStream: boolean
): Effect.Effect<A, ModelError.ModelError> =>
  Either.match(decoded, {
    onLeft: (failure) => Effect.flatMap(toError(call, head, failure, midStream), Effect.fail),
    onRight: Effect.succeed
  })

/** Where line splitting stands between two chunks of text. */
export interface Lines {
  /** The incomplete last line so far. */
  readonly partial: string
  /** The previous chunk ended with a CR, so a LF opening the next one belongs to that CRLF. */
  readonly afterCr: boolean
}

/** Before the first chunk. */
export const noLines: Lines = { partial: "", afterCr: false }

/**
 * Splits the next chunk of text into complete lines, whatever their ending
 * (LF, CRLF or a lone CR, all legal in SSE), a CRLF split across two chunks
 * included. The incomplete last line is carried over.
 */
export const splitLines = (lines: Lines, piece: string): readonly [Lines, ReadonlyArray<string>] => {
  const text = lines.partial + (lines.afterCr && piece.startsWith("\n") ? piece.slice(1) : piece)
  const complete = text.replace(/\r\n?/g, "\n").split("\n")
  const partial = complete.pop() ?? ""
  return [{ partial, afterCr: piece.length > 0 ? piece.endsWith("\r") : lines.afterCr }, complete]
}

/**
 * Frames text as server-sent events, failing when one event (or one line)
 * outgrows the body limit.
 *
 * The parser is fed one LF-terminated line at a time. Given a whole chunk, it
 * rescans the chunk from its start for every line: a CR anywhere earlier in
 * the chunk then marks the next LF as the end of a CRLF and swallows the blank
 * line that ends an event, so framing would depend on where the chunks were
 * cut (the fuzz test found it), and the rescans cost time quadratic in the
 * chunk's lines.
 */
const sseEvents = (
  call: Http.Call,
  head: Head,
  text: Stream.Stream<string, ModelError.ModelError>
): Stream.Stream<Sse.Event, ModelError.ModelError> =>
  Stream.suspend(() => {
    let pending: Array<Sse.Event> = []
    const parser = Sse.makeParser(
      (event) => {
        if (event._tag === "Event") pending.push(event)
      },
      { maxEventSize: call.maxBodyBytes }
    )
    const tooLarge = Effect.fail(Http.tooLarge(call, head.status, call.maxBodyBytes, true))
    return text.pipe(
      Stream.mapAccumEffect(noLines, (lines, piece) => {
        const [next, complete] = splitLines(lines, piece)
        if (next.partial.length > call.maxBodyBytes) return tooLarge
        for (const line of complete) {
          if (parser.feed(`${line}\n`) !== undefined) return tooLarge
        }
        const out = pending
        pending = []
        return Effect.succeed([next, out] as const)
      }),
      Stream.flattenIterables
    )
  })

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
  Stream.unwrap(
    Effect.map(Ref.make(decoder.stream.initial(call.model)), (state) => {
      const handle = (event: Sse.Event) =>
        Effect.flatMap(
          Ref.modify(state, (current) => {
            const stepped = stepEvent(decoder, current, event)
            return [stepped, Either.isRight(stepped) ? stepped.right.state : current] as const
          }),
          (stepped) => orFail(call, head, stepped, true)
        )
      const text = Http.boundedBytes(bytes, call, head.status, call.maxBodyBytes, true).pipe(Stream.decodeText())
      // Only events that add parts restart the idle timer: a server that sends pings forever is cut at the bound.
      const events = Http.withinIdle(sseEvents(call, head, text).pipe(Stream.mapEffect(handle)), call, {
        carries: (stepped) => stepped.parts.length > 0,
        isLast: (stepped) => stepped.done,
        midStream: true
      })
      const closing = Stream.fromIterableEffect(
        Effect.flatMap(Ref.get(state), (reached) => orFail(call, head, decoder.stream.finish(reached), true))
      )
      return Stream.concat(
        Stream.mapConcat(events, (stepped) => stepped.parts),
        closing
      ).pipe(
        // A failed stream still cost the tokens it reported: the error carries them.
        Stream.catchAll((error) =>
          Stream.fromEffect(
            Effect.flatMap(Ref.get(state), (reached) =>
              Effect.fail(
                Option.match(decoder.stream.usage(reached), {
                  onNone: () => error,
                  onSome: (usage) => Http.withUsage(call, error, usage)
                })
              )
            )
          )
        )
      )
    })
  )

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
