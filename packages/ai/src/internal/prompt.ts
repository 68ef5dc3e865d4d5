/**
 * A kernel `ModelRequest` as effect/ai's `Prompt` and tools. Pure: every
 * block maps to one prompt part, or the request is refused with the reason.
 *
 * @internal
 */
import { Content, type ModelProvider } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import * as Prompt from "effect/ai/Prompt"
import * as Tool from "effect/ai/Tool"
import type * as Toolkit from "effect/ai/Toolkit"
import * as Result from "effect/Result"

/** Why a request cannot be expressed as a prompt. */
export interface Refusal {
  readonly reason: string
  /** The index of the message that cannot be expressed, or -1 for the system prompt and tools. */
  readonly message: number
}

/** What one `streamText` call needs. */
export interface Converted {
  readonly prompt: Prompt.Prompt
  readonly toolkit: Toolkit.WithHandler<Record<string, DescribedTool>>
}

/**
 * A tool described to the model by the definition's own JSON Schema. The
 * kernel's toolbox validates the arguments, so effect/ai does not.
 */
const toolOf = (definition: ModelProvider.ToolDefinition) =>
  Tool.dynamic(definition.name, { description: definition.description, parameters: definition.input_schema })

/** A tool the model is told about, its parameters a JSON Schema. */
export type DescribedTool = ReturnType<typeof toolOf>

/**
 * The kernel runs tools itself, so the toolkit only describes them: the
 * adapter always passes `disableToolCallResolution`, and a handler that is
 * called anyway is a defect.
 */
const describeOnly = (tools: ReadonlyArray<ModelProvider.ToolDefinition>): Converted["toolkit"] => {
  const byName: Record<string, DescribedTool> = {}
  for (const definition of tools) byName[definition.name] = toolOf(definition)
  return {
    tools: byName,
    handle: (name) => Effect.die(`@agent-kernel/ai: tool "${String(name)}" was resolved by effect/ai`)
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
  reason: "cache_control is not supported by the effect/ai adapter",
  message: index
})

/**
 * An image or a document as effect/ai's file part: base64 data as it is, a
 * URL as a `URL`. A URL carries no media type, so an image by URL is
 * `image/*` and a document by URL `application/pdf`.
 */
const filePartOf = (
  block: Content.ImageBlock | Content.DocumentBlock,
  index: number
): Result.Result<Prompt.FilePart, Refusal> => {
  if (block.source.type === "base64") {
    return Result.succeed(Prompt.filePart({ mediaType: block.source.media_type, data: block.source.data }))
  }
  const url = block.source.url
  return Result.map(
    Result.try({
      try: () => new URL(url),
      catch: (): Refusal => ({ reason: `the ${block.type} URL is not a valid URL`, message: index })
    }),
    (data) => Prompt.filePart({ mediaType: block.type === "image" ? "image/*" : "application/pdf", data })
  )
}

/**
 * A tool result as effect/ai's part: the text as the result and as the
 * model's output, so a provider sends the text as it is rather than as JSON.
 */
const toolResultOf = (block: Content.ToolResultBlock, names: ReadonlyMap<string, string>) =>
  Prompt.toolResultPart({
    id: block.tool_use_id,
    name: names.get(block.tool_use_id) ?? "unknown_tool",
    isFailure: block.is_error,
    result: block.content,
    modelOutput: [Prompt.textPart({ text: block.content })],
    providerExecuted: false
  })

/**
 * A kernel user message becomes user and tool messages in block order: its
 * text and files as user parts, its tool results as tool parts.
 */
const userMessages = (
  message: Content.Message,
  index: number,
  names: ReadonlyMap<string, string>
): Result.Result<ReadonlyArray<Prompt.Message>, Refusal> => {
  const out: Array<Prompt.Message> = []
  let parts: Array<Prompt.UserMessagePart> = []
  let results: Array<Prompt.ToolResultPart> = []
  const flush = () => {
    if (parts.length > 0) out.push(Prompt.userMessage({ content: parts }))
    if (results.length > 0) out.push(Prompt.toolMessage({ content: results }))
    parts = []
    results = []
  }
  for (const block of message.content) {
    if ("cache_control" in block && block.cache_control !== undefined) return Result.fail(cacheRefusal(index))
    switch (block.type) {
      case "text":
        if (results.length > 0) flush()
        parts.push(Prompt.textPart({ text: block.text }))
        break
      case "image":
      case "document": {
        if (results.length > 0) flush()
        const file = filePartOf(block, index)
        if (Result.isFailure(file)) return Result.fail(file.failure)
        parts.push(file.success)
        break
      }
      case "tool_result":
        if (parts.length > 0) flush()
        results.push(toolResultOf(block, names))
        break
      default:
        return Result.fail({ reason: `a user message cannot carry a ${block.type} block`, message: index })
    }
  }
  flush()
  return Result.succeed(out)
}

/** Anthropic's thinking signature or redacted data, where effect/ai providers keep it: the part's Anthropic options. */
const thinkingOptions = (info: Record<string, string>) => ({ anthropic: { info } })

const assistantMessage = (message: Content.Message, index: number): Result.Result<Prompt.AssistantMessage, Refusal> => {
  const parts: Array<Prompt.AssistantMessagePart> = []
  for (const block of message.content) {
    if ("cache_control" in block && block.cache_control !== undefined) return Result.fail(cacheRefusal(index))
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
        parts.push(
          Prompt.reasoningPart({
            text: block.thinking,
            options:
              block.signature === undefined ? {} : thinkingOptions({ type: "thinking", signature: block.signature })
          })
        )
        break
      case "redacted_thinking":
        parts.push(
          Prompt.reasoningPart({
            text: "",
            options: thinkingOptions({ type: "redacted_thinking", redactedData: block.data })
          })
        )
        break
      case "tool_result":
      case "image":
      case "document":
        return Result.fail({ reason: `an assistant message cannot carry a ${block.type} block`, message: index })
    }
  }
  return Result.succeed(Prompt.assistantMessage({ content: parts }))
}

/**
 * The prompt and tools of one request: the system prompt first, then each
 * message in order.
 */
export const fromRequest = (request: ModelProvider.ModelRequest): Result.Result<Converted, Refusal> =>
  Result.gen(function* () {
    const names = toolNames(request.messages)
    const messages: Array<Prompt.Message> = []
    const cached =
      (typeof request.system === "object" && request.system.some((block) => block.cache_control !== undefined)) ||
      request.tools.some((tool) => tool.cache_control !== undefined)
    if (cached) return yield* Result.fail(cacheRefusal(-1))
    const system = request.system === undefined ? "" : Content.systemText(request.system)
    if (system.length > 0) messages.push(Prompt.systemMessage({ content: system }))
    for (const [index, message] of request.messages.entries()) {
      if (message.role === "assistant") messages.push(yield* assistantMessage(message, index))
      else messages.push(...(yield* userMessages(message, index, names)))
    }
    return { prompt: Prompt.fromMessages(messages), toolkit: describeOnly(request.tools) }
  })
