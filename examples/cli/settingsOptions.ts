/**
 * `--settings FILE` and `--set key=value`, shared by every command that reads
 * the kernel's settings.
 */
import type { Settings } from "@agent-kernel/kernel"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import { boundedFileSystem } from "./boundedRead.js"
import { UsageError } from "./usage.js"

export const settingsOptions = {
  settings: Flag.String("settings").pipe(
    Flag.withMetavar("FILE"),
    Flag.withDescription("A JSON object with the kernel's snake_case settings keys (at most 1 MiB)"),
    Flag.optional
  ),
  set: Flag.String("set").pipe(
    Flag.withMetavar("KEY=VALUE"),
    Flag.withDescription("Overrides one setting, e.g. --set base_delay_ms=1000 (values read as JSON when they parse)"),
    Flag.atLeast(0)
  )
}

/** No setting nests deeper than a few levels (prices: model, then field). */
const maxDepth = 32

/** The first key whose value nests deeper than `maxDepth`, found without recursion. */
export const tooDeep = (input: Readonly<Record<string, unknown>>): string | undefined => {
  for (const [key, value] of Object.entries(input)) {
    let level: ReadonlyArray<unknown> = [value]
    for (let depth = 1; level.length > 0; depth++) {
      if (depth > maxDepth) return key
      level = level.flatMap((node) => (typeof node === "object" && node !== null ? Object.values(node) : []))
    }
  }
  return undefined
}

/**
 * Layers `under` (a scenario's settings, say), then the file, then `--set`,
 * and decodes once, so one message lists every problem of every source.
 */
export const loadSettings = (
  file: Option.Option<string>,
  assignments: ReadonlyArray<string>,
  under: Readonly<Record<string, unknown>> = {}
): Effect.Effect<Settings.Settings, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    // The kernel is loaded by the commands that run it, not by the parse of the command line.
    const { Settings } = yield* Effect.promise(() => import("@agent-kernel/kernel"))
    // Read through a bounded FileSystem: /dev/zero or a FIFO with no writer end the command.
    const fromFile = yield* Option.match(file, {
      onNone: () => Effect.succeed({}),
      onSome: (path) => Effect.updateService(Settings.readFile(path), FileSystem.FileSystem, boundedFileSystem)
    })
    const overrides = yield* Effect.fromResult(Settings.parseAssignments(assignments))
    const source = Option.match(file, { onNone: () => "--set", onSome: (path) => `${path} and --set` })
    const merged = { ...under, ...fromFile, ...overrides }
    // Decoding (and reporting) a value nested thousands deep would overflow the stack.
    const deep = tooDeep(merged)
    if (deep !== undefined) {
      return yield* new UsageError({
        message: `invalid settings in ${source}: ${deep} nests deeper than ${maxDepth} levels`
      })
    }
    return yield* Settings.decode(merged, source)
  }).pipe(
    Effect.mapError((error) => (error instanceof UsageError ? error : new UsageError({ message: error.message })))
  )
