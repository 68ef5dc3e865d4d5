/**
 * The names the kernel's spans, span events and metric attributes carry:
 * the OpenTelemetry GenAI semantic conventions where they name a thing
 * (version `semconvVersion`, `gen_ai.provider.name` rather than the older
 * `gen_ai.system`), and `agent_kernel.*` for what they do not (a retry
 * decision, a fallback, a context reduction, a turn). Every function here is
 * pure: it turns what the loop knows into a span's options or attributes,
 * which the loop hands to `Effect.withSpan`/`Effect.useSpan`. No other module
 * spells an attribute name.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Tracer from "effect/Tracer"
import type * as Content from "../Content.js"
import type * as ModelError from "../ModelError.js"
import type * as ModelProvider from "../ModelProvider.js"

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

/** No stack frame is captured for the kernel's spans: their names say where they are. */
const traceOptions: Tracer.TraceOptions = { captureStackTrace: false }

/**
 * Runs `body` in a span named `name` that is the current span inside it, as
 * `Effect.withSpan` does, with the span handed to `body` so it can write
 * what it learns before the span ends: for a call whose provider or toolbox
 * makes spans of its own, or reads its own.
 *
 * @internal
 */
export const withSpan = <A, E, R>(
  name: string,
  options: Tracer.SpanOptionsNoTrace,
  body: (span: Tracer.Span) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.useSpan(name, options, (span) => Effect.withParentSpan(body(span), span, traceOptions))

/**
 * Runs `body` in a span named `name` that is the current span inside it, the
 * parent of the spans `body` makes, handed to `body`. Unlike `withSpan` it
 * names no stack frame: for a call whose causes the kernel turns into
 * messages of its own rather than printing them (a model call).
 *
 * @internal
 */
export const withCallSpan = <A, E, R>(
  name: string,
  options: Tracer.SpanOptionsNoTrace,
  body: (span: Tracer.Span) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.useSpan(name, options, (span) => Effect.provideService(body(span), Tracer.ParentSpan, span))

/**
 * Runs `body` in a span named `name` that ends with it, handed to `body`:
 * the parent of the spans `body` makes by naming it (`SpanOptions.parent`),
 * for a span whose work makes no span of its own (a turn, a retry's wait).
 *
 * @internal
 */
export const useSpan: <A, E, R>(
  name: string,
  options: Tracer.SpanOptionsNoTrace,
  body: (span: Tracer.Span) => Effect.Effect<A, E, R>
) => Effect.Effect<A, E, R> = Effect.useSpan

/** Writes attributes into a span. @internal */
export const annotate = (span: Tracer.Span, attributes: Record<string, unknown> | undefined): void => {
  if (attributes !== undefined) for (const key in attributes) span.attribute(key, attributes[key])
}

/** A run of a session: the GenAI "invoke agent" span, in-process. @internal */
export const run = (options: {
  readonly session: string
  readonly runId: string
  readonly provider: string
  readonly model: string
}): Tracer.SpanOptionsNoTrace => ({
  kind: "internal",
  attributes: {
    [Attr.operationName]: Operation.invokeAgent,
    [Attr.providerName]: options.provider,
    [Attr.conversationId]: options.session,
    [Attr.requestModel]: options.model,
    [Attr.runId]: options.runId
  }
})

/** What the run span learns when the run ends. @internal */
export const runEnded = (status: string, error: ModelError.ModelError | undefined): Record<string, unknown> =>
  error === undefined ? { [Attr.status]: status } : { [Attr.status]: status, [Attr.errorType]: error.category }

/** A turn: the conventions name none, so it is the kernel's own. @internal */
export const turn = (turn: number): Tracer.SpanOptionsNoTrace => ({
  kind: "internal",
  attributes: { [Attr.turn]: turn }
})

/** One attempt of a model call: the GenAI inference span, `chat {model}`. @internal */
export const modelCall = (
  provider: string,
  request: ModelProvider.ModelRequest,
  info: { readonly turn: number; readonly attempt: number; readonly parent: Tracer.AnySpan | undefined }
): Tracer.SpanOptionsNoTrace => {
  const attributes: Record<string, unknown> = {
    [Attr.operationName]: Operation.chat,
    [Attr.providerName]: provider,
    [Attr.requestModel]: request.model,
    [Attr.turn]: info.turn,
    [Attr.attempt]: info.attempt
  }
  if (request.max_output_tokens !== undefined) attributes[Attr.requestMaxTokens] = request.max_output_tokens
  return { kind: "client", attributes, parent: info.parent }
}

/** @internal */
export const modelCallName = (request: ModelProvider.ModelRequest): string => `${Operation.chat} ${request.model}`

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
  if (Exit.isFailure(exit)) return { [Attr.errorType]: errorTypeOf(exit.cause) }
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

/**
 * A failed call's `error.type`: the error's category; `interrupted` for a
 * call cut short (by the attempt's timeout or the run's end); `unknown` for a
 * defect.
 */
const errorTypeOf = (cause: Cause.Cause<ModelError.ModelError | ToolErrorResult>): string => {
  const error = Cause.findErrorOption(cause)
  if (error._tag === "Some") return error.value._tag === "ToolErrorResult" ? "tool_error" : error.value.category
  return Cause.hasInterruptsOnly(cause) ? "interrupted" : "unknown"
}

/** One tool call: the GenAI `execute_tool {name}` span. @internal */
export const toolCall = (
  call: Content.ToolUseBlock,
  info: { readonly turn: number; readonly parent: Tracer.AnySpan | undefined }
): Tracer.SpanOptionsNoTrace => ({
  kind: "internal",
  parent: info.parent,
  attributes: {
    [Attr.operationName]: Operation.executeTool,
    [Attr.toolName]: call.name,
    [Attr.toolCallId]: call.id,
    [Attr.toolType]: "function",
    [Attr.turn]: info.turn
  }
})

/** @internal */
export const toolCallName = (call: Content.ToolUseBlock): string => `${Operation.executeTool} ${call.name}`

/**
 * The failure a tool span ends with when the call's result is an error
 * result (a crash, a timeout, a denial, bad arguments): the toolbox never
 * fails, so its exit alone would say every call went well.
 *
 * @internal
 */
export class ToolErrorResult extends Data.TaggedError("ToolErrorResult")<{
  readonly message: string
  readonly result: Content.ToolResultBlock
}> {}

/**
 * What a tool call's span learns when it ends as an error: `error.type`.
 *
 * @internal
 */
export const toolCallEnded = (cause: Cause.Cause<ToolErrorResult>): Record<string, unknown> => ({
  [Attr.errorType]: errorTypeOf(cause)
})

/** A retry's wait, with the decision that scheduled it. @internal */
export const retry = (options: {
  readonly parent: Tracer.AnySpan
  readonly error: ModelError.ModelError
  readonly model: string
  readonly attempt: number
  readonly delayMs: number
  readonly source: string
  readonly budget: { readonly used: number; readonly remaining: number }
}): Tracer.SpanOptionsNoTrace => {
  const attributes: Record<string, unknown> = {
    [Attr.requestModel]: options.model,
    [Attr.errorType]: options.error.category,
    [Attr.retryCategory]: options.error.category,
    [Attr.retryAttempt]: options.attempt,
    [Attr.retryDelayMs]: options.delayMs,
    [Attr.retrySource]: options.source,
    [Attr.budgetUsed]: options.budget.used,
    [Attr.budgetLeft]: options.budget.remaining
  }
  if (options.error.retryAfter !== undefined)
    attributes[Attr.retryAfterMs] = Duration.toMillis(options.error.retryAfter)
  return { kind: "internal", attributes, parent: options.parent }
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

/**
 * Adds an event to a span at the Clock's time (when tracing's timing is on,
 * as for the span's own times).
 *
 * @internal
 */
export const event = (span: Tracer.Span, name: string, attributes: Record<string, unknown>): Effect.Effect<void> =>
  Effect.clockWith((clock) => Effect.sync(() => span.event(name, clock.currentTimeNanosUnsafe(), attributes)))
