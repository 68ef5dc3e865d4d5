/**
 * The toolbox: the tools the loop offers the model and runs for it.
 *
 * Its one rule is that `invoke` never fails. A crash, a timeout, a denial or a
 * bad argument becomes an `is_error` tool_result, so the model can observe
 * and adapt and the session goes on. `@agent-kernel/plugins` builds one from
 * tool providers, a permission gate and circuit breakers.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Content from "./Content.js"
import type * as ModelProvider from "./ModelProvider.js"

/**
 * What a toolbox does.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /**
   * The tools to offer on the next model request (tools behind an open
   * breaker are withdrawn). The array may be one the toolbox changes between
   * requests; a definition in it is a value: a changed tool is a new object.
   * The kernel keeps what it derives from a definition (the request's token
   * estimate) while it gets the same object back.
   */
  readonly definitions: Effect.Effect<ReadonlyArray<ModelProvider.ToolDefinition>>
  /** Runs one call. Every failure is an `is_error` result, never an Effect failure. */
  readonly invoke: (call: Content.ToolUseBlock) => Effect.Effect<Content.ToolResultBlock>
  /**
   * Called when a run is interrupted, after its pending calls are: release
   * what the run may have left behind (plugin processes). Optional.
   */
  readonly onRunInterrupted?: Effect.Effect<void> | undefined
}

/**
 * A toolbox with no tools. A call that still arrives gets an error result.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: Service = {
  definitions: Effect.succeed([]),
  invoke: (call) =>
    Effect.succeed(Content.toolResult(call.id, `Unknown tool "${call.name}": no tools are available.`, true))
}

/**
 * The toolbox service. Default: `empty`, no tools (it holds no state, so one
 * value serves every session).
 *
 * @since 0.1.0
 * @category tags
 */
export const Toolbox: Context.Reference<Service> = Context.Reference<Service>("@agent-kernel/kernel/Toolbox", {
  defaultValue: () => empty
})

/**
 * The identifier of a layer that provides `Toolbox`: `never`, as for every
 * `Context.Reference`, which always has a value.
 *
 * @since 0.1.0
 * @category tags
 */
export type Toolbox = Context.Service.Identifier<typeof Toolbox>

/**
 * A layer with this toolbox.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (toolbox: Service): Layer.Layer<Toolbox> => Layer.succeed(Toolbox, toolbox)

/**
 * A layer with no tools.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEmpty: Layer.Layer<Toolbox> = layer(empty)
