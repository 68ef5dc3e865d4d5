/**
 * Content blocks and messages: the kernel's conversation vocabulary.
 *
 * Providers translate these to and from each wire format. History is a plain,
 * Schema-encodable value so that a session can be exported and resumed.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * An Anthropic prompt-cache breakpoint: the prefix up to and including the
 * block that carries it is cached (`ttl` five minutes by default, or one
 * hour). Providers without prompt caching reject it before sending anything.
 *
 * @since 0.3.0
 * @category schemas
 */
export const CacheControl = Schema.Struct({
  type: Schema.Literal("ephemeral"),
  ttl: Schema.optional(Schema.Literals(["5m", "1h"]))
})

/**
 * @since 0.3.0
 * @category models
 */
export interface CacheControl extends Schema.Schema.Type<typeof CacheControl> {}

/**
 * Plain text produced by the user or the model.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  cache_control: Schema.optional(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface TextBlock extends Schema.Schema.Type<typeof TextBlock> {}

/**
 * The model's request to run a tool.
 *
 * `invalid_input` is present only when the model's input was not valid JSON:
 * it holds the raw text, kept so nothing is dropped, and `input` is then `{}`
 * so the history stays valid for every wire format. The kernel never invokes
 * such a call; it answers with an error `tool_result` saying why.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown,
  invalid_input: Schema.optional(Schema.String),
  cache_control: Schema.optional(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolUseBlock extends Schema.Schema.Type<typeof ToolUseBlock> {}

/**
 * The answer to one `tool_use`. `is_error` tells the model the call failed
 * (a crash, a denial, a timeout, bad arguments), so it can observe and adapt.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: Schema.String,
  is_error: Schema.Boolean,
  cache_control: Schema.optional(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolResultBlock extends Schema.Schema.Type<typeof ToolResultBlock> {}

/**
 * Model reasoning, kept so that providers which require it on the next request
 * (Anthropic extended thinking) can send it back.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface ThinkingBlock extends Schema.Schema.Type<typeof ThinkingBlock> {}

/**
 * Reasoning the provider returned encrypted (Anthropic's safety-redacted
 * thinking). Opaque: kept in history and sent back verbatim, never dropped.
 *
 * @since 0.3.0
 * @category schemas
 */
export const RedactedThinkingBlock = Schema.Struct({
  type: Schema.Literal("redacted_thinking"),
  data: Schema.String
})

/**
 * @since 0.3.0
 * @category models
 */
export interface RedactedThinkingBlock extends Schema.Schema.Type<typeof RedactedThinkingBlock> {}

/**
 * Where the bytes of an image or document come from: inline base64 data with
 * its media type, or a URL the provider fetches.
 *
 * @since 0.3.0
 * @category schemas
 */
export const MediaSource = Schema.Union([
  Schema.Struct({ type: Schema.Literal("base64"), media_type: Schema.String, data: Schema.String }),
  Schema.Struct({ type: Schema.Literal("url"), url: Schema.String })
])

/**
 * @since 0.3.0
 * @category models
 */
export type MediaSource = Schema.Schema.Type<typeof MediaSource>

/**
 * An image in user content.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ImageBlock = Schema.Struct({
  type: Schema.Literal("image"),
  source: MediaSource,
  cache_control: Schema.optional(CacheControl)
})

/**
 * @since 0.3.0
 * @category models
 */
export interface ImageBlock extends Schema.Schema.Type<typeof ImageBlock> {}

/**
 * A document (such as a PDF) in user content.
 *
 * @since 0.3.0
 * @category schemas
 */
export const DocumentBlock = Schema.Struct({
  type: Schema.Literal("document"),
  source: MediaSource,
  cache_control: Schema.optional(CacheControl)
})

/**
 * @since 0.3.0
 * @category models
 */
export interface DocumentBlock extends Schema.Schema.Type<typeof DocumentBlock> {}

/**
 * Any content block.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentBlock = Schema.Union([
  TextBlock,
  ToolUseBlock,
  ToolResultBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  ImageBlock,
  DocumentBlock
])

/**
 * @since 0.1.0
 * @category models
 */
export type ContentBlock = Schema.Schema.Type<typeof ContentBlock>

/**
 * One message of the conversation. Tool results travel in `user` messages,
 * as in the Anthropic wire format; providers map them to their own shape.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Message = Schema.Struct({
  role: Schema.Literals(["user", "assistant"]),
  content: Schema.Array(ContentBlock)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface Message extends Schema.Schema.Type<typeof Message> {}

/**
 * A conversation history: a plain array of messages.
 *
 * @since 0.1.0
 * @category schemas
 */
export const History = Schema.Array(Message)

/**
 * @since 0.1.0
 * @category models
 */
export type History = ReadonlyArray<Message>

/**
 * A system prompt: a string, or text blocks (each may carry a cache
 * breakpoint).
 *
 * @since 0.3.0
 * @category schemas
 */
export const System = Schema.Union([Schema.String, Schema.Array(TextBlock)])

/**
 * @since 0.3.0
 * @category models
 */
export type System = Schema.Schema.Type<typeof System>

/**
 * The plain text of a system prompt.
 *
 * @since 0.3.0
 * @category getters
 */
export const systemText = (system: System): string =>
  typeof system === "string" ? system : system.map((block) => block.text).join("\n\n")

/**
 * @since 0.1.0
 * @category constructors
 */
export const text = (text: string): TextBlock => ({ type: "text", text })

/**
 * @since 0.1.0
 * @category constructors
 */
export const toolUse = (id: string, name: string, input: unknown): ToolUseBlock => ({
  type: "tool_use",
  id,
  name,
  input
})

/**
 * @since 0.1.0
 * @category constructors
 */
export const toolResult = (toolUseId: string, content: string, isError = false): ToolResultBlock => ({
  type: "tool_result",
  tool_use_id: toolUseId,
  content,
  is_error: isError
})

/**
 * A user message holding plain text.
 *
 * @since 0.1.0
 * @category constructors
 */
export const userText = (input: string): Message => ({ role: "user", content: [text(input)] })

/**
 * The `tool_use` blocks of a message, in order.
 *
 * @since 0.1.0
 * @category getters
 */
export const toolUses = (message: Message): ReadonlyArray<ToolUseBlock> =>
  message.content.filter((block): block is ToolUseBlock => block.type === "tool_use")

/**
 * The concatenated text of a message's `text` blocks.
 *
 * @since 0.1.0
 * @category getters
 */
export const textOf = (message: Message): string => {
  let text = ""
  for (const block of message.content) if (block.type === "text") text += block.text
  return text
}

/**
 * The ids of the `tool_use` blocks in a history that the next message does
 * not answer with a `tool_result`. Empty for a history a provider accepts:
 * useful to check a history restored from a store or an export.
 *
 * @since 0.1.0
 * @category getters
 */
export const unansweredToolUses = (history: History): ReadonlyArray<string> =>
  history.flatMap((message, i) => {
    const next = history[i + 1]
    return toolUses(message).flatMap((block) =>
      next?.content.some((b) => b.type === "tool_result" && b.tool_use_id === block.id) === true ? [] : [block.id]
    )
  })
