/**
 * How effect/cli speaks for the `agent` command: `--help`, `--version` and
 * `--log-level` as built-in flags (no `--wizard` or `--completions`), the
 * version as a bare number, and a parse error as one line on stderr naming
 * where to look, instead of the whole help. The help itself
 * is effect/cli's, coloured only on a terminal and never with NO_COLOR.
 */
import * as CliConfig from "effect/cli/CliConfig"
import type * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Console from "effect/Console"
import * as Layer from "effect/Layer"

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export const colorEnabled = (
  stream: { readonly isTTY?: boolean | undefined },
  env: Readonly<Record<string, string | undefined>>
): boolean => stream.isTTY === true && (env["NO_COLOR"] ?? "") === ""

/** The flags every command takes besides its own. */
export const builtIns: ReadonlyArray<GlobalFlag.BuiltIn> = [GlobalFlag.Help, GlobalFlag.Version, GlobalFlag.LogLevel]

/** A parse error's text on one line: effect/cli's messages may add suggestions on lines of their own. */
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ").trim()

/** How many times a single-valued option was given, when that is the error (effect/cli counts "N occurrences"). */
const repeats = (error: CliError.CliError): number | undefined => {
  if (error._tag !== "InvalidValue" || error.kind !== "flag" || error.expected !== "at most 1 value") return undefined
  const count = /^(\d+) occurrences$/.exec(error.value)?.[1]
  return count === undefined ? undefined : Number(count)
}

/** A parse error as the one line `agent` prints. */
export const describeError = (error: CliError.CliError): string => {
  const count = repeats(error)
  if (count === undefined || error._tag !== "InvalidValue") return oneLine(error.message)
  return `--${error.option} is given ${count === 2 ? "twice" : `${count} times`}; it takes one value`
}

/**
 * The help as effect/cli writes it; the version alone (`0.1.0`); every parse
 * error on its own `agent: ...` line, like every other reason the command ends.
 */
export const presenter: CliOutput.Presenter = {
  present: (event) => {
    switch (event._tag) {
      case "Version":
        return Console.log(event.version)
      case "InvalidInvocation": {
        const help = `(see ${event.commandPath.join(" ")} --help)`
        return Console.error(event.errors.map((error) => `agent: ${describeError(error)} ${help}`).join("\n"))
      }
      case "Help":
        return CliOutput.defaultPresenter.present(event)
    }
  }
}

/** effect/cli configured as above. */
export const layer: Layer.Layer<never> = Layer.merge(CliConfig.layer({ builtIns }), CliOutput.layerPresenter(presenter))
