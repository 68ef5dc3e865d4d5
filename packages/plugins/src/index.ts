/**
 * Tool providers for the kernel: in-process tools, MCP stdio subprocesses,
 * the permission gate, and the `Toolbox` that puts them behind circuit
 * breakers.
 *
 * @since 0.1.0
 */

/**
 * The permission gate: allow or deny each call before it runs.
 *
 * @since 0.1.0
 */
export * as Gate from "./Gate.js"

/**
 * Tools with Schema-typed parameters and Effect handlers.
 *
 * @since 0.1.0
 */
export * as InProcessTools from "./InProcessTools.js"

/**
 * MCP servers over stdio, as scoped subprocesses whose crashes are seen at once.
 *
 * @since 0.1.0
 */
export * as McpStdio from "./McpStdio.js"

/**
 * Why a tool call failed, with the category and text the model sees.
 *
 * @since 0.1.0
 */
export * as PluginError from "./PluginError.js"

/**
 * How plugin processes are started and watched; the portable spawner is the default.
 *
 * @since 0.1.0
 */
export * as ProcessSpawner from "./ProcessSpawner.js"

/**
 * The kernel's `Toolbox`, built from providers, a gate and per-provider breakers.
 *
 * @since 0.1.0
 */
export * as PluginToolbox from "./PluginToolbox.js"

/**
 * The interface every tool provider implements.
 *
 * @since 0.1.0
 */
export * as ToolProvider from "./ToolProvider.js"
