/**
 * Anthropic Messages API wire shapes, decoded with Schema, and the pure
 * decoder of its responses (JSON bodies and SSE streams).
 *
 * @internal
 */
import type { Content, ModelProvider } from "@agent-kernel/kernel"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Decode from "./decode.js"
import * as Http from "./http.js"

const knownBlocks = ["text", "tool_use", "thinking"]

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
/** Block types this kernel does not model (redacted_thinking, server tools): skipped. */
export const OtherBlock = Schema.Struct({
  type: Schema.String.pipe(Schema.filter((type) => !knownBlocks.includes(type)))
})
export const Block = Schema.Union(TextBlock, ToolUseBlock, ThinkingBlock, OtherBlock)
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
export const Delta = Schema.Union(
  Schema.Struct({ type: Schema.Literal("text_delta"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("input_json_delta"), partial_json: Schema.String }),
  Schema.Struct({ type: Schema.Literal("thinking_delta"), thinking: Schema.String }),
  Schema.Struct({ type: Schema.Literal("signature_delta"), signature: Schema.String }),
  Schema.Struct({
    type: Schema.String.pipe(
      Schema.filter((t) => !["text_delta", "input_json_delta", "thinking_delta", "signature_delta"].includes(t))
    )
  })
)
export const ContentBlockDelta = Schema.Struct({
  type: Schema.Literal("content_block_delta"),
  index: Schema.Number,
  delta: Delta
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

export const StreamEvent = Schema.Union(
  MessageStart,
  ContentBlockStart,
  ContentBlockDelta,
  ContentBlockStop,
  MessageDelta,
  MessageStop,
  Ping,
  StreamError
)
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

const decodeErrorBody = Schema.decodeUnknownOption(ErrorBody)
const decodeMessage = Schema.decodeUnknownEither(Message)
const decodeEvent = Schema.decodeUnknownEither(StreamEvent)
const decodeEventType = Schema.decodeUnknownOption(EventType)

/** The facts of an error object (`{type: "error", error: {type, message}}`). */
export const errorFacts = (body: unknown): Option.Option<Decode.ErrorFacts> =>
  Option.map(decodeErrorBody(body), (decoded) => ({ type: decoded.error.type, message: decoded.error.message }))

const usageOf = (usage: Usage): ModelProvider.Usage => ({
  input_tokens: usage.input_tokens ?? 0,
  output_tokens: usage.output_tokens ?? 0,
  ...(usage.cache_read_input_tokens != null ? { cache_read_tokens: usage.cache_read_input_tokens } : {}),
  ...(usage.cache_creation_input_tokens != null ? { cache_write_tokens: usage.cache_creation_input_tokens } : {})
})

/** Merges a later usage report into an earlier one: counts it gives replace, nulls and absent ones keep. */
const mergeUsage = (self: Usage, that: Usage | undefined): Usage => {
  if (that === undefined) return self
  const out: Record<string, number | null | undefined> = { ...self }
  for (const [key, value] of Object.entries(that)) if (typeof value === "number") out[key] = value
  return out
}

const parseToolInput = (json: string, fallback: unknown): unknown => {
  if (json.trim().length === 0) return fallback ?? {}
  // Invalid JSON from the model goes to the toolbox as the raw string, so it
  // becomes an error tool_result the model can see and fix.
  return Option.getOrElse(Http.parseJson(json), () => json)
}

const stopOf = (
  stopReason: string | null | undefined,
  content: ReadonlyArray<Content.ContentBlock>
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
      return content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn"
  }
}

/** The response, or a context-window failure: the model ran out of window while answering. */
const finish = (
  model: string,
  content: ReadonlyArray<Content.ContentBlock>,
  stopReason: string | null | undefined,
  usage: ModelProvider.Usage
): Either.Either<ModelProvider.ModelResponse, Decode.Failure> => {
  const stop = stopOf(stopReason, content)
  if (stop === "model_context_window_exceeded") {
    return Either.left({
      _tag: "Rejected",
      category: "context_length_exceeded",
      message: "stop_reason model_context_window_exceeded: the model ran out of context window",
      details: { rule: "anthropic.stop_reason.model_context_window_exceeded", usage },
      promptTokens: usage.input_tokens,
      usage
    })
  }
  return Either.right({ model, content, stop_reason: stop, usage })
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
    return []
  })

/** A complete Messages API response. */
export const message = (json: unknown, model: string): Either.Either<ModelProvider.ModelResponse, Decode.Failure> =>
  Either.match(decodeMessage(json), {
    onLeft: (error) => Either.left({ _tag: "Malformed", reason: `unexpected shape: ${error.message}` }),
    onRight: (decoded) =>
      finish(decoded.model ?? model, contentOf(decoded.content), decoded.stop_reason, usageOf(decoded.usage))
  })

/** A content block being streamed. */
type Building =
  | { readonly kind: "text"; readonly text: string }
  | {
      readonly kind: "tool"
      readonly id: string
      readonly name: string
      readonly json: string
      readonly initial: unknown
    }
  | { readonly kind: "thinking"; readonly thinking: string; readonly signature: string | undefined }
  | { readonly kind: "other" }

/** What a stream has said so far. */
export interface StreamState {
  readonly model: string
  readonly blocks: ReadonlyMap<number, Building>
  readonly usage: Option.Option<Usage>
  readonly stopReason: string | null | undefined
  readonly stopped: boolean
}

const started = (block: Block): Building =>
  block.type === "text" && "text" in block
    ? { kind: "text", text: block.text }
    : block.type === "tool_use" && "id" in block
      ? { kind: "tool", id: block.id, name: block.name, json: "", initial: block.input }
      : block.type === "thinking" && "thinking" in block
        ? { kind: "thinking", thinking: block.thinking, signature: block.signature }
        : { kind: "other" }

/** Whether a block, as it starts, carries anything the response keeps. */
const carries = (block: Building): boolean => {
  switch (block.kind) {
    case "text":
      return block.text.length > 0
    case "tool":
      return true
    case "thinking":
      return block.thinking.length > 0 || block.signature !== undefined
    case "other":
      return false
  }
}

const usageFields = ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"] as const

/** Whether a usage report changes nothing the stream had already said. */
const sameUsage = (before: Option.Option<Usage>, after: Usage): boolean =>
  Option.isSome(before) && usageFields.every((field) => (before.value[field] ?? null) === (after[field] ?? null))

/** A delta applied to its block; `undefined` when it changes nothing (an unknown or empty delta). */
const applyDelta = (block: Building, delta: typeof Delta.Type): Building | undefined => {
  if ("text" in delta && block.kind === "text" && delta.text.length > 0)
    return { ...block, text: block.text + delta.text }
  if ("partial_json" in delta && block.kind === "tool" && delta.partial_json.length > 0)
    return { ...block, json: block.json + delta.partial_json }
  if ("thinking" in delta && block.kind === "thinking" && delta.thinking.length > 0)
    return { ...block, thinking: block.thinking + delta.thinking }
  if ("signature" in delta && block.kind === "thinking") return { ...block, signature: delta.signature }
  return undefined
}

const blockOf = (block: Building): ReadonlyArray<Content.ContentBlock> => {
  switch (block.kind) {
    case "text":
      return [{ type: "text", text: block.text }]
    case "tool":
      return [{ type: "tool_use", id: block.id, name: block.name, input: parseToolInput(block.json, block.initial) }]
    case "thinking":
      return [
        {
          type: "thinking",
          thinking: block.thinking,
          ...(block.signature !== undefined ? { signature: block.signature } : {})
        }
      ]
    case "other":
      return []
  }
}

const continued = (
  state: StreamState,
  content: boolean,
  done = false
): Either.Either<Decode.Stepped<StreamState>, never> => Either.right({ state, content, done })

const stepStream = (
  state: StreamState,
  event: Decode.Event
): Either.Either<Decode.Stepped<StreamState>, Decode.Failure> => {
  if (Option.isNone(event.json)) {
    return Either.left({ _tag: "Malformed", reason: `event ${event.name} is not JSON`, body: event.data })
  }
  const type = Option.map(decodeEventType(event.json.value), (_) => _.type)
  // Unknown event types are allowed by the API's versioning policy; they carry nothing this decoder reads.
  if (Option.isSome(type) && !streamEventTypes.has(type.value)) return continued(state, false)
  const decoded = decodeEvent(event.json.value)
  if (Either.isLeft(decoded)) {
    return Either.left({
      _tag: "Malformed",
      reason: `unexpected ${event.name} event: ${decoded.left.message}`,
      body: event.data
    })
  }
  const value = decoded.right
  // An event counts as content (and restarts the idle timer) only when it changes something the response
  // carries: a server looping empty blocks, block stops or empty message deltas is cut at the idle bound.
  switch (value.type) {
    case "message_start": {
      const usage = mergeUsage(
        Option.getOrElse(state.usage, () => ({})),
        value.message.usage
      )
      const model = value.message.model ?? state.model
      const changed = model !== state.model || !sameUsage(state.usage, usage)
      return continued({ ...state, model, usage: Option.some(usage) }, changed)
    }
    case "content_block_start": {
      const block = started(value.content_block)
      return continued({ ...state, blocks: new Map(state.blocks).set(value.index, block) }, carries(block))
    }
    case "content_block_delta": {
      const current = state.blocks.get(value.index)
      if (current === undefined) {
        return Either.left({ _tag: "Malformed", reason: `delta for unknown block ${value.index}`, body: event.data })
      }
      const next = applyDelta(current, value.delta)
      return next === undefined
        ? continued(state, false)
        : continued({ ...state, blocks: new Map(state.blocks).set(value.index, next) }, true)
    }
    case "content_block_stop":
      return continued(state, false)
    case "ping":
      return continued(state, false)
    case "message_delta": {
      const usage = mergeUsage(
        Option.getOrElse(state.usage, () => ({})),
        value.usage
      )
      const stopReason = value.delta.stop_reason !== undefined ? value.delta.stop_reason : state.stopReason
      const changed = stopReason !== state.stopReason || !sameUsage(state.usage, usage)
      return continued({ ...state, stopReason, usage: Option.some(usage) }, changed)
    }
    case "message_stop":
      return continued({ ...state, stopped: true }, true, true)
    case "error":
      return Either.left({
        _tag: "ErrorObject",
        facts: { type: value.error.type, message: value.error.message },
        body: event.json.value
      })
  }
}

const finishStream = (state: StreamState): Either.Either<ModelProvider.ModelResponse, Decode.Failure> => {
  if (!state.stopped) return Either.left({ _tag: "Truncated", reason: "stream ended before message_stop" })
  const content = [...state.blocks.entries()].sort(([a], [b]) => a - b).flatMap(([, block]) => blockOf(block))
  return finish(state.model, content, state.stopReason, usageOf(Option.getOrElse(state.usage, () => ({}))))
}

/** The Messages API decoder: JSON bodies and SSE streams. */
export const decoder: Decode.Decoder<StreamState> = {
  errorFacts,
  message,
  stream: {
    initial: (model) => ({ model, blocks: new Map(), usage: Option.none(), stopReason: undefined, stopped: false }),
    step: stepStream,
    finish: finishStream,
    usage: (state) => Option.map(state.usage, usageOf)
  }
}
