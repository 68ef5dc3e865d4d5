/**
 * What an @effect/ai finish part says in the kernel's terms: usage and the
 * stop reason. Pure.
 *
 * @internal
 */
import type { ModelProvider } from "@agent-kernel/kernel"
import type * as Response from "@effect/ai/Response"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

// Provider metadata is open-ended; read only the fields the kernel keeps, by Schema.
const AnthropicUsage = Schema.Struct({
  anthropic: Schema.Struct({
    usage: Schema.Struct({ cache_creation_input_tokens: Schema.optional(Schema.NullOr(Schema.Number)) })
  })
})

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
