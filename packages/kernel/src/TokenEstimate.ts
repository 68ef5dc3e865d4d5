/**
 * The kernel's token estimate: about four characters per token, counted over
 * everything a request carries. It is deliberately provider-neutral and
 * cheap; when a provider reports the real count in a context overflow, the
 * reduction target is scaled by the ratio between the two.
 *
 * @since 0.1.0
 */
import type * as Content from "./Content.js"
import type * as ModelProvider from "./ModelProvider.js"

const CHARS_PER_TOKEN = 4
/** Per-message and per-block framing the wire formats add. */
const MESSAGE_OVERHEAD = 4
const BLOCK_OVERHEAD = 3

const blockChars = (block: Content.ContentBlock): number => {
  switch (block.type) {
    case "text":
      return block.text.length
    case "thinking":
      return block.thinking.length
    case "tool_use":
      return block.name.length + block.id.length + jsonLength(block.input)
    case "tool_result":
      return block.tool_use_id.length + block.content.length
    case "redacted_thinking":
      return block.data.length
    case "image":
    case "document":
      // Media is billed by the provider's own measure; the source's size is the only bound the kernel can see.
      return block.source.type === "url" ? block.source.url.length : block.source.data.length
  }
}

const jsonLength = (value: unknown): number => {
  try {
    return JSON.stringify(value)?.length ?? 0
  } catch {
    return 0
  }
}

/**
 * Estimated tokens of one message.
 *
 * @since 0.1.0
 * @category estimates
 */
export const message = (msg: Content.Message): number => {
  let chars = 0
  for (const block of msg.content) chars += blockChars(block)
  return Math.ceil(chars / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD + BLOCK_OVERHEAD * msg.content.length
}

/**
 * Estimated tokens of a list of messages.
 *
 * @since 0.1.0
 * @category estimates
 */
export const messages = (history: Content.History): number => {
  let total = 0
  for (const msg of history) total += message(msg)
  return total
}

/**
 * Estimated tokens of what a request carries besides its messages: the
 * system prompt and the tool definitions.
 *
 * @since 0.2.0
 * @category estimates
 */
export const requestOverhead = (req: Pick<ModelProvider.ModelRequest, "system" | "tools">): number =>
  Math.ceil(((req.system?.length ?? 0) + jsonLength(req.tools)) / CHARS_PER_TOKEN)

/**
 * Estimated tokens of a whole request: system prompt, messages and tool definitions.
 *
 * @since 0.1.0
 * @category estimates
 */
export const request = (req: Pick<ModelProvider.ModelRequest, "system" | "messages" | "tools">): number =>
  requestOverhead(req) + messages(req.messages)
