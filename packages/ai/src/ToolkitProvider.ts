/**
 * An effect/ai `Toolkit` run by the kernel: a `ToolProvider` for
 * `@agent-kernel/plugins`' `PluginToolbox`, so a toolkit's tools get what
 * every plugin gets: the permission gate, `tool_timeout_ms`, a circuit
 * breaker and result truncation, and every failure comes back to the model
 * as an `is_error` tool_result.
 *
 * | handler outcome | tool_result |
 * |---|---|
 * | success | the encoded success (text as is, anything else as JSON) |
 * | typed failure (`failureMode: "error"`), or a failure returned (`failureMode: "return"`) | `is_error`, the encoded failure (`ToolFailed`: the model can adapt; not counted by the breaker) |
 * | arguments that do not decode with the tool's parameters | `is_error`, the issues (`InvalidInput`; not counted) |
 * | a defect, or a result that does not match its own schema | `is_error` (`ToolDefect`: counted by the breaker) |
 * | interruption | propagated, as for any plugin |
 *
 * Provider-defined tools (Anthropic's web search, OpenAI's code
 * interpreter...) run at the provider, not here, and are not offered.
 *
 * @since 0.1.0
 */
import type { ModelProvider, Toolbox } from "@agent-kernel/kernel"
import { PluginError, PluginToolbox, type ToolProvider } from "@agent-kernel/plugins"
import * as AiError from "effect/ai/AiError"
import * as Tool from "effect/ai/Tool"
import type * as Toolkit from "effect/ai/Toolkit"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

const render = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value === undefined) return ""
  return JSON.stringify(value) ?? String(value)
}

/** A failure or a defect as the model reads it: an error's message, any other value as JSON. */
const describe = (value: unknown): string =>
  value instanceof Error && value.message !== "" && !("_tag" in value) ? value.message : render(value)

/**
 * The encoder of a tool's failure schema. Its services are the handler's,
 * which `make` requires and provides around every call.
 */
const failureEncoder = (tool: Tool.Any) =>
  Schema.encodeUnknownEffect(tool.failureSchema) as (failure: unknown) => Effect.Effect<unknown, Schema.SchemaError>

/** A tool's typed failure as the model reads it: encoded by the tool's own failure schema, as JSON. */
const encodeFailure = (tool: Tool.Any, failure: unknown): Effect.Effect<string> =>
  failureEncoder(tool)(failure).pipe(
    Effect.map(render),
    Effect.orElseSucceed(() => describe(failure))
  )

/** The toolkit's own checks: arguments that do not decode (the model can fix them), a result that breaks the tool's schema (a bug in it). */
const fromToolkitError = (error: AiError.AiError, provider: string, tool: string): PluginError.PluginError => {
  switch (error.reason._tag) {
    case "ToolParameterValidationError":
      return new PluginError.InvalidInput({ provider, tool, issues: error.reason.description })
    case "InvalidToolResultError":
    case "ToolResultEncodingError":
      return new PluginError.ToolDefect({ provider, tool, reason: error.reason.message })
    default:
      return new PluginError.ToolFailed({ provider, tool, text: error.message })
  }
}

const fromCause = (
  cause: Cause.Cause<unknown>,
  provider: string,
  tool: Tool.Any
): Effect.Effect<never, PluginError.PluginError> => {
  if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
  const failure = Cause.findErrorOption(cause)
  if (Option.isNone(failure)) {
    return Effect.fail(new PluginError.ToolDefect({ provider, tool: tool.name, reason: describe(Cause.squash(cause)) }))
  }
  const error = failure.value
  if (AiError.isAiError(error)) return Effect.fail(fromToolkitError(error, provider, tool.name))
  return Effect.flatMap(encodeFailure(tool, error), (text) =>
    Effect.fail(new PluginError.ToolFailed({ provider, tool: tool.name, text }))
  )
}

/** The final result of a handler's stream, as the text the model reads. */
const finalResult = (
  result: Tool.HandlerResult<Tool.Any>,
  provider: string,
  tool: Tool.Any
): Effect.Effect<string, PluginError.PluginError> => {
  if (!result.isFailure) return Effect.succeed(render(result.encodedResult))
  if (AiError.isAiError(result.result)) return Effect.fail(fromToolkitError(result.result, provider, tool.name))
  return Effect.fail(new PluginError.ToolFailed({ provider, tool: tool.name, text: render(result.encodedResult) }))
}

/**
 * The toolkit's handler, seen without its type parameter: the toolkit
 * decodes each call's arguments with the tool's own Schema, so any input
 * may be handed to it.
 */
type Handle = (
  name: string,
  params: unknown
) => Effect.Effect<Stream.Stream<Tool.HandlerResult<Tool.Any>, unknown>, AiError.AiError>

/** The tools a toolkit runs here: its own (user-defined or dynamic), not the provider's. */
const runnable = (tools: Record<string, Tool.Any>): ReadonlyMap<string, Tool.Any> =>
  new Map(
    Object.values(tools)
      .filter((tool) => !Tool.isProviderDefined(tool))
      .map((tool) => [tool.name, tool] as const)
  )

const definitionOf = (tool: Tool.Any): ModelProvider.ToolDefinition => ({
  name: tool.name,
  description: Tool.getDescription(tool) ?? "",
  input_schema: { ...Tool.getJsonSchema(tool) }
})

/**
 * A tool provider running the toolkit's handlers from context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <Tools extends Record<string, Tool.Any>>(
  name: string,
  toolkit: Toolkit.Toolkit<Tools>
): Effect.Effect<
  ToolProvider.ToolProvider,
  never,
  Tool.HandlersFor<Tools> | Tool.HandlerServices<Tools[keyof Tools]>
> =>
  Effect.gen(function* () {
    const withHandler = yield* toolkit
    const context = yield* Effect.context<Tool.HandlerServices<Tools[keyof Tools]>>()
    // The toolkit decodes the arguments itself; its generic signature is erased here.
    const handle = withHandler.handle as unknown as Handle
    const tools = runnable(toolkit.tools)
    const definitions = [...tools.values()].map(definitionOf)
    const call = (toolName: string, input: unknown): Effect.Effect<string, PluginError.PluginError> => {
      const tool = tools.get(toolName)
      if (tool === undefined) {
        return Effect.fail(new PluginError.UnknownTool({ tool: toolName, available: [...tools.keys()] }))
      }
      return handle(toolName, input).pipe(
        Effect.flatMap((results) => Stream.runLast(Stream.filter(results, (result) => !result.preliminary))),
        Effect.catchCause((cause) => fromCause(cause, name, tool)),
        Effect.flatMap((last) =>
          Option.isSome(last)
            ? finalResult(last.value, name, tool)
            : Effect.fail(
                new PluginError.ToolDefect({ provider: name, tool: toolName, reason: "the handler gave no result" })
              )
        ),
        Effect.provideContext(context)
      )
    }
    return {
      name,
      list: Effect.succeed(definitions),
      changed: Effect.succeed(false),
      call,
      reset: () => Effect.void
    }
  })

/**
 * The kernel's `Toolbox` running one toolkit, through `PluginToolbox`
 * (gate, timeout, breaker, truncation, with `settings` as there).
 *
 * @example
 * ```ts
 * import * as ToolkitProvider from "@agent-kernel/ai/ToolkitProvider"
 * import { Effect, Layer, Schema } from "effect"
 * import { Tool, Toolkit } from "effect/ai"
 *
 * const Add = Tool.make("add", {
 *   description: "Adds two numbers",
 *   parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
 *   success: Schema.Number
 * })
 * const Math = Toolkit.make(Add)
 * const toolbox = ToolkitProvider.layerToolbox("math", Math).pipe(
 *   Layer.provide(Math.toLayer({ add: ({ a, b }) => Effect.succeed(a + b) }))
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerToolbox = <Tools extends Record<string, Tool.Any>>(
  name: string,
  toolkit: Toolkit.Toolkit<Tools>,
  settings?: Partial<PluginToolbox.ToolSettings>
): Layer.Layer<
  Toolbox.Toolbox,
  never,
  Exclude<Tool.HandlersFor<Tools> | Tool.HandlerServices<Tools[keyof Tools]>, Scope.Scope>
> => PluginToolbox.layer({ providers: [make(name, toolkit)], settings })
