/**
 * An @effect/ai `Toolkit` run by the kernel: a `ToolProvider` for
 * `@agent-kernel/plugins`' `PluginToolbox`, so a toolkit's tools get what
 * every plugin gets: the permission gate, `tool_timeout_ms`, a circuit
 * breaker and result truncation, and every failure comes back to the model
 * as an `is_error` tool_result.
 *
 * | handler outcome | tool_result |
 * |---|---|
 * | success | the encoded success (text as is, anything else as JSON) |
 * | typed failure (`failureMode: "error"`), or a failure returned (`failureMode: "return"`) | `is_error`, the encoded failure (`ToolFailed`: the model can adapt; not counted by the breaker) |
 * | arguments that do not decode with the tool's parameters | `is_error`, the parse issues (`InvalidInput`; not counted) |
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
import * as AiError from "@effect/ai/AiError"
import * as Tool from "@effect/ai/Tool"
import type * as Toolkit from "@effect/ai/Toolkit"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import type * as Scope from "effect/Scope"

const render = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value === undefined) return ""
  return JSON.stringify(value) ?? String(value)
}

/**
 * A failure as the model reads it: a tagged error as JSON (its tag and
 * fields), another error's message, any other value as JSON.
 */
const describe = (error: unknown): string =>
  error instanceof Error && error.message !== "" && !("_tag" in error) ? error.message : render(error)

const issuesOf = (error: AiError.AiError): string => {
  const cause = "cause" in error ? error.cause : undefined
  const issues = ParseResult.isParseError(cause) ? ParseResult.TreeFormatter.formatErrorSync(cause) : undefined
  return [error.description, issues].filter((part) => part !== undefined).join("\n")
}

const fromCause = (
  cause: Cause.Cause<unknown>,
  provider: string,
  tool: Tool.Any
): Effect.Effect<never, PluginError.PluginError> => {
  if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) {
    return Effect.fail(new PluginError.ToolDefect({ provider, tool: tool.name, reason: describe(Cause.squash(cause)) }))
  }
  const error = failure.value
  if (AiError.isAiError(error) && error.module === "Toolkit") {
    // The toolkit's own checks: arguments that do not decode (the model can
    // fix them), or a result that breaks the tool's schema (a bug in it).
    return Effect.fail(
      error._tag === "MalformedOutput"
        ? new PluginError.InvalidInput({ provider, tool: tool.name, issues: issuesOf(error) })
        : new PluginError.ToolDefect({ provider, tool: tool.name, reason: issuesOf(error) })
    )
  }
  return Effect.fail(new PluginError.ToolFailed({ provider, tool: tool.name, text: describe(error) }))
}

/**
 * The toolkit's handlers, seen without its type parameter: the toolkit
 * decodes each call's arguments with the tool's own Schema, so any input
 * may be handed to it.
 */
type Handle = (name: string, params: unknown) => Effect.Effect<Tool.HandlerResult<Tool.Any>, unknown>

/**
 * A tool provider running the toolkit's handlers from context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <Tools extends Record<string, Tool.Any>>(
  name: string,
  toolkit: Toolkit.Toolkit<Tools>
): Effect.Effect<ToolProvider.ToolProvider, never, Tool.HandlersFor<Tools> | Tool.Requirements<Tools[keyof Tools]>> =>
  Effect.gen(function* () {
    const withHandler = yield* toolkit
    const context = yield* Effect.context<Tool.Requirements<Tools[keyof Tools]>>()
    const handle = withHandler.handle as unknown as Handle
    const tools = new Map<string, Tool.Any>()
    for (const tool of Object.values(toolkit.tools)) if (Tool.isUserDefined(tool)) tools.set(tool.name, tool)
    const definitions: ReadonlyArray<ModelProvider.ToolDefinition> = [...tools.values()].map((tool) => ({
      name: tool.name,
      description: tool.description ?? Tool.getDescriptionFromSchemaAst(tool.parametersSchema.ast) ?? "",
      input_schema: { ...Tool.getJsonSchemaFromSchemaAst(tool.parametersSchema.ast) }
    }))
    return {
      name,
      list: Effect.succeed(definitions),
      changed: Effect.succeed(false),
      call: (toolName, input) => {
        const tool = tools.get(toolName)
        if (tool === undefined) {
          return Effect.fail(new PluginError.UnknownTool({ tool: toolName, available: [...tools.keys()] }))
        }
        return handle(toolName, input).pipe(
          Effect.provide(context),
          Effect.catchAllCause((cause) => fromCause(cause, name, tool)),
          Effect.flatMap(({ isFailure, encodedResult }) =>
            isFailure
              ? Effect.fail(new PluginError.ToolFailed({ provider: name, tool: toolName, text: render(encodedResult) }))
              : Effect.succeed(render(encodedResult))
          )
        )
      },
      reset: () => Effect.void
    }
  })

/**
 * The kernel's `Toolbox` running one toolkit, through `PluginToolbox`
 * (gate, timeout, breaker, truncation, with `settings` as there).
 *
 * @example
 * ```ts
 * import { ToolkitProvider } from "@agent-kernel/ai"
 * import { Tool, Toolkit } from "@effect/ai"
 * import { Effect, Layer, Schema } from "effect"
 *
 * const Add = Tool.make("add", {
 *   description: "Adds two numbers",
 *   parameters: { a: Schema.Number, b: Schema.Number },
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
  Exclude<Tool.HandlersFor<Tools> | Tool.Requirements<Tools[keyof Tools]>, Scope.Scope>
> => PluginToolbox.layer({ providers: [make(name, toolkit)], settings })
