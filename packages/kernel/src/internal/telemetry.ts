/**
 * The names the kernel's spans, span events and metric tags carry: the
 * OpenTelemetry GenAI semantic conventions where they name a thing (version
 * `semconvVersion`, `gen_ai.provider.name` rather than the older
 * `gen_ai.system`), and `agent_kernel.*` for what they do not (a retry
 * decision, a fallback, a context reduction, a turn). A span is started here
 * (through the run's `Spans`) with its name, kind and first attributes
 * written into it; every other function is pure: it turns what the loop
 * knows into attributes, and the loop hands them to its spans. No other
 * module spells an attribute name.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Tracer from "effect/Tracer"
import type * as Content from "../Content.js"
import type * as ModelError from "../ModelError.js"
import type * as ModelProvider from "../ModelProvider.js"
import type * as Effects from "./effects.js"

/** The GenAI semantic conventions these names follow. @internal */
export const semconvVersion = "1.41.0"

/** @internal */
export const Attr = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  requestMaxTokens: "gen_ai.request.max_tokens",
  responseModel: "gen_ai.response.model",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheWriteTokens: "gen_ai.usage.cache_creation.input_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  tokenType: "gen_ai.token.type",
  errorType: "error.type",
  turn: "agent_kernel.turn",
  attempt: "agent_kernel.attempt",
  runId: "agent_kernel.run.id",
  status: "agent_kernel.run.status",
  retryCategory: "agent_kernel.retry.category",
  retryAttempt: "agent_kernel.retry.attempt",
  retryDelayMs: "agent_kernel.retry.delay_ms",
  retrySource: "agent_kernel.retry.source",
  retryAfterMs: "agent_kernel.retry.retry_after_ms",
  budgetUsed: "agent_kernel.retry.budget_used",
  budgetLeft: "agent_kernel.retry.budget_left",
  fallbackFrom: "agent_kernel.fallback.from",
  fallbackTo: "agent_kernel.fallback.to",
  fallbackCategory: "agent_kernel.fallback.category",
  reducedBefore: "agent_kernel.context.tokens_before",
  reducedAfter: "agent_kernel.context.tokens_after",
  reducedTarget: "agent_kernel.context.tokens_target",
  reductions: "agent_kernel.context.reductions"
} as const

/** @internal */
export const Operation = { chat: "chat", executeTool: "execute_tool", invokeAgent: "invoke_agent" } as const

/** @internal */
export const SpanName = {
  turn: "agent_kernel.turn",
  retry: "agent_kernel.retry"
} as const

/** @internal */
export const EventName = {
  fallback: "agent_kernel.fallback",
  contextReduced: "agent_kernel.context_reduced"
} as const

/**
 * A run of a session: the GenAI "invoke agent" span, in-process.
 *
 * Each span is started here, with its first attributes written into it as
 * it starts: a record of them to copy from cost a step of a traced run more
 * than the attributes themselves.
 *
 * @internal
 */
export const run = (
  spans: Effects.Spans,
  options: {
    readonly session: string
    readonly runId: string
    readonly provider: string
    readonly model: string
  }
): Tracer.Span | undefined => {
  const span = spans.start(Operation.invokeAgent, "internal", undefined)
  if (span === undefined) return undefined
  span.attribute(Attr.operationName, Operation.invokeAgent)
  span.attribute(Attr.providerName, options.provider)
  span.attribute(Attr.conversationId, options.session)
  span.attribute(Attr.requestModel, options.model)
  span.attribute(Attr.runId, options.runId)
  return span
}

/** What the run span learns when the run ends. @internal */
export const runEnded = (status: string, error: ModelError.ModelError | undefined): Record<string, unknown> =>
  error === undefined ? { [Attr.status]: status } : { [Attr.status]: status, [Attr.errorType]: error.category }

/** A turn: the conventions name none, so it is the kernel's own. @internal */
export const turn = (
  spans: Effects.Spans,
  parent: Tracer.AnySpan | undefined,
  turn: number
): Tracer.Span | undefined => {
  const span = spans.start(SpanName.turn, "internal", parent)
  span?.attribute(Attr.turn, turn)
  return span
}

/** One attempt of a model call: the GenAI inference span, `chat {model}`. @internal */
export const modelCall = (
  spans: Effects.Spans,
  parent: Tracer.AnySpan | undefined,
  provider: string,
  request: ModelProvider.ModelRequest,
  info: { readonly turn: number; readonly attempt: number }
): Tracer.Span | undefined => {
  const span = spans.start(`${Operation.chat} ${request.model}`, "client", parent)
  if (span === undefined) return undefined
  span.attribute(Attr.operationName, Operation.chat)
  span.attribute(Attr.providerName, provider)
  span.attribute(Attr.requestModel, request.model)
  span.attribute(Attr.turn, info.turn)
  span.attribute(Attr.attempt, info.attempt)
  if (request.max_output_tokens !== undefined) span.attribute(Attr.requestMaxTokens, request.max_output_tokens)
  return span
}

/**
 * What a model call's span learns from its exit: the response's model,
 * finish reason and usage, or the error's category as `error.type` (see
 * `errorTypeOf`).
 *
 * @internal
 */
export const modelCallEnded = (
  exit: Exit.Exit<ModelProvider.ModelResponse, ModelError.ModelError>
): Record<string, unknown> => {
  if (Exit.isSuccess(exit)) {
    const { model, stop_reason, usage } = exit.value
    const attributes: Record<string, unknown> = {
      [Attr.responseModel]: model,
      [Attr.responseFinishReasons]: [stop_reason],
      [Attr.inputTokens]: usage.input_tokens,
      [Attr.outputTokens]: usage.output_tokens
    }
    if (usage.cache_read_tokens !== undefined) attributes[Attr.cacheReadTokens] = usage.cache_read_tokens
    if (usage.cache_write_tokens !== undefined) attributes[Attr.cacheWriteTokens] = usage.cache_write_tokens
    return attributes
  }
  return { [Attr.errorType]: errorTypeOf(exit.cause) }
}

/**
 * A failed call's `error.type`: the error's category; `interrupted` for a call
 * cut short (by the attempt bound, whose `Timeout` the loop sees after the
 * span has ended, or by the run's end); `unknown` for a defect.
 */
const errorTypeOf = (cause: Cause.Cause<ModelError.ModelError>): string => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) return failure.value.category
  return Cause.isInterruptedOnly(cause) ? "interrupted" : "unknown"
}

/** One tool call: the GenAI `execute_tool {name}` span. @internal */
export const toolCall = (
  spans: Effects.Spans,
  parent: Tracer.AnySpan | undefined,
  call: Content.ToolUseBlock,
  turn: number
): Tracer.Span | undefined => {
  const span = spans.start(`${Operation.executeTool} ${call.name}`, "internal", parent)
  if (span === undefined) return undefined
  span.attribute(Attr.operationName, Operation.executeTool)
  span.attribute(Attr.toolName, call.name)
  span.attribute(Attr.toolCallId, call.id)
  span.attribute(Attr.toolType, "function")
  span.attribute(Attr.turn, turn)
  return span
}

/** The error a tool span ends with when the call's result is an error result. @internal */
export class ToolErrorResult extends Data.TaggedError("ToolErrorResult")<{ readonly message: string }> {}

/**
 * A tool call's span ends as an error when its result is one (a crash, a
 * timeout, a denial, bad arguments): the toolbox never fails, so the exit
 * alone would say every call went well. This is the exit its span ends with.
 *
 * @internal
 */
export const toolCallExit = (exit: Exit.Exit<Content.ToolResultBlock>): Exit.Exit<unknown, unknown> =>
  Exit.isSuccess(exit) && exit.value.is_error ? Exit.fail(new ToolErrorResult({ message: exit.value.content })) : exit

/**
 * What a tool call's span learns from its exit: `error.type` when it ended
 * as an error (see `toolCallExit`), nothing when it went well.
 *
 * @internal
 */
export const toolCallEnded = (exit: Exit.Exit<Content.ToolResultBlock>): Record<string, unknown> | undefined => {
  if (Exit.isFailure(exit)) return { [Attr.errorType]: errorTypeOf(exit.cause) }
  return exit.value.is_error ? { [Attr.errorType]: "tool_error" } : undefined
}

/**
 * A retry's wait, with the decision that scheduled it.
 *
 * @internal
 */
export const retry = (
  spans: Effects.Spans,
  parent: Tracer.AnySpan | undefined,
  options: {
    readonly error: ModelError.ModelError
    readonly model: string
    readonly attempt: number
    readonly delayMs: number
    readonly source: string
    readonly budget: { readonly used: number; readonly remaining: number }
  }
): Tracer.Span | undefined => {
  const span = spans.start(SpanName.retry, "internal", parent)
  if (span === undefined) return undefined
  span.attribute(Attr.requestModel, options.model)
  span.attribute(Attr.errorType, options.error.category)
  span.attribute(Attr.retryCategory, options.error.category)
  span.attribute(Attr.retryAttempt, options.attempt)
  span.attribute(Attr.retryDelayMs, options.delayMs)
  span.attribute(Attr.retrySource, options.source)
  span.attribute(Attr.budgetUsed, options.budget.used)
  span.attribute(Attr.budgetLeft, options.budget.remaining)
  if (options.error.retryAfter !== undefined)
    span.attribute(Attr.retryAfterMs, Duration.toMillis(options.error.retryAfter))
  return span
}

/** A fallback to the next model of the chain, as an event of the turn's span. @internal */
export const fallback = (options: {
  readonly from: string
  readonly to: string
  readonly category: ModelError.Category
  readonly budget: { readonly used: number; readonly remaining: number }
}): Record<string, unknown> => ({
  [Attr.fallbackFrom]: options.from,
  [Attr.fallbackTo]: options.to,
  [Attr.fallbackCategory]: options.category,
  [Attr.budgetUsed]: options.budget.used,
  [Attr.budgetLeft]: options.budget.remaining
})

/** A context reduction, as an event of the turn's span. @internal */
export const contextReduced = (options: {
  readonly before: number
  readonly after: number
  readonly target: number
  readonly reductions: number
}): Record<string, unknown> => ({
  [Attr.reducedBefore]: options.before,
  [Attr.reducedAfter]: options.after,
  [Attr.reducedTarget]: options.target,
  [Attr.reductions]: options.reductions
})
