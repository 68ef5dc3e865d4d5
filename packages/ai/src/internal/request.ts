/**
 * effect/ai's provider options (a `Prompt`, tools, a tool choice) as a
 * kernel `ModelRequest`. Pure: every part maps to one content block, or the
 * request is refused with an `AiError` reason saying why.
 *
 * @internal
 */
import type { Content, ModelProvider } from "@agent-kernel/kernel"
import * as AiError from "effect/ai/AiError"
import type * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import * as Tool from "effect/ai/Tool"
import * as Base64 from "effect/encoding/Base64"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

/** What a request holds before its model and settings: the conversation and the tools. */
export interface Conversation {
  readonly system?: string | undefined
  readonly messages: Content.History
  readonly tools: ReadonlyArray<ModelProvider.ToolDefinition>
  readonly tool_choice?: ModelProvider.ToolChoice | undefined
}

const refuse = (description: string, parameter = "prompt"): AiError.InvalidRequestError =>
  new AiError.InvalidRequestError({ parameter, description })

// Anthropic's thinking signature or redacted data, where effect/ai keeps them: a part's Anthropic options.
const ThinkingInfo = Schema.Struct({
  anthropic: Schema.Struct({
    info: Schema.Union([
      Schema.Struct({ type: Schema.Literal("thinking"), signature: Schema.String }),
      Schema.Struct({ type: Schema.Literal("redacted_thinking"), redactedData: Schema.String })
    ])
  })
})
const decodeThinkingInfo = Schema.decodeUnknownOption(ThinkingInfo)

/** An image or a PDF as a kernel block: base64 data as it is (bytes encoded), a URL as a URL. */
const fileBlock = (part: Prompt.FilePart): Result.Result<Content.ContentBlock, AiError.InvalidRequestError> => {
  const type = part.mediaType.startsWith("image/")
    ? "image"
    : part.mediaType === "application/pdf"
      ? "document"
      : undefined
  if (type === undefined) {
    return Result.fail(refuse(`a file of media type ${part.mediaType} (the kernel's providers take images and PDFs)`))
  }
  const source: Content.MediaSource =
    part.data instanceof URL
      ? { type: "url", url: part.data.href }
      : {
          type: "base64",
          media_type: part.mediaType,
          data: typeof part.data === "string" ? part.data : Base64.encode(part.data)
        }
  return Result.succeed({ type, source })
}

/** A tool's result as the text the model reads: its model output when it has one, else the result, JSON unless text. */
const resultText = (part: Prompt.ToolResultPart): string => {
  if (part.modelOutput !== undefined) return Prompt.toolModelOutputToText(part.modelOutput)
  return typeof part.result === "string" ? part.result : (JSON.stringify(part.result) ?? "")
}

const userBlocks = (message: Prompt.UserMessage) =>
  Result.all(
    message.content.map((part) =>
      part.type === "text" ? Result.succeed<Content.ContentBlock>({ type: "text", text: part.text }) : fileBlock(part)
    )
  )

const toolBlocks = (message: Prompt.ToolMessage): ReadonlyArray<Content.ContentBlock> =>
  message.content.flatMap((part) =>
    part.type === "tool-result"
      ? [{ type: "tool_result", tool_use_id: part.id, content: resultText(part), is_error: part.isFailure } as const]
      : []
  )

const reasoningBlock = (part: Prompt.ReasoningPart): Content.ContentBlock => {
  const info = Option.map(decodeThinkingInfo(part.options), (read) => read.anthropic.info)
  if (Option.isSome(info) && info.value.type === "redacted_thinking") {
    return { type: "redacted_thinking", data: info.value.redactedData }
  }
  return Option.isSome(info) && info.value.type === "thinking"
    ? { type: "thinking", thinking: part.text, signature: info.value.signature }
    : { type: "thinking", thinking: part.text }
}

const assistantBlock = (
  part: Prompt.AssistantMessagePart
): Result.Result<ReadonlyArray<Content.ContentBlock>, AiError.InvalidRequestError> => {
  switch (part.type) {
    case "text":
      return Result.succeed([{ type: "text", text: part.text }])
    case "reasoning":
      return Result.succeed([reasoningBlock(part)])
    case "tool-call":
      return part.providerExecuted
        ? Result.fail(refuse(`a provider-executed tool call (${part.name}): the kernel's providers run none`))
        : Result.succeed([{ type: "tool_use", id: part.id, name: part.name, input: part.params }])
    case "tool-result":
      return Result.fail(refuse(`a provider-executed tool result (${part.name}): the kernel's providers run none`))
    case "file":
      return Result.fail(refuse("a file in an assistant message"))
    case "tool-approval-request":
      // effect/ai's approval bookkeeping; the provider never sees it.
      return Result.succeed([])
  }
}

const assistantBlocks = (message: Prompt.AssistantMessage) =>
  Result.map(Result.all(message.content.map(assistantBlock)), (blocks) => blocks.flat())

/** Consecutive messages of one role become one: a tool message and the user text after it make one user turn. */
const appendTo = (
  messages: Array<Content.Message>,
  role: Content.Message["role"],
  blocks: ReadonlyArray<Content.ContentBlock>
) => {
  if (blocks.length === 0) return
  const last = messages.at(-1)
  if (last?.role === role) messages[messages.length - 1] = { role, content: [...last.content, ...blocks] }
  else messages.push({ role, content: blocks })
}

/**
 * The system prompt and messages of a `Prompt`: every system message joins
 * the system prompt (the kernel's providers send one), the rest keep their
 * order.
 */
export const fromPrompt = (
  prompt: Prompt.Prompt
): Result.Result<Pick<Conversation, "system" | "messages">, AiError.InvalidRequestError> =>
  Result.gen(function* () {
    const system: Array<string> = []
    const messages: Array<Content.Message> = []
    for (const message of prompt.content) {
      switch (message.role) {
        case "system":
          system.push(message.content)
          break
        case "user":
          appendTo(messages, "user", yield* userBlocks(message))
          break
        case "tool":
          appendTo(messages, "user", toolBlocks(message))
          break
        case "assistant":
          appendTo(messages, "assistant", yield* assistantBlocks(message))
          break
      }
    }
    return { ...(system.length > 0 ? { system: system.join("\n\n") } : {}), messages }
  })

/** A tool as the kernel describes it: its name, description and parameters' JSON Schema. */
const definitionOf = (tool: Tool.Any): Result.Result<ModelProvider.ToolDefinition, AiError.ToolConfigurationError> =>
  Tool.isProviderDefined(tool)
    ? Result.fail(
        new AiError.ToolConfigurationError({
          toolName: tool.name,
          description: "a provider-defined tool: agent-kernel's providers run only tools described by a JSON Schema"
        })
      )
    : Result.succeed({
        name: tool.name,
        description: Tool.getDescription(tool) ?? "",
        input_schema: { ...Tool.getJsonSchema(tool) }
      })

/** The kernel's tool choice for effect/ai's; `auto` is the providers' default, so it is left out. */
export const toolChoiceOf = (choice: LanguageModel.ToolChoice<string>): ModelProvider.ToolChoice | undefined => {
  if (choice === "auto") return undefined
  if (choice === "none") return { type: "none" }
  if (choice === "required") return { type: "any" }
  if ("tool" in choice) return { type: "tool", name: choice.tool }
  // `oneOf` already narrowed the tools offered.
  return choice.mode === "required" ? { type: "any" } : undefined
}

/** The conversation of one call. */
export const fromProviderOptions = (
  options: LanguageModel.ProviderOptions
): Result.Result<Conversation, AiError.InvalidRequestError | AiError.ToolConfigurationError> =>
  Result.gen(function* () {
    const conversation = yield* fromPrompt(options.prompt)
    const tools = yield* Result.all(options.tools.map(definitionOf))
    const toolChoice = tools.length === 0 ? undefined : toolChoiceOf(options.toolChoice)
    return { ...conversation, tools, ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}) }
  })

/** Structured output (`generateObject`) needs a response format the kernel's providers do not send. */
export const unsupportedFormat = (options: LanguageModel.ProviderOptions): AiError.InvalidRequestError | undefined =>
  options.responseFormat.type === "json"
    ? refuse(
        "structured output (generateObject) is not supported by agent-kernel's providers: ask for the object through a tool",
        "responseFormat"
      )
    : undefined
