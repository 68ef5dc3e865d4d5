/**
 * In-process tools: Schema-typed parameters and Effect handlers, offered to
 * the model as a `ToolProvider`.
 *
 * Arguments are decoded with the tool's Schema; a bad input becomes an
 * `InvalidInput` the model can correct. A typed failure of the handler is a
 * `ToolFailed` (the tool ran and said no); a defect is a `ToolDefect`, which
 * counts toward the provider's breaker.
 *
 * @since 0.1.0
 */
import type { ModelProvider, Toolbox } from "@agent-kernel/kernel"
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as ModelArguments from "./internal/modelArguments.js"
import * as PluginError from "./PluginError.js"
import * as PluginToolbox from "./PluginToolbox.js"
import type * as ToolProvider from "./ToolProvider.js"

/**
 * One tool. `R` is what its handler needs from context.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool<R = never> {
  readonly name: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
  /** Decodes the arguments and runs the handler; the text is what the model sees. */
  readonly run: (input: unknown, provider: string) => Effect.Effect<string, PluginError.PluginError, R>
}

/**
 * Defines a tool. The handler's success is shown to the model as is when it
 * is a string, as JSON otherwise.
 *
 * The model is offered the parameters as a plain JSON Schema of what it writes,
 * with their descriptions and checks (bounds, lengths, patterns): a number is a
 * JSON number, an optional field may be left out (`null` is not accepted for
 * it), a `Schema.Date` is an ISO string. Its arguments are decoded from that
 * JSON, and each issue names the field and what was sent
 * (`Expected number, got "two"\n  at ["a"]`).
 *
 * @example
 * ```ts
 * import { InProcessTools } from "@agent-kernel/plugins"
 * import { Effect, Schema } from "effect"
 *
 * const add = InProcessTools.tool({
 *   name: "add",
 *   description: "Adds two numbers",
 *   parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
 *   handler: ({ a, b }) => Effect.succeed(a + b)
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const tool = <A, I, E, R>(options: {
  readonly name: string
  readonly description: string
  readonly parameters: Schema.Codec<A, I>
  readonly handler: (parameters: A) => Effect.Effect<unknown, E, R>
}): Tool<R> => {
  const parameters = ModelArguments.forModel(options.parameters)
  // The input is JSON from the model: decoded by the JSON codec the offered schema describes, each issue with what was sent.
  const decode = Schema.decodeUnknownEffect(Schema.toCodecJson(parameters), { errors: "all", reportInput: true })
  return {
    name: options.name,
    description: options.description,
    inputSchema: inputSchemaOf(parameters),
    run: (input, provider) =>
      decode(input).pipe(
        Effect.mapError(
          (error) =>
            new PluginError.InvalidInput({
              provider,
              tool: options.name,
              issues: error.message
            })
        ),
        Effect.flatMap((decoded) =>
          Effect.suspend(() => options.handler(decoded)).pipe(
            Effect.catchCause((cause) =>
              Cause.hasInterruptsOnly(cause)
                ? Effect.failCause(Cause.fromReasons<never>(cause.reasons.filter(Cause.isInterruptReason)))
                : Effect.fail(fromCause(cause, provider, options.name))
            )
          )
        ),
        Effect.map(render)
      )
  }
}

const inputSchemaOf = (schema: Schema.Constraint): Record<string, unknown> => {
  // What the model may send: the JSON codec's side, with no properties beyond those modelled.
  const document = Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  return Object.keys(document.definitions).length === 0
    ? { ...document.schema }
    : { ...document.schema, $defs: document.definitions }
}

const render = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value === undefined) return ""
  return JSON.stringify(value) ?? String(value)
}

const fromCause = <E>(cause: Cause.Cause<E>, provider: string, tool: string): PluginError.PluginError => {
  const failure = Cause.findErrorOption(cause)
  if (failure._tag === "Some") {
    return new PluginError.ToolFailed({ provider, tool, text: describe(failure.value) })
  }
  return new PluginError.ToolDefect({ provider, tool, reason: describe(Cause.squash(cause)) })
}

const describe = (error: unknown): string => {
  if (error instanceof Error) return error.message === "" ? error.name : error.message
  if (typeof error === "string") return error
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    return error.message
  }
  return JSON.stringify(error) ?? String(error)
}

/**
 * Builds a provider from tools. The handlers run with the context this
 * effect is run in.
 *
 * @example
 * ```ts
 * import { InProcessTools } from "@agent-kernel/plugins"
 * import { Effect, Schema } from "effect"
 *
 * const math = InProcessTools.make("math", [
 *   InProcessTools.tool({
 *     name: "add",
 *     description: "Adds two numbers",
 *     parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
 *     handler: ({ a, b }) => Effect.succeed(a + b)
 *   })
 * ])
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <R = never>(
  name: string,
  tools: ReadonlyArray<Tool<R>>
): Effect.Effect<ToolProvider.ToolProvider, never, R> =>
  Effect.map(Effect.context<R>(), (context: Context.Context<R>) => {
    const byName = new Map(tools.map((t) => [t.name, t] as const))
    const definitions: ReadonlyArray<ModelProvider.ToolDefinition> = tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema
    }))
    return {
      name,
      list: Effect.succeed(definitions),
      changed: Effect.succeed(false),
      call: (toolName, input) => {
        const found = byName.get(toolName)
        return found === undefined
          ? Effect.fail(new PluginError.UnknownTool({ tool: toolName, available: [...byName.keys()] }))
          : Effect.provide(found.run(input, name), context)
      },
      reset: () => Effect.void
    }
  })

/**
 * A toolbox of these tools, as a Layer for `Agent.layer({ tools })`: one
 * provider (named `options.name`, default `"tools"`) in a `PluginToolbox`,
 * so a call still goes through the breaker, the `Gate` in context and
 * `tool_timeout_ms`, and every failure is an error result. The tool settings
 * are the agent's (`Agent.CurrentSettings`), `Settings.defaults` outside an
 * agent.
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { InProcessTools } from "@agent-kernel/plugins"
 * import { Anthropic } from "@agent-kernel/providers"
 * import { Effect, Schema } from "effect"
 *
 * const weather = InProcessTools.tool({
 *   name: "weather",
 *   description: "Today's weather in a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   handler: ({ city }) => Effect.succeed(`Sunny in ${city}, 21 °C`)
 * })
 * const tools = InProcessTools.layer([weather])
 * const agent = Agent.layer({ model: "claude-sonnet-4-5", provider: Anthropic.layerFetch(), tools })
 * ```
 *
 * @since 0.5.0
 * @category layers
 */
export const layer = <R = never>(
  tools: ReadonlyArray<Tool<R>>,
  options?: { readonly name?: string | undefined }
): Layer.Layer<Toolbox.Toolbox, never, R> => PluginToolbox.layer({ providers: [make(options?.name ?? "tools", tools)] })
