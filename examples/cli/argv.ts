/**
 * A check of the command line's option names and choices before effect/cli
 * parses it: it names the option at fault and suggests the nearest name, in
 * one line, where effect/cli would print the whole help.
 *
 * What each option takes is read from the commands themselves (effect/cli's
 * `Completions.fromCommand`, the description its completion scripts are made
 * from), so the check never drifts from the options it guards.
 */
import * as Command from "effect/cli/Command"
import * as Completions from "effect/cli/Completions"
import { builtIns } from "./cliOutput.js"

/** One option as the check sees it. */
export interface OptionSpec {
  /** Every spelling, with dashes: `["--help", "-h"]`. */
  readonly names: ReadonlyArray<string>
  readonly takesValue: boolean
  /** The accepted values of a choice option. */
  readonly choices: ReadonlyArray<string> | undefined
}

const dashed = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`)

/** The options of a flag: itself, and `--no-NAME` for a boolean that has it. */
const specsOf = (flag: Completions.FlagDescriptor): ReadonlyArray<OptionSpec> => {
  const own: OptionSpec = {
    names: [dashed(flag.name), ...flag.aliases.map(dashed)],
    takesValue: flag.type._tag !== "Boolean",
    choices: flag.type._tag === "Choice" ? flag.type.values : undefined
  }
  if (flag.type._tag !== "Boolean" || flag.negation === false) return [own]
  return [own, { names: [`--${flag.negation ?? `no-${flag.name}`}`], takesValue: false, choices: undefined }]
}

/** A command as the check sees it: its options and its subcommands. */
export interface CommandSpec {
  readonly name: string
  readonly options: ReadonlyArray<OptionSpec>
  readonly subcommands: ReadonlyArray<CommandSpec>
}

/** The built-in flags (`--help`, `--version`) as effect/cli describes any flag. */
const builtInFlags = Completions.fromCommand(
  Command.make("built-ins", Object.fromEntries(builtIns.map((builtIn, i) => [`${i}`, builtIn.flag])))
).flags

/** A command's options, with the built-in ones. */
export const specOfCommand = (
  command: Command.Command.Any,
  subcommands: ReadonlyArray<CommandSpec> = []
): CommandSpec => ({
  name: command.name,
  options: [...Completions.fromCommand(command).flags, ...builtInFlags].flatMap(specsOf),
  subcommands
})

/** How many single-character edits turn `a` into `b`. */
export const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

/** The most edits a suggestion may be away from what was typed. */
const suggestionLimit = 2

const nearest = (name: string, specs: ReadonlyArray<OptionSpec>): string | undefined => {
  const scored = specs
    .flatMap((spec) => spec.names.filter((known) => known.startsWith("--")))
    .map((known) => ({ known, distance: editDistance(name, known) }))
    .filter((candidate) => candidate.distance <= suggestionLimit)
    .sort((a, b) => a.distance - b.distance)
  return scored[0]?.known
}

/** What the check finds: the first problem, or the command line to hand effect/cli. */
export type Reading = { readonly problem: string } | { readonly args: ReadonlyArray<string> }

/**
 * The first problem with `args` (the command line after the command's name),
 * or, when every option is known to the command it follows, has its value,
 * and every choice is one of its values, the command line with each value
 * joined to its option (`--prompt=-x`): effect/cli reads a word that starts
 * with "-" as an option, so a value such as `--prompt "-5 is negative?"`
 * reaches it attached. Options after a subcommand's name are the subcommand's.
 */
export const read = (args: ReadonlyArray<string>, command: CommandSpec, path: string = command.name): Reading => {
  const specs = command.options
  const joined: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") return { args: [...joined, ...args.slice(i)] }
    if (!arg.startsWith("-") || arg === "-") {
      const subcommand = command.subcommands.find((candidate) => candidate.name === arg)
      if (subcommand !== undefined) {
        const rest = read(args.slice(i + 1), subcommand, `${path} ${arg}`)
        return "problem" in rest ? rest : { args: [...joined, arg, ...rest.args] }
      }
      joined.push(arg)
      continue
    }
    const eq = arg.indexOf("=")
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg
    const spec = specs.find((candidate) => candidate.names.includes(name))
    if (spec === undefined) {
      const suggestion = nearest(name, specs)
      return {
        problem:
          suggestion !== undefined
            ? `unknown option ${name}; did you mean ${suggestion}?`
            : `unknown option ${name} (see ${path} --help)`
      }
    }
    if (!spec.takesValue) {
      joined.push(arg)
      continue
    }
    const value = name !== arg ? arg.slice(eq + 1) : args[++i]
    if (value === undefined || (name !== arg && value === "")) return { problem: `${name} needs a value` }
    if (spec.choices !== undefined && !spec.choices.includes(value)) {
      return { problem: `${name} must be one of ${spec.choices.join(", ")}, not "${value}"` }
    }
    joined.push(`${name}=${value}`)
  }
  return { args: joined }
}

/** The first problem `read` finds in `args`, or `undefined`. */
export const check = (args: ReadonlyArray<string>, command: CommandSpec): string | undefined => {
  const reading = read(args, command)
  return "problem" in reading ? reading.problem : undefined
}
