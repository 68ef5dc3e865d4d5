/**
 * A check of the command line's option names and choices before @effect/cli
 * parses it. With subcommands, @effect/cli reports a misspelt option of the
 * root command as "Invalid subcommand", and an invalid choice without naming
 * its option; this check says which option, and suggests the nearest name.
 *
 * What each option takes is read from the commands' own `Usage`, so the check
 * never drifts from the options it guards.
 */
import * as AutoCorrect from "@effect/cli/AutoCorrect"
import * as BuiltInOptions from "@effect/cli/BuiltInOptions"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as Usage from "@effect/cli/Usage"
import * as Option from "effect/Option"

/** One option as the check sees it. */
export interface OptionSpec {
  /** Every spelling, with dashes: `["--help", "-h"]`. */
  readonly names: ReadonlyArray<string>
  readonly takesValue: boolean
  /** The accepted values of a choice option. */
  readonly choices: ReadonlyArray<string> | undefined
}

/** @effect/cli renders a choice's accepted values as `a | b | c`, and a free value as one word. */
const choicesOf = (accepted: string): ReadonlyArray<string> | undefined =>
  accepted.includes(" | ") ? accepted.split(" | ") : undefined

/** The options a usage tree names. */
export const specsOf = (usage: Usage.Usage): ReadonlyArray<OptionSpec> => {
  switch (usage._tag) {
    case "Named":
      return [
        {
          names: usage.names,
          takesValue: Option.isSome(usage.acceptedValues),
          choices: Option.flatMap(usage.acceptedValues, (accepted) => Option.fromNullable(choicesOf(accepted))).pipe(
            Option.getOrUndefined
          )
        }
      ]
    case "Optional":
    case "Repeated":
      return specsOf(usage.usage)
    case "Alternation":
    case "Concat":
      return [...specsOf(usage.left), ...specsOf(usage.right)]
    case "Empty":
    case "Mixed":
      return []
  }
}

/** A command as the check sees it: its options and its subcommands. */
export interface CommandSpec {
  readonly name: string
  readonly options: ReadonlyArray<OptionSpec>
  readonly subcommands: ReadonlyArray<CommandSpec>
}

/** A command's options, with @effect/cli's built-in ones (`--help`, `--version`, ...). */
export const specOfCommand = <Name extends string, R, E, A>(
  command: Command.Command<Name, R, E, A>,
  subcommands: ReadonlyArray<CommandSpec> = []
): CommandSpec => ({
  name: [...Command.getNames(command)][0] ?? "",
  options: [
    ...specsOf(Command.getUsage(command)),
    ...specsOf(Options.getUsage(BuiltInOptions.builtInOptions(command.descriptor, Usage.empty, HelpDoc.empty)))
  ],
  subcommands
})

const nearest = (name: string, specs: ReadonlyArray<OptionSpec>): string | undefined => {
  const limit = CliConfig.defaultConfig.autoCorrectLimit
  const scored = specs
    .flatMap((spec) => spec.names.filter((known) => known.startsWith("--")))
    .map((known) => ({ known, distance: AutoCorrect.levensteinDistance(name, known, CliConfig.defaultConfig) }))
    .filter((candidate) => candidate.distance <= limit)
    .sort((a, b) => a.distance - b.distance)
  return scored[0]?.known
}

/**
 * The first problem with `args` (the command line after the command's name),
 * or `undefined` when every option is known to the command it follows, has
 * its value, and every choice is one of its values. Options after a
 * subcommand's name are the subcommand's.
 */
export const check = (
  args: ReadonlyArray<string>,
  command: CommandSpec,
  path: string = command.name
): string | undefined => {
  const specs = command.options
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") return undefined
    if (!arg.startsWith("-") || arg === "-") {
      const subcommand = command.subcommands.find((candidate) => candidate.name === arg)
      if (subcommand !== undefined) return check(args.slice(i + 1), subcommand, `${path} ${arg}`)
      continue
    }
    const eq = arg.indexOf("=")
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg
    const spec = specs.find((candidate) => candidate.names.includes(name))
    if (spec === undefined) {
      const suggestion = nearest(name, specs)
      return suggestion !== undefined
        ? `unknown option ${name}; did you mean ${suggestion}?`
        : `unknown option ${name} (see ${path} --help)`
    }
    if (!spec.takesValue) continue
    const value = name !== arg ? arg.slice(eq + 1) : args[++i]
    if (value === undefined || (name !== arg && value === "")) return `${name} needs a value`
    if (spec.choices !== undefined && !spec.choices.includes(value)) {
      return `${name} must be one of ${spec.choices.join(", ")}, not "${value}"`
    }
  }
  return undefined
}
