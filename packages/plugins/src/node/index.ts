/**
 * The Node-only part of the plugins: the layer that gives `McpStdio` what it
 * needs from `@effect/platform-node`. Import it from
 * `@agent-kernel/plugins/node`; the main entry runs on any platform with a
 * `ChildProcessSpawner` (`effect/process`) and a `FileSystem`.
 *
 * @since 0.1.0
 */

/**
 * What `McpStdio` needs on Node, in one layer.
 *
 * @since 0.1.0
 */
export * as NodeProcessSpawner from "./NodeProcessSpawner.js"
