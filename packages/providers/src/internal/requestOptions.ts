/**
 * The request options (sampling, tool choice, reasoning, metadata, `extra`)
 * on each wire format, as pure functions: the options in, the body fields
 * out, or the option the provider cannot honour. An option a provider lacks
 * is refused before anything is sent, never dropped.
 *
 * @internal
 */
import type { ModelProvider } from "@agent-kernel/kernel"
import * as Result from "effect/Result"

/** The request options a wire format reads (the request minus its conversation). */
export type Options = ModelProvider.RequestOptions & {
  readonly tools: ModelProvider.ModelRequest["tools"]
}

/** An option the provider cannot honour, and why. */
export interface Unsupported {
  readonly option: string
  readonly reason: string
}

/** Body fields, or the option that stops the request. */
export type Fields = Result.Result<Record<string, unknown>, Unsupported>

const lacks = (option: string, provider: string): Result.Result<never, Unsupported> =>
  Result.fail({ option, reason: `${option} is not supported by ${provider}` })

/**
 * Merges `extra` into a body. A key that is a field the provider models
 * (whether or not this request sets it) is refused: `extra` is for what the
 * kernel does not model, never a second way to set what it does.
 */
export const mergeExtra = (
  body: Record<string, unknown>,
  extra: Readonly<Record<string, unknown>> | undefined,
  modelled: ReadonlySet<string>
): Fields => {
  if (extra === undefined) return Result.succeed(body)
  const clash = Object.keys(extra).find((key) => modelled.has(key))
  if (clash !== undefined) {
    return Result.fail({
      option: "extra",
      reason: `extra.${clash} collides with a field the request models; set it through its own option`
    })
  }
  return Result.succeed({ ...body, ...extra })
}

/** Every body field the Anthropic provider sets itself. */
export const anthropicModelled: ReadonlySet<string> = new Set([
  "model",
  "max_tokens",
  "system",
  "messages",
  "tools",
  "stream",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "tool_choice",
  "thinking",
  "metadata"
])

const anthropicToolChoice = (options: Options): Record<string, unknown> | undefined => {
  // Tool choice means nothing without tools (the API rejects it): it applies when tools are offered.
  if (options.tools.length === 0) return undefined
  const choice = options.tool_choice
  const disableParallel = options.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {}
  if (choice === undefined)
    return options.parallel_tool_calls === false ? { type: "auto", ...disableParallel } : undefined
  switch (choice.type) {
    case "auto":
    case "any":
      return { type: choice.type, ...disableParallel }
    case "none":
      return { type: "none" }
    case "tool":
      return { type: "tool", name: choice.name, ...disableParallel }
  }
}

/**
 * The Anthropic Messages fields of the options. `reasoning_effort` is
 * OpenAI's; `temperature` above 1 is outside Anthropic's range.
 */
export const anthropic = (options: Options, provider: string): Fields => {
  if (options.reasoning_effort !== undefined) return lacks("reasoning_effort", provider)
  if (options.temperature !== undefined && options.temperature > 1) {
    return Result.fail({
      option: "temperature",
      reason: `temperature ${options.temperature} is outside ${provider}'s range 0..1`
    })
  }
  const toolChoice = anthropicToolChoice(options)
  return mergeExtra(
    {
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.top_p !== undefined ? { top_p: options.top_p } : {}),
      ...(options.top_k !== undefined ? { top_k: options.top_k } : {}),
      ...(options.stop_sequences !== undefined && options.stop_sequences.length > 0
        ? { stop_sequences: options.stop_sequences }
        : {}),
      ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
      ...(options.thinking !== undefined
        ? { thinking: { type: "enabled", budget_tokens: options.thinking.budget_tokens } }
        : {}),
      ...(options.metadata?.user_id !== undefined ? { metadata: { user_id: options.metadata.user_id } } : {})
    },
    options.extra,
    anthropicModelled
  )
}

/** Every body field the OpenAI Chat Completions provider sets itself. */
export const openAiModelled: ReadonlySet<string> = new Set([
  "model",
  "messages",
  "tools",
  "stream",
  "stream_options",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "stop",
  "tool_choice",
  "parallel_tool_calls",
  "reasoning_effort",
  "user"
])

const openAiToolChoice = (choice: ModelProvider.ToolChoice): unknown => {
  switch (choice.type) {
    case "auto":
    case "none":
      return choice.type
    case "any":
      return "required"
    case "tool":
      return { type: "function", function: { name: choice.name } }
  }
}

/** OpenAI accepts at most four stop sequences. */
const maxOpenAiStops = 4

/**
 * The OpenAI Chat Completions fields of the options. `top_k` and `thinking`
 * are Anthropic's.
 */
export const openAi = (options: Options, provider: string): Fields => {
  if (options.top_k !== undefined) return lacks("top_k", provider)
  if (options.thinking !== undefined) return lacks("thinking", provider)
  if (options.stop_sequences !== undefined && options.stop_sequences.length > maxOpenAiStops) {
    return Result.fail({
      option: "stop_sequences",
      reason: `${provider} accepts at most ${maxOpenAiStops} stop_sequences, got ${options.stop_sequences.length}`
    })
  }
  const withTools = options.tools.length > 0
  return mergeExtra(
    {
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.top_p !== undefined ? { top_p: options.top_p } : {}),
      ...(options.stop_sequences !== undefined && options.stop_sequences.length > 0
        ? { stop: options.stop_sequences }
        : {}),
      // Tool choice and parallel calls apply when tools are offered (the API rejects them otherwise).
      ...(withTools && options.tool_choice !== undefined ? { tool_choice: openAiToolChoice(options.tool_choice) } : {}),
      ...(withTools && options.parallel_tool_calls !== undefined
        ? { parallel_tool_calls: options.parallel_tool_calls }
        : {}),
      ...(options.reasoning_effort !== undefined ? { reasoning_effort: options.reasoning_effort } : {}),
      ...(options.metadata?.user_id !== undefined ? { user: options.metadata.user_id } : {})
    },
    options.extra,
    openAiModelled
  )
}
