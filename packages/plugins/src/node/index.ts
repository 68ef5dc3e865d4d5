/**
 * The Node-only part of the plugins: the spawner that watches plugin
 * processes straight from `node:child_process`. Import it from
 * `@agent-kernel/plugins/node`; the main entry runs on any platform with a
 * `ChildProcessSpawner` (`effect/process`).
 *
 * @since 0.1.0
 */

/**
 * Plugin processes started and watched with `node:child_process`: crashes seen sooner.
 *
 * @since 0.1.0
 */
export * as NodeProcessSpawner from "./NodeProcessSpawner.js"
