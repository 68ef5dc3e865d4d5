/**
 * What `McpStdio` needs on Node, in one layer: the `ChildProcessSpawner`,
 * `FileSystem` and `Path` of `@effect/platform-node`, with the portable
 * spawner (`ProcessSpawner.platform`) set as the one that starts and watches
 * plugin processes.
 *
 * There is one spawner: `effect/process` starts the process and reports its
 * pipes and its exit, and /proc is read through the `FileSystem`. A spawner
 * of our own on `node:child_process` saw a crash no sooner on Effect 4
 * (`pnpm run bench:crash`, see bench/README.md), so `make` and `layerSpawner`
 * give the portable one.
 *
 * @since 0.1.0
 */
import * as NodeChildProcessSpawner from "@effect/platform-node/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as Path from "effect/Path"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as ProcessSpawner from "../ProcessSpawner.js"

/**
 * The spawner for Node: the portable one, `ProcessSpawner.platform`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (): ProcessSpawner.Service => ProcessSpawner.platform

/**
 * Sets the spawner for Node as the one `McpStdio` uses.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSpawner: Layer.Layer<never> = ProcessSpawner.layer(make())

/**
 * Everything `McpStdio` needs on Node: the spawner, and the
 * `ChildProcessSpawner`, `FileSystem` and `Path` of `@effect/platform-node`.
 *
 * @example
 * ```ts
 * import { McpStdio, PluginToolbox } from "@agent-kernel/plugins"
 * import { NodeProcessSpawner } from "@agent-kernel/plugins/node"
 * import { Layer } from "effect"
 *
 * const ToolsLive = PluginToolbox.layer({
 *   providers: [McpStdio.make({ name: "everything", command: "mcp-server-everything" })]
 * }).pipe(Layer.provide(NodeProcessSpawner.layer))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem | Path.Path> =
  Layer.mergeAll(
    layerSpawner,
    NodeChildProcessSpawner.layer.pipe(Layer.provideMerge(Layer.merge(NodeFileSystem.layer, NodePath.layer)))
  )
