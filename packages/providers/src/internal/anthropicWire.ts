/**
 * Anthropic Messages API wire shapes, decoded with Schema.
 *
 * @internal
 */
import * as Schema from "effect/Schema"

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
