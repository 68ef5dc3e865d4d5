import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as path from "node:path"

/** Bad usage: a bad option, invalid settings, a bad fault plan. Reported on stderr with exit code 2, before any model request. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** The exit code for bad usage. */
export const usageExitCode = 2

/**
 * Writes a file the user named on the command line (`--json FILE`, `--svg FILE`); one that cannot be written is a
 * `UsageError` naming it.
 *
 * @example
 * ```ts
 * import { writeOutput } from "./usage.js"
 *
 * const written = writeOutput("report.svg", "<svg/>")
 * ```
 */
export const writeOutput = (file: string, text: string): Effect.Effect<void, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    yield* fs.writeFileString(file, text)
  }).pipe(Effect.mapError((error) => new UsageError({ message: `cannot write ${file}: ${error.message}` })))

/**
 * Fails with a `UsageError` naming `file` when its folder is missing or not writable: checked before a long
 * computation, so that it does not end on a file it cannot write.
 *
 * @example
 * ```ts
 * import { ensureWritable } from "./usage.js"
 *
 * const checked = ensureWritable("reports/out.svg")
 * ```
 */
export const ensureWritable = (file: string): Effect.Effect<void, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    yield* fs.access(path.dirname(path.resolve(file)), { writable: true })
  }).pipe(Effect.mapError((error) => new UsageError({ message: `cannot write ${file}: ${error.message}` })))
