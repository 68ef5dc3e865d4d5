/**
 * OpenAI Chat Completions wire shapes, decoded with Schema, and the pure
 * decoder of its responses (JSON bodies and SSE streams).
 *
 * @internal
 */
import type { ModelProvider, ResponsePart, Usage as TokenUsage } from "@agent-kernel/kernel"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Decode from "./decode.js"

const OptionalString = Schema.optional(Schema.NullOr(Schema.String))

export const ToolCall = Schema.Struct({
  // Some compatible servers leave it out; the kernel gives every call a unique id before tools run.
  id: OptionalString,
  type: Schema.optional(Schema.String),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})

export const Usage = Schema.Struct({
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.Number,
  prompt_tokens_details: Schema.optional(
    Schema.NullOr(Schema.Struct({ cached_tokens: Schema.optional(Schema.NullOr(Schema.Number)) }))
  )
})
export type Usage = typeof Usage.Type

export const Completion = Schema.Struct({
  model: Schema.optional(Schema.String),
  choices: Schema.NonEmptyArray(
    Schema.Struct({
      message: Schema.Struct({
        content: OptionalString,
        refusal: OptionalString,
        tool_calls: Schema.optional(Schema.NullOr(Schema.Array(ToolCall)))
      }),
      finish_reason: OptionalString
    })
  ),
  usage: Schema.optional(Schema.NullOr(Usage))
})

export const DeltaToolCall = Schema.Struct({
  index: Schema.Number,
  id: OptionalString,
  function: Schema.optional(Schema.Struct({ name: OptionalString, arguments: OptionalString }))
})

export const Chunk = Schema.Struct({
  model: Schema.optional(Schema.String),
  // Absent in the keep-alive chunks (`data: {}`) some compatible servers send: such a chunk carries nothing.
  choices: Schema.optional(
    Schema.Array(
      Schema.Struct({
        delta: Schema.optional(
          Schema.NullOr(
            Schema.Struct({
              content: OptionalString,
              refusal: OptionalString,
              tool_calls: Schema.optional(Schema.NullOr(Schema.Array(DeltaToolCall)))
            })
          )
        ),
        finish_reason: OptionalString
      })
    )
  ),
  usage: Schema.optional(Schema.NullOr(Usage))
})
export type Chunk = typeof Chunk.Type

export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    message: OptionalString,
    type: OptionalString,
    code: Schema.optional(Schema.NullOr(Schema.Union([Schema.String, Schema.Number]))),
    /** Azure OpenAI: the content filter's verdict (`ResponsibleAIPolicyViolation`). */
    innererror: Schema.optional(Schema.NullOr(Schema.Struct({ code: OptionalString })))
  })
})

// ---------------------------------------------------------------------------
// Decoding: pure, over the schemas above.

const decodeErrorBody = Schema.decodeUnknownOption(Decode.compiled(ErrorBody))
const decodeCompletion = Schema.decodeUnknownResult(Decode.compiled(Completion))
const decodeChunk = Schema.decodeUnknownResult(Decode.compiled(Chunk))

/** The facts of an error object (`{error: {message, type, code, innererror?: {code}}}`). */
export const errorFacts = (body: unknown): Option.Option<Decode.ErrorFacts> =>
  // Every stream chunk is asked: only an object with an `error` key can be one, and most chunks are not.
  Predicate.hasProperty(body, "error")
    ? Option.map(decodeErrorBody(body), ({ error }) => ({
        type: error.type ?? undefined,
        code: error.code === null || error.code === undefined ? undefined : String(error.code),
        innerCode: error.innererror?.code ?? undefined,
        message: error.message ?? undefined
      }))
    : Option.none()

/** `input_tokens` excludes cached prompt tokens, which are reported as `cache_read_tokens`, as Anthropic does. */
const usageOf = (usage: Usage | null | undefined): TokenUsage.Usage => {
  if (usage == null) return { input_tokens: 0, output_tokens: 0 }
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0
  return {
    input_tokens: Math.max(0, usage.prompt_tokens - cached),
    output_tokens: usage.completion_tokens,
    ...(cached > 0 ? { cache_read_tokens: cached } : {})
  }
}

const stopOf = (finish: string | null | undefined, hasToolCalls: boolean): ModelProvider.StopReason => {
  switch (finish) {
    case "stop":
      return "end_turn"
    case "length":
      return "max_tokens"
    case "tool_calls":
    case "function_call":
      return "tool_use"
    case "content_filter":
      return "content_filtered"
    default:
      return hasToolCalls ? "tool_use" : "end_turn"
  }
}

/** Block positions: the text at 0, a refusal at 1, tool call k at 2 + k. */
const textIndex = 0
const refusalIndex = 1
const toolIndex = (k: number): number => 2 + k

/**
 * A complete Chat Completions response, as the parts a stream of it would
 * make (tool arguments as raw JSON text: the kernel's accumulator parses
 * them, and keeps arguments that are not JSON as `invalid_input`).
 */
export const message = (
  json: unknown,
  model: string
): Result.Result<ReadonlyArray<ResponsePart.ResponsePart>, Decode.Failure> =>
  Result.match(decodeCompletion(json), {
    onFailure: (error) => Result.fail({ _tag: "Malformed", reason: `unexpected shape: ${error.message}` }),
    onSuccess: (completion) => {
      const choice = completion.choices[0]
      const text = choice.message.content ?? ""
      const refusal = choice.message.refusal ?? ""
      const calls = choice.message.tool_calls ?? []
      const parts: Array<ResponsePart.ResponsePart> = []
      if (text.length > 0) parts.push({ type: "text_delta", index: textIndex, text })
      if (refusal.length > 0) parts.push({ type: "text_delta", index: refusalIndex, text: refusal })
      calls.forEach((call, k) => {
        parts.push({ type: "tool_use_start", index: toolIndex(k), id: call.id ?? "", name: call.function.name })
        parts.push({ type: "tool_input_delta", index: toolIndex(k), json: call.function.arguments })
      })
      const stop = refusal.length > 0 ? "content_filtered" : stopOf(choice.finish_reason, calls.length > 0)
      parts.push({ type: "usage", usage: usageOf(completion.usage) })
      parts.push({ type: "finish", stop_reason: stop, model: completion.model ?? model })
      return Result.succeed(parts)
    }
  })

/** A tool call being streamed: started (its `tool_use_start` emitted) once its name is known. */
interface StreamedCall {
  readonly id: string
  readonly name: string
  /** Arguments that arrived before the name, held until the call starts. */
  readonly pending: string
  readonly started: boolean
}

/** What a stream has said so far. */
export interface StreamState {
  readonly model: string
  readonly refused: boolean
  readonly tools: ReadonlyMap<number, StreamedCall>
  readonly finish: string | null | undefined
  readonly usage: Usage | null | undefined
  readonly done: boolean
}

/** One tool call fragment: the call's new state and the parts it makes. */
const toolPart = (
  current: StreamedCall | undefined,
  part: typeof DeltaToolCall.Type
): readonly [StreamedCall, ReadonlyArray<ResponsePart.ResponsePart>] => {
  const call = current ?? { id: "", name: "", pending: "", started: false }
  const id = call.id.length > 0 ? call.id : (part.id ?? "")
  const args = part.function?.arguments ?? ""
  const index = toolIndex(part.index)
  if (call.started) {
    return [{ ...call, id }, args.length > 0 ? [{ type: "tool_input_delta", index, json: args }] : []]
  }
  const name = call.name + (part.function?.name ?? "")
  const pending = call.pending + args
  if (name.length === 0) return [{ id, name, pending, started: false }, []]
  return [
    { id, name, pending: "", started: true },
    [
      { type: "tool_use_start", index, id, name },
      ...(pending.length > 0 ? [{ type: "tool_input_delta", index, json: pending } as const] : [])
    ]
  ]
}

const usagePart = (usage: Usage): ResponsePart.ResponsePart => ({ type: "usage", usage: usageOf(usage) })

/** The end of an OpenAI stream, `data: [DONE]`. */
const doneMarker = /^\s*\[DONE\]\s*$/

const stepStream = (
  state: StreamState,
  event: Decode.Event
): Result.Result<Decode.Stepped<StreamState>, Decode.Failure> => {
  if (doneMarker.test(event.data)) return Result.succeed({ state: { ...state, done: true }, parts: [], done: true })
  if (Option.isNone(event.json)) {
    return Result.fail({ _tag: "Malformed", reason: "stream chunk is not JSON", body: event.data })
  }
  const decoded = decodeChunk(event.json.value)
  if (Result.isFailure(decoded)) {
    return Result.fail({ _tag: "Malformed", reason: `unexpected chunk: ${decoded.failure.message}`, body: event.data })
  }
  const chunk = decoded.success
  const parts: Array<ResponsePart.ResponsePart> = []
  let next: StreamState = { ...state, model: chunk.model ?? state.model }
  for (const choice of chunk.choices ?? []) {
    const delta = choice.delta
    if (delta?.content != null && delta.content.length > 0) {
      parts.push({ type: "text_delta", index: textIndex, text: delta.content })
    }
    if (delta?.refusal != null && delta.refusal.length > 0) {
      parts.push({ type: "text_delta", index: refusalIndex, text: delta.refusal })
      next = { ...next, refused: true }
    }
    for (const fragment of delta?.tool_calls ?? []) {
      const [call, made] = toolPart(next.tools.get(fragment.index), fragment)
      next = { ...next, tools: new Map(next.tools).set(fragment.index, call) }
      parts.push(...made)
    }
    if (choice.finish_reason != null) next = { ...next, finish: choice.finish_reason }
  }
  if (chunk.usage != null) {
    next = { ...next, usage: chunk.usage }
    parts.push(usagePart(chunk.usage))
  }
  return Result.succeed({ state: next, parts, done: false })
}

const finishStream = (state: StreamState): Result.Result<ReadonlyArray<ResponsePart.ResponsePart>, Decode.Failure> => {
  // Without `[DONE]` (some compatible servers omit it) a finish reason still
  // marks a complete answer. No finish reason means the answer was cut short,
  // even when `[DONE]` came (the official SDK treats that as an error too).
  if (state.finish == null) {
    return Result.fail({
      _tag: "Truncated",
      reason: state.done ? "[DONE] without a finish_reason" : "stream ended before a finish_reason"
    })
  }
  // A call whose name never came still is a call: the kernel answers it (no such tool), nothing is dropped.
  const unstarted = [...state.tools.entries()]
    .filter(([, call]) => !call.started)
    .flatMap(
      ([k, call]): ReadonlyArray<ResponsePart.ResponsePart> => [
        { type: "tool_use_start", index: toolIndex(k), id: call.id, name: call.name },
        ...(call.pending.length > 0
          ? [{ type: "tool_input_delta", index: toolIndex(k), json: call.pending } as const]
          : [])
      ]
    )
  const stop = state.refused ? "content_filtered" : stopOf(state.finish, state.tools.size > 0)
  return Result.succeed([...unstarted, { type: "finish", stop_reason: stop, model: state.model }])
}

/** The Chat Completions decoder: JSON bodies and SSE streams. */
export const decoder: Decode.Decoder<StreamState> = {
  errorFacts,
  message,
  stream: {
    initial: (model) => ({
      model,
      refused: false,
      tools: new Map(),
      finish: undefined,
      usage: undefined,
      done: false
    }),
    step: stepStream,
    finish: finishStream,
    usage: (state) => (state.usage == null ? Option.none() : Option.some(usageOf(state.usage)))
  }
}
