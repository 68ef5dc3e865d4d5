/**
 * Usage and the stop reason, both ways between effect/ai's finish part and
 * the kernel's. Pure.
 *
 * @internal
 */
import type { ModelProvider, Usage } from "@agent-kernel/kernel"
import type * as Response from "effect/ai/Response"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * The kernel counts `input_tokens` without cache reads or writes, as
 * Anthropic reports them; effect/ai's `uncached` is that figure (when a
 * provider gives only the total, the cached parts are taken out).
 */
export const usageOf = (usage: Response.Usage | undefined): Usage.Usage => {
  if (usage === undefined) return { input_tokens: 0, output_tokens: 0 }
  const { uncached, total, cacheRead, cacheWrite } = usage.inputTokens
  const input = uncached ?? Math.max(0, (total ?? 0) - (cacheRead ?? 0) - (cacheWrite ?? 0))
  return {
    input_tokens: input,
    output_tokens: usage.outputTokens.total ?? 0,
    ...(cacheRead !== undefined ? { cache_read_tokens: cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cache_write_tokens: cacheWrite } : {})
  }
}

/** The kernel's usage as effect/ai reports it: the total input is the uncached input and both cache figures. */
export const usageToEffect = (usage: Usage.Usage): typeof Response.Usage.Encoded => ({
  inputTokens: {
    uncached: usage.input_tokens,
    total: usage.input_tokens + (usage.cache_read_tokens ?? 0) + (usage.cache_write_tokens ?? 0),
    ...(usage.cache_read_tokens !== undefined ? { cacheRead: usage.cache_read_tokens } : {}),
    ...(usage.cache_write_tokens !== undefined ? { cacheWrite: usage.cache_write_tokens } : {})
  },
  outputTokens: { total: usage.output_tokens }
})

/**
 * The finish part's metadata key carrying the kernel's own stop reason,
 * where effect/ai has none of its own (`stop_sequence`).
 */
export const metadataKey = "agent-kernel"

const KernelFinish = Schema.Struct({
  [metadataKey]: Schema.Struct({
    stop_reason: Schema.Literals(["end_turn", "tool_use", "max_tokens", "stop_sequence", "content_filtered"])
  })
})
const decodeKernelFinish = Schema.decodeUnknownOption(KernelFinish)

/**
 * The kernel's stop reason for effect/ai's finish reason. The kernel's own
 * reason, when the finish part carries it, wins. `pause` (a server tool
 * still running) ends the turn, as the kernel's own Anthropic provider
 * does; a reason the provider did not name falls back on whether the model
 * asked for tools.
 */
export const stopReasonOf = (
  reason: Response.FinishReason,
  metadata: unknown,
  hasToolUse: boolean
): ModelProvider.StopReason | "error" => {
  const kernel = decodeKernelFinish(metadata)
  if (Option.isSome(kernel)) return kernel.value[metadataKey].stop_reason
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

/** effect/ai's finish reason for the kernel's stop reason (`stop_sequence` is a `stop`). */
export const finishReasonOf = (stop: ModelProvider.StopReason): Response.FinishReason => {
  switch (stop) {
    case "end_turn":
    case "stop_sequence":
      return "stop"
    case "tool_use":
      return "tool-calls"
    case "max_tokens":
      return "length"
    case "content_filtered":
      return "content-filter"
  }
}

/** The finish part's metadata: the kernel's stop reason, so `stopReasonOf` reads it back exactly. */
export const finishMetadata = (stop: ModelProvider.StopReason) => ({ [metadataKey]: { stop_reason: stop } })
