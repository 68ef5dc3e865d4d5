/**
 * @effect/ai response parts as a kernel `ModelResponse`. Pure.
 *
 * @internal
 */
import type { Content, ModelProvider } from "@agent-kernel/kernel"
import type * as Response from "@effect/ai/Response"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** The parts of a `generateText` answer. */
export type Parts = ReadonlyArray<Response.AnyPart>

/** A finish reason the kernel cannot continue from. */
export interface Unusable {
  readonly reason: string
  readonly usage: ModelProvider.Usage
}

// Provider metadata is open-ended; read only the fields the kernel keeps, by Schema.
const AnthropicThinking = Schema.Struct({
  anthropic: Schema.Struct({ type: Schema.Literal("thinking"), signature: Schema.String })
})
const OpenAiRefusal = Schema.Struct({ openai: Schema.Struct({ refusal: Schema.String }) })
const AnthropicUsage = Schema.Struct({
  anthropic: Schema.Struct({
    usage: Schema.Struct({ cache_creation_input_tokens: Schema.optional(Schema.NullOr(Schema.Number)) })
  })
})

const signatureOf = (metadata: Response.ReasoningPart["metadata"]): string | undefined =>
  Option.getOrUndefined(
    Option.map(Schema.decodeUnknownOption(AnthropicThinking)(metadata), (read) => read.anthropic.signature)
  )

const refusalOf = (metadata: Response.TextPart["metadata"]): string | undefined =>
  Option.getOrUndefined(Option.map(Schema.decodeUnknownOption(OpenAiRefusal)(metadata), (read) => read.openai.refusal))

/**
 * The kernel counts `input_tokens` without cache reads, as Anthropic
 * reports them. @effect/ai passes each provider's own figure through:
 * Anthropic's excludes cache reads, OpenAI's (and the other providers')
 * includes them, so for those the cached part is taken out.
 */
export const usageOf = (finish: Response.FinishPart | undefined): ModelProvider.Usage => {
  if (finish === undefined) return { input_tokens: 0, output_tokens: 0 }
  const { inputTokens, outputTokens, cachedInputTokens } = finish.usage
  const anthropic = Schema.decodeUnknownOption(AnthropicUsage)(finish.metadata)
  const cacheRead = cachedInputTokens ?? 0
  const input = inputTokens ?? 0
  const cacheWrite = Option.getOrUndefined(
    Option.flatMapNullable(anthropic, (read) => read.anthropic.usage.cache_creation_input_tokens)
  )
  return {
    input_tokens: Option.isSome(anthropic) ? input : Math.max(0, input - cacheRead),
    output_tokens: outputTokens ?? 0,
    ...(cachedInputTokens !== undefined ? { cache_read_tokens: cachedInputTokens } : {}),
    ...(cacheWrite !== undefined ? { cache_write_tokens: cacheWrite } : {})
  }
}

/**
 * The kernel's stop reason for @effect/ai's finish reason. `pause` (a
 * server tool still running) ends the turn, as the kernel's own Anthropic
 * provider does; a reason the provider did not name falls back on whether
 * the model asked for tools.
 */
export const stopReasonOf = (
  reason: Response.FinishReason,
  hasToolUse: boolean
): ModelProvider.StopReason | "error" => {
  switch (reason) {
    case "stop":
    case "pause":
      return "end_turn"
    case "length":
      return "max_tokens"
    case "tool-calls":
      return "tool_use"
    case "content-filter":
      return "content_filtered"
    case "error":
      return "error"
    case "other":
    case "unknown":
      return hasToolUse ? "tool_use" : "end_turn"
  }
}

/**
 * The response: text, thinking (with its signature), tool calls, usage and
 * the stop reason. Parts the kernel has no block for (sources, files,
 * provider-executed tool calls and their results, redacted thinking) are
 * left out, as the kernel's own providers leave them out.
 */
export const toResponse = (
  parts: Parts,
  requestedModel: string
): Either.Either<ModelProvider.ModelResponse, Unusable> => {
  const content: Array<Content.ContentBlock> = []
  let model = requestedModel
  let finish: Response.FinishPart | undefined
  let refused = false
  for (const part of parts) {
    switch (part.type) {
      case "text": {
        const refusal = refusalOf(part.metadata)
        if (refusal !== undefined) {
          refused = true
          content.push({ type: "text", text: refusal })
        } else if (part.text.length > 0) {
          content.push({ type: "text", text: part.text })
        }
        break
      }
      case "reasoning": {
        const signature = signatureOf(part.metadata)
        if (part.text.length > 0 || signature !== undefined) {
          content.push({
            type: "thinking",
            thinking: part.text,
            ...(signature !== undefined ? { signature } : {})
          })
        }
        break
      }
      case "tool-call":
        if (!part.providerExecuted) content.push({ type: "tool_use", id: part.id, name: part.name, input: part.params })
        break
      case "response-metadata":
        if (Option.isSome(part.modelId)) model = part.modelId.value
        break
      case "finish":
        finish = part
        break
    }
  }
  const usage = usageOf(finish)
  const stop = refused
    ? "content_filtered"
    : stopReasonOf(
        finish?.reason ?? "unknown",
        content.some((block) => block.type === "tool_use")
      )
  if (stop === "error") return Either.left({ reason: 'the provider finished with reason "error"', usage })
  return Either.right({ model, content, stop_reason: stop, usage })
}
