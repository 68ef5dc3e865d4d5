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
 * Plain text produced by the user or the model.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export interface TextBlock extends Schema.Schema.Type<typeof TextBlock> {}

/**
 * The model's request to run a tool.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
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
  is_error: Schema.Boolean
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
 * Any content block.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentBlock = Schema.Union(TextBlock, ToolUseBlock, ToolResultBlock, ThinkingBlock)

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
  role: Schema.Literal("user", "assistant"),
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
export const textOf = (message: Message): string =>
  message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("")
