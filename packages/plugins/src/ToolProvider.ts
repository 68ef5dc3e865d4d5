/**
 * A tool provider: something that lists tools and runs them. In-process
 * providers (`InProcessTools`) and MCP stdio subprocesses (`McpStdio`) are
 * both providers; `PluginToolbox` puts a gate, a timeout and a circuit breaker
 * in front of each and turns every failure into an `is_error` tool_result.
 *
 * @since 0.1.0
 */
import type { ModelProvider } from "@agent-kernel/kernel"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as PluginError from "./PluginError.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolProvider {
  /** Names the provider in error results, events and its breaker's `subject`. */
  readonly name: string
  /** The tools it offers. May start the provider (an MCP server is spawned to be asked). */
  readonly list: Effect.Effect<ReadonlyArray<ModelProvider.ToolDefinition>, PluginError.PluginError>
  /** Whether its tools changed since the last `list` (an MCP server said `notifications/tools/list_changed`). */
  readonly changed: Effect.Effect<boolean>
  /** Runs one tool. Interruption cancels the call. */
  readonly call: (tool: string, input: unknown) => Effect.Effect<string, PluginError.PluginError>
  /** Releases live resources (kills a subprocess); the next `list` or `call` starts afresh. */
  readonly reset: (reason: string) => Effect.Effect<void>
}

/**
 * Why a call is being cancelled, read when the call is interrupted: the MCP
 * provider sends it in `notifications/cancelled`. `PluginToolbox` sets it
 * around every call, so the server learns whether it timed out.
 *
 * @since 0.1.0
 * @category references
 */
export const CancelReason: Context.Reference<() => string> = Context.Reference<() => string>(
  "@agent-kernel/plugins/ToolProvider/CancelReason",
  { defaultValue: () => () => "the call was interrupted" }
)
