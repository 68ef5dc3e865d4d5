/**
 * The `agent` bin: Node's compile cache first, so that the modules loaded
 * next are compiled once and read from the cache on later starts, then the
 * command line (main.ts). The bundle splits the rest into chunks that the
 * command loads only when it needs them (a run, a durable store, --otel).
 */
import * as module from "node:module"

module.enableCompileCache()
await import("./main.js")
