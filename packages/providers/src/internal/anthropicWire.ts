/**
 * Anthropic Messages API wire shapes, decoded with Schema, and the pure
 * decoder of its responses (JSON bodies and SSE streams).
 *
 * @internal
 */
import { type Content, type ModelProvider, ResponsePart, type Usage as TokenUsage } from "@agent-kernel/kernel"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Decode from "./decode.js"

const knownBlocks = ["text", "tool_use", "thinking", "redacted_thinking"]

export const TextBlock = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })
export const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
})
export const ThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.optional(Schema.String)
})
export const RedactedThinkingBlock = Schema.Struct({ type: Schema.Literal("redacted_thinking"), data: Schema.String })
/** Block types this kernel does not model (server tools, citations...): skipped. */
export const OtherBlock = Schema.Struct({
  type: Schema.String.check(Schema.makeFilter((type) => !knownBlocks.includes(type)))
})
export const Block = Schema.Union([TextBlock, ToolUseBlock, ThinkingBlock, RedactedThinkingBlock, OtherBlock])
export type Block = typeof Block.Type

const OptionalCount = Schema.optional(Schema.NullOr(Schema.Number))

export const Usage = Schema.Struct({
  input_tokens: OptionalCount,
  output_tokens: OptionalCount,
  cache_creation_input_tokens: OptionalCount,
  cache_read_input_tokens: OptionalCount
})
export type Usage = typeof Usage.Type

export const Message = Schema.Struct({
  model: Schema.optional(Schema.String),
  content: Schema.Array(Block),
  stop_reason: Schema.optional(Schema.NullOr(Schema.String)),
  usage: Usage
})
export type Message = typeof Message.Type

export const ErrorBody = Schema.Struct({
  type: Schema.optional(Schema.String),
  error: Schema.Struct({ type: Schema.String, message: Schema.optional(Schema.String) })
})

export const MessageStart = Schema.Struct({
  type: Schema.Literal("message_start"),
  message: Schema.Struct({ model: Schema.optional(Schema.String), usage: Schema.optional(Usage) })
})
export const ContentBlockStart = Schema.Struct({
  type: Schema.Literal("content_block_start"),
  index: Schema.Number,
  content_block: Block
})
const knownDeltas = ["text_delta", "input_json_delta", "thinking_delta", "signature_delta"]

export const Delta = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text_delta"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("input_json_delta"), partial_json: Schema.String }),
  Schema.Struct({ type: Schema.Literal("thinking_delta"), thinking: Schema.String }),
  Schema.Struct({ type: Schema.Literal("signature_delta"), signature: Schema.String })
])
/** Delta types this kernel does not model: skipped. */
export const OtherDelta = Schema.Struct({
  type: Schema.String.check(Schema.makeFilter((type) => !knownDeltas.includes(type)))
})
export const ContentBlockDelta = Schema.Struct({
  type: Schema.Literal("content_block_delta"),
  index: Schema.Number,
  delta: Delta
})
// Its own member, so that every delta a stream is made of is told apart by its literal `type`.
export const OtherContentBlockDelta = Schema.Struct({
  type: Schema.Literal("content_block_delta"),
  index: Schema.Number,
  delta: OtherDelta
})
export const ContentBlockStop = Schema.Struct({ type: Schema.Literal("content_block_stop"), index: Schema.Number })
export const MessageDelta = Schema.Struct({
  type: Schema.Literal("message_delta"),
  delta: Schema.Struct({ stop_reason: Schema.optional(Schema.NullOr(Schema.String)) }),
  usage: Schema.optional(Usage)
})
export const MessageStop = Schema.Struct({ type: Schema.Literal("message_stop") })
export const Ping = Schema.Struct({ type: Schema.Literal("ping") })
export const StreamError = Schema.Struct({
  type: Schema.Literal("error"),
  error: Schema.Struct({ type: Schema.String, message: Schema.optional(Schema.String) })
})

export const StreamEvent = Schema.Union([
  MessageStart,
  ContentBlockStart,
  ContentBlockDelta,
  OtherContentBlockDelta,
  ContentBlockStop,
  MessageDelta,
  MessageStop,
  Ping,
  StreamError
])
export type StreamEvent = typeof StreamEvent.Type

export const streamEventTypes = new Set([
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
  "ping",
  "error"
])

export const EventType = Schema.Struct({ type: Schema.String })

// ---------------------------------------------------------------------------
// Decoding: pure, over the schemas above.

const decodeErrorBody = Schema.decodeUnknownOption(Decode.compiled(ErrorBody))
const decodeMessage = Schema.decodeUnknownResult(Decode.compiled(Message))
const decodeEvent = Schema.decodeUnknownResult(Decode.compiled(StreamEvent))
const decodeEventType = Schema.decodeUnknownOption(Decode.compiled(EventType))

/** The facts of an error object (`{type: "error", error: {type, message}}`). */
export const errorFacts = (body: unknown): Option.Option<Decode.ErrorFacts> =>
  // Every stream event is asked: only an object with an `error` key can be one, and most events are not.
  Predicate.hasProperty(body, "error")
    ? Option.map(decodeErrorBody(body), (decoded) => ({ type: decoded.error.type, message: decoded.error.message }))
    : Option.none()

const usageOf = (usage: Usage): TokenUsage.Usage => ({
  input_tokens: usage.input_tokens ?? 0,
  output_tokens: usage.output_tokens ?? 0,
  ...(usage.cache_read_input_tokens != null ? { cache_read_tokens: usage.cache_read_input_tokens } : {}),
  ...(usage.cache_creation_input_tokens != null ? { cache_write_tokens: usage.cache_creation_input_tokens } : {})
})

/** Merges a later usage report into an earlier one: counts it gives replace, nulls and absent ones keep. */
const mergeUsage = (self: Usage, that: Usage | undefined): Usage =>
  that === undefined
    ? self
    : {
        input_tokens: that.input_tokens ?? self.input_tokens,
        output_tokens: that.output_tokens ?? self.output_tokens,
        cache_creation_input_tokens: that.cache_creation_input_tokens ?? self.cache_creation_input_tokens,
        cache_read_input_tokens: that.cache_read_input_tokens ?? self.cache_read_input_tokens
      }

const stopOf = (
  stopReason: string | null | undefined,
  hasToolUse: boolean
): ModelProvider.StopReason | "model_context_window_exceeded" => {
  switch (stopReason) {
    case "end_turn":
    case "pause_turn":
      return "end_turn"
    case "tool_use":
      return "tool_use"
    case "max_tokens":
      return "max_tokens"
    case "stop_sequence":
      return "stop_sequence"
    case "refusal":
      return "content_filtered"
    case "model_context_window_exceeded":
      return "model_context_window_exceeded"
    default:
      return hasToolUse ? "tool_use" : "end_turn"
  }
}

/** The model ran out of context window while answering: a failure, though the response is complete. */
const windowExceeded = (usage: TokenUsage.Usage): Decode.Failure => ({
  _tag: "Rejected",
  category: "context_length_exceeded",
  message: "stop_reason model_context_window_exceeded: the model ran out of context window",
  details: { rule: "anthropic.stop_reason.model_context_window_exceeded", usage },
  promptTokens: usage.input_tokens,
  usage
})

/** The response, or a context-window failure: the model ran out of window while answering. */
const finish = (
  model: string,
  content: ReadonlyArray<Content.ContentBlock>,
  stopReason: string | null | undefined,
  usage: TokenUsage.Usage
): Result.Result<ModelProvider.ModelResponse, Decode.Failure> => {
  const stop = stopOf(
    stopReason,
    content.some((block) => block.type === "tool_use")
  )
  if (stop === "model_context_window_exceeded") return Result.fail(windowExceeded(usage))
  return Result.succeed({ model, content, stop_reason: stop, usage })
}

const contentOf = (blocks: ReadonlyArray<Block>): ReadonlyArray<Content.ContentBlock> =>
  blocks.flatMap((block): ReadonlyArray<Content.ContentBlock> => {
    if ("text" in block && block.type === "text") return [{ type: "text", text: block.text }]
    if ("id" in block && block.type === "tool_use")
      return [{ type: "tool_use", id: block.id, name: block.name, input: block.input }]
    if ("thinking" in block && block.type === "thinking")
      return [
        {
          type: "thinking",
          thinking: block.thinking,
          ...(block.signature !== undefined ? { signature: block.signature } : {})
        }
      ]
    // Kept and sent back verbatim: the API needs it to continue a turn that used thinking.
    if ("data" in block && block.type === "redacted_thinking") return [{ type: "redacted_thinking", data: block.data }]
    return []
  })

/** A complete Messages API response, as the parts a stream of it would make. */
export const message = (
  json: unknown,
  model: string
): Result.Result<ReadonlyArray<ResponsePart.ResponsePart>, Decode.Failure> =>
  Result.match(decodeMessage(json), {
    onFailure: (error) => Result.fail({ _tag: "Malformed", reason: `unexpected shape: ${error.message}` }),
    onSuccess: (decoded) =>
      Result.map(
        finish(decoded.model ?? model, contentOf(decoded.content), decoded.stop_reason, usageOf(decoded.usage)),
        ResponsePart.fromResponse
      )
  })

/** The kind of a content block being streamed: which deltas it takes. */
type BlockKind = "text" | "tool" | "thinking" | "other"

/** What a stream has said so far. */
export interface StreamState {
  readonly model: string
  readonly blocks: ReadonlyMap<number, BlockKind>
  readonly hasToolUse: boolean
  readonly usage: Option.Option<Usage>
  readonly stopReason: string | null | undefined
  readonly stopped: boolean
}

const usageFields = ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"] as const

/** Whether a usage report changes nothing the stream had already said. */
const sameUsage = (before: Option.Option<Usage>, after: Usage): boolean =>
  Option.isSome(before) && usageFields.every((field) => (before.value[field] ?? null) === (after[field] ?? null))

/** The usage after a report, and its part when the report changed anything. */
const reportUsage = (
  state: StreamState,
  report: Usage | undefined
): readonly [Option.Option<Usage>, ReadonlyArray<ResponsePart.ResponsePart>] => {
  const merged = mergeUsage(
    Option.getOrElse(state.usage, () => ({})),
    report
  )
  return sameUsage(state.usage, merged)
    ? [state.usage, []]
    : [Option.some(merged), [{ type: "usage", usage: usageOf(merged) }]]
}

/** A block as it starts: its kind, and the parts its opening carries. */
const started = (index: number, block: Block): readonly [BlockKind, ReadonlyArray<ResponsePart.ResponsePart>] => {
  if (block.type === "text" && "text" in block) {
    return ["text", block.text.length > 0 ? [{ type: "text_delta", index, text: block.text }] : []]
  }
  if (block.type === "tool_use" && "id" in block) {
    // The input streams as input_json_delta; an input given whole at the start (a non-empty object) is its JSON.
    const whole =
      typeof block.input === "object" && block.input !== null && Object.keys(block.input).length > 0
        ? [{ type: "tool_input_delta", index, json: JSON.stringify(block.input) } as const]
        : []
    return ["tool", [{ type: "tool_use_start", index, id: block.id, name: block.name }, ...whole]]
  }
  if (block.type === "thinking" && "thinking" in block) {
    return [
      "thinking",
      [
        ...(block.thinking.length > 0 ? [{ type: "thinking_delta", index, text: block.thinking } as const] : []),
        ...(block.signature !== undefined && block.signature.length > 0
          ? [{ type: "thinking_signature", index, signature: block.signature } as const]
          : [])
      ]
    ]
  }
  if (block.type === "redacted_thinking" && "data" in block) {
    return ["other", [{ type: "redacted_thinking", index, data: block.data }]]
  }
  return ["other", []]
}

/** The part a delta makes of its block; none when it changes nothing (an unknown, empty or mismatched delta). */
const deltaPart = (
  index: number,
  kind: BlockKind,
  delta: typeof Delta.Type | typeof OtherDelta.Type
): ReadonlyArray<ResponsePart.ResponsePart> => {
  if ("text" in delta && kind === "text" && delta.text.length > 0)
    return [{ type: "text_delta", index, text: delta.text }]
  if ("partial_json" in delta && kind === "tool" && delta.partial_json.length > 0)
    return [{ type: "tool_input_delta", index, json: delta.partial_json }]
  if ("thinking" in delta && kind === "thinking" && delta.thinking.length > 0)
    return [{ type: "thinking_delta", index, text: delta.thinking }]
  if ("signature" in delta && kind === "thinking" && delta.signature.length > 0)
    return [{ type: "thinking_signature", index, signature: delta.signature }]
  return []
}

const continued = (
  state: StreamState,
  parts: ReadonlyArray<ResponsePart.ResponsePart>,
  done = false
): Result.Result<Decode.Stepped<StreamState>, never> => Result.succeed({ state, parts, done })

/**
 * One event: the parts it adds. An event that changes nothing the response
 * carries (a ping, a repeated message_start, an empty block, a block stop, an
 * empty message_delta) adds none, so it never restarts the idle timer.
 */
const stepStream = (
  state: StreamState,
  event: Decode.Event
): Result.Result<Decode.Stepped<StreamState>, Decode.Failure> => {
  if (Option.isNone(event.json)) {
    return Result.fail({ _tag: "Malformed", reason: `event ${event.name} is not JSON`, body: event.data })
  }
  const decoded = decodeEvent(event.json.value)
  if (Result.isFailure(decoded)) {
    // Unknown event types are allowed by the API's versioning policy; they carry nothing this decoder reads.
    const type = Option.map(decodeEventType(event.json.value), (_) => _.type)
    if (Option.isSome(type) && !streamEventTypes.has(type.value)) return continued(state, [])
    return Result.fail({
      _tag: "Malformed",
      reason: `unexpected ${event.name} event: ${decoded.failure.message}`,
      body: event.data
    })
  }
  const value = decoded.success
  switch (value.type) {
    case "message_start": {
      const [usage, parts] = reportUsage(state, value.message.usage)
      return continued({ ...state, model: value.message.model ?? state.model, usage }, parts)
    }
    case "content_block_start": {
      const [kind, parts] = started(value.index, value.content_block)
      return continued(
        {
          ...state,
          blocks: new Map(state.blocks).set(value.index, kind),
          hasToolUse: state.hasToolUse || kind === "tool"
        },
        parts
      )
    }
    case "content_block_delta": {
      const kind = state.blocks.get(value.index)
      if (kind === undefined) {
        return Result.fail({ _tag: "Malformed", reason: `delta for unknown block ${value.index}`, body: event.data })
      }
      return continued(state, deltaPart(value.index, kind, value.delta))
    }
    case "content_block_stop":
    case "ping":
      return continued(state, [])
    case "message_delta": {
      const [usage, parts] = reportUsage(state, value.usage)
      const stopReason = value.delta.stop_reason !== undefined ? value.delta.stop_reason : state.stopReason
      return continued({ ...state, stopReason, usage }, parts)
    }
    case "message_stop":
      return continued({ ...state, stopped: true }, [], true)
    case "error":
      return Result.fail({
        _tag: "ErrorObject",
        facts: { type: value.error.type, message: value.error.message },
        body: event.json.value
      })
  }
}

/** After message_stop: the finish part, or why there is no complete response. */
const finishStream = (state: StreamState): Result.Result<ReadonlyArray<ResponsePart.ResponsePart>, Decode.Failure> => {
  if (!state.stopped) return Result.fail({ _tag: "Truncated", reason: "stream ended before message_stop" })
  const stop = stopOf(state.stopReason, state.hasToolUse)
  if (stop === "model_context_window_exceeded") {
    return Result.fail(windowExceeded(usageOf(Option.getOrElse(state.usage, () => ({})))))
  }
  return Result.succeed([{ type: "finish", stop_reason: stop, model: state.model }])
}

/** The Messages API decoder: JSON bodies and SSE streams. */
export const decoder: Decode.Decoder<StreamState> = {
  errorFacts,
  message,
  stream: {
    initial: (model) => ({
      model,
      blocks: new Map(),
      hasToolUse: false,
      usage: Option.none(),
      stopReason: undefined,
      stopped: false
    }),
    step: stepStream,
    finish: finishStream,
    usage: (state) => Option.map(state.usage, usageOf)
  }
}
