/**
 * Tool providers for the kernel: in-process tools, MCP stdio subprocesses,
 * the permission gate, and the `Toolbox` that puts them behind circuit
 * breakers.
 *
 * @since 0.1.0
 */
export * as Gate from "./Gate.js"
export * as InProcessTools from "./InProcessTools.js"
export * as McpStdio from "./McpStdio.js"
export * as PluginError from "./PluginError.js"
export * as PluginToolbox from "./PluginToolbox.js"
export * as ToolProvider from "./ToolProvider.js"
