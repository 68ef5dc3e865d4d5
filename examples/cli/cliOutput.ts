/**
 * How effect/cli speaks for the `agent` command: only `--help` and
 * `--version` as built-in flags (no `--wizard`, `--completions` or
 * `--log-level`), the version as a bare number, and a parse error as one line
 * on stderr naming where to look, instead of the whole help. The help itself
 * is effect/cli's, coloured only on a terminal and never with NO_COLOR.
 */
import * as CliConfig from "effect/cli/CliConfig"
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
export const builtIns: ReadonlyArray<GlobalFlag.BuiltIn> = [GlobalFlag.Help, GlobalFlag.Version]

/** A parse error's text on one line: effect/cli's messages may add suggestions on lines of their own. */
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ").trim()

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
        return Console.error(event.errors.map((error) => `agent: ${oneLine(error.message)} ${help}`).join("\n"))
      }
      case "Help":
        return CliOutput.defaultPresenter.present(event)
    }
  }
}

/** effect/cli configured as above. */
export const layer: Layer.Layer<never> = Layer.merge(CliConfig.layer({ builtIns }), CliOutput.layerPresenter(presenter))
