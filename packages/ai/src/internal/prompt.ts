/**
 * A kernel `ModelRequest` as @effect/ai's `Prompt` and tools. Pure: every
 * block maps to one prompt part, or the request is refused with the reason.
 *
 * @internal
 */
import { Content, type ModelProvider } from "@agent-kernel/kernel"
import * as Prompt from "@effect/ai/Prompt"
import * as Tool from "@effect/ai/Tool"
import type * as Toolkit from "@effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/** Why a request cannot be expressed as a prompt. */
export interface Refusal {
  readonly reason: string
  /** The index of the message that cannot be expressed, or -1 for the system prompt and tools. */
  readonly message: number
}

/** What one `generateText` call needs. */
export interface Converted {
  readonly prompt: Prompt.Prompt
  readonly toolkit: Toolkit.WithHandler<Record<string, Tool.Any>>
}

/**
 * Any JSON object as the tool's parameters, described to the provider by
 * the definition's own JSON Schema (the `jsonSchema` annotation is what
 * @effect/ai's `Tool.getJsonSchema` emits). The kernel's toolbox validates
 * the arguments, so here they only need to be an object.
 */
const parametersOf = (definition: ModelProvider.ToolDefinition) =>
  Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations({
    jsonSchema: definition.input_schema
  })

const toolOf = (definition: ModelProvider.ToolDefinition) =>
  Tool.make(definition.name, { description: definition.description }).setParameters(parametersOf(definition))

/**
 * The kernel runs tools itself, so the toolkit only describes them: the
 * adapter always passes `disableToolCallResolution`, and a handler that is
 * called anyway is a defect.
 */
const describeOnly = (tools: ReadonlyArray<ModelProvider.ToolDefinition>): Converted["toolkit"] => {
  const byName: Record<string, Tool.Any> = {}
  for (const definition of tools) byName[definition.name] = toolOf(definition)
  return {
    tools: byName,
    handle: (name) => Effect.dieMessage(`@agent-kernel/ai: tool "${String(name)}" was resolved by @effect/ai`)
  }
}

const toolNames = (messages: Content.History): ReadonlyMap<string, string> => {
  const names = new Map<string, string>()
  for (const message of messages) {
    for (const block of message.content) if (block.type === "tool_use") names.set(block.id, block.name)
  }
  return names
}

const cacheRefusal = (index: number): Refusal => ({
  reason: "cache_control is not supported by the @effect/ai adapter",
  message: index
})

/**
 * An image or a document as @effect/ai's file part: base64 data as it is, a
 * URL as a `URL`. A URL carries no media type, so an image by URL is
 * `image/*` and a document by URL `application/pdf`.
 */
const filePartOf = (
  block: Content.ImageBlock | Content.DocumentBlock,
  index: number
): Either.Either<Prompt.FilePart, Refusal> => {
  if (block.source.type === "base64") {
    return Either.right(Prompt.filePart({ mediaType: block.source.media_type, data: block.source.data }))
  }
  const url = block.source.url
  return Either.map(
    Either.try({
      try: () => new URL(url),
      catch: (): Refusal => ({ reason: `the ${block.type} URL is not a valid URL`, message: index })
    }),
    (data) => Prompt.filePart({ mediaType: block.type === "image" ? "image/*" : "application/pdf", data })
  )
}

/**
 * A kernel user message becomes user and tool messages in block order: its
 * text as user parts, its tool results as tool parts (@effect/ai regroups
 * them into one Anthropic user turn; OpenAI's input items keep the order).
 */
const userMessages = (
  message: Content.Message,
  index: number,
  names: ReadonlyMap<string, string>
): Either.Either<ReadonlyArray<Prompt.Message>, Refusal> => {
  const out: Array<Prompt.Message> = []
  let text: Array<Prompt.UserMessagePart> = []
  let results: Array<Prompt.ToolResultPart> = []
  const flush = () => {
    if (text.length > 0) out.push(Prompt.userMessage({ content: text }))
    if (results.length > 0) out.push(Prompt.toolMessage({ content: results }))
    text = []
    results = []
  }
  for (const block of message.content) {
    if ("cache_control" in block && block.cache_control !== undefined) return Either.left(cacheRefusal(index))
    switch (block.type) {
      case "text":
        if (results.length > 0) flush()
        text.push(Prompt.textPart({ text: block.text }))
        break
      case "image":
      case "document": {
        if (results.length > 0) flush()
        const file = filePartOf(block, index)
        if (Either.isLeft(file)) return Either.left(file.left)
        text.push(file.right)
        break
      }
      case "tool_result":
        if (text.length > 0) flush()
        results.push(
          Prompt.toolResultPart({
            id: block.tool_use_id,
            name: names.get(block.tool_use_id) ?? "unknown_tool",
            isFailure: block.is_error,
            result: block.content,
            providerExecuted: false
          })
        )
        break
      default:
        return Either.left({ reason: `a user message cannot carry a ${block.type} block`, message: index })
    }
  }
  flush()
  return Either.right(out)
}

const assistantMessage = (message: Content.Message, index: number): Either.Either<Prompt.AssistantMessage, Refusal> => {
  const parts: Array<Prompt.AssistantMessagePart> = []
  for (const block of message.content) {
    if ("cache_control" in block && block.cache_control !== undefined) return Either.left(cacheRefusal(index))
    switch (block.type) {
      case "text":
        parts.push(Prompt.textPart({ text: block.text }))
        break
      case "tool_use":
        parts.push(
          Prompt.toolCallPart({ id: block.id, name: block.name, params: block.input, providerExecuted: false })
        )
        break
      case "thinking":
        // Anthropic needs the signature back to accept the block; the
        // provider-neutral part has no place for it but Anthropic's options.
        parts.push(
          Prompt.reasoningPart({
            text: block.thinking,
            options:
              block.signature === undefined ? {} : { anthropic: { type: "thinking", signature: block.signature } }
          })
        )
        break
      case "redacted_thinking":
        // Sent back to Anthropic verbatim, through the part's Anthropic options.
        parts.push(
          Prompt.reasoningPart({
            text: "",
            options: { anthropic: { type: "redacted_thinking", redactedData: block.data } }
          })
        )
        break
      case "tool_result":
      case "image":
      case "document":
        return Either.left({ reason: `an assistant message cannot carry a ${block.type} block`, message: index })
    }
  }
  return Either.right(Prompt.assistantMessage({ content: parts }))
}

/**
 * The prompt and tools of one request: the system prompt first, then each
 * message in order.
 */
export const fromRequest = (request: ModelProvider.ModelRequest): Either.Either<Converted, Refusal> =>
  Either.gen(function* () {
    const names = toolNames(request.messages)
    const messages: Array<Prompt.Message> = []
    const cached =
      (typeof request.system === "object" && request.system.some((block) => block.cache_control !== undefined)) ||
      request.tools.some((tool) => tool.cache_control !== undefined)
    if (cached) return yield* Either.left(cacheRefusal(-1))
    const system = request.system === undefined ? "" : Content.systemText(request.system)
    if (system.length > 0) {
      messages.push(Prompt.systemMessage({ content: system }))
    }
    for (const [index, message] of request.messages.entries()) {
      if (message.role === "assistant") messages.push(yield* assistantMessage(message, index))
      else messages.push(...(yield* userMessages(message, index, names)))
    }
    return { prompt: Prompt.fromMessages(messages), toolkit: describeOnly(request.tools) }
  })
