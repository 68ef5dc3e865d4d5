/**
 * For the CLI's subprocess tests: the command as users run it, node on the
 * bundle of these sources, which `scripts/build-cli.mjs --if-stale` rebuilds
 * first when a source changed. Through tsx each start cost seconds of CPU (a
 * thousand modules through its hooks), which starved the test runner on a
 * shared machine.
 */
import { execFile } from "node:child_process"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "../..")

/** The bundle's path. */
export const entry = path.join(root, "examples/dist/agent.mjs")

/**
 * Rebuilds the bundle if stale. Asynchronous: a synchronous build would
 * block the test worker's event loop, and vitest fails a worker whose calls
 * to the runner time out meanwhile.
 */
export const ensureBundle = (): Promise<void> =>
  new Promise((resolve, reject) =>
    execFile(process.execPath, [path.join(root, "scripts/build-cli.mjs"), "--if-stale"], { cwd: root }, (error) =>
      error === null ? resolve() : reject(error)
    )
  )
