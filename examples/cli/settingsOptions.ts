/**
 * `--settings FILE` and `--set key=value`, shared by every command that reads
 * the kernel's settings.
 */
import { Settings } from "@agent-kernel/kernel"
import * as Options from "@effect/cli/Options"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UsageError } from "./usage.js"

export const settingsOptions = {
  settings: Options.text("settings").pipe(
    Options.withDescription("A JSON object with the kernel's snake_case settings keys"),
    Options.optional
  ),
  set: Options.text("set").pipe(
    Options.withDescription("key=value: overrides one setting, e.g. --set base_delay_ms=1000; repeatable"),
    Options.repeated
  )
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
    const fromFile = yield* Option.match(file, { onNone: () => Effect.succeed({}), onSome: Settings.readFile })
    const overrides = yield* Settings.parseAssignments(assignments)
    const source = Option.match(file, { onNone: () => "--set", onSome: (path) => `${path} and --set` })
    return yield* Settings.decode({ ...under, ...fromFile, ...overrides }, source)
  }).pipe(Effect.mapError((error) => new UsageError({ message: error.message })))
