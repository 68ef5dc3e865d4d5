/**
 * What both benchmark commands (`bench`, `bench:cluster`) do around their
 * sections: read `--quick` and `--only`, print the machine and its load, run
 * the sections chosen, time the whole run, and set the exit code.
 *
 * @since 0.1.0
 */
import * as os from "node:os"
import { performance } from "node:perf_hooks"
import type * as Goal from "./Goal.js"

/**
 * One section of a benchmark: a title, printed above its tables, and how to
 * run it; it returns its verdicts on the goals it measures.
 *
 * @since 0.1.0
 * @category models
 */
export interface Section {
  readonly title: string
  readonly run: (quick: boolean) => Promise<ReadonlyArray<Goal.Verdict>>
}

/**
 * A benchmark command.
 *
 * @since 0.1.0
 * @category models
 */
export interface Command {
  /** The command as users type it, for the usage line. */
  readonly command: string
  /** What the header calls the benchmark, e.g. "loop benchmark". */
  readonly name: string
  /** The sections, in the order they run. */
  readonly sections: ReadonlyArray<Section>
  /** Called with the verdicts of the sections that ran, once they all have. */
  readonly report?: ((verdicts: ReadonlyArray<Goal.Verdict>) => void) | undefined
}

/**
 * What the command line asks for: `--quick`, and the words of each `--only`
 * (a section runs when its title contains one of them, case ignored; no
 * `--only` runs every section).
 *
 * @since 0.1.0
 * @category models
 */
export interface Arguments {
  readonly quick: boolean
  readonly only: ReadonlyArray<string>
}

/**
 * Reads the command line; a message for the user when it cannot.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (args: ReadonlyArray<string>): Arguments | string => {
  let quick = false
  const only: Array<string> = []
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? ""
    if (arg === "--quick") quick = true
    else if (arg === "--only" || arg.startsWith("--only=")) {
      const words = arg === "--only" ? args[++index] : arg.slice("--only=".length)
      if (words === undefined || words.trim() === "") return "--only needs a word of a section's title"
      only.push(words.trim())
    } else return `unknown argument: ${arg}`
  }
  return { quick, only }
}

/**
 * The sections `only` chooses, in their order; a message naming the titles
 * when a word matches none (a typo would otherwise run nothing, silently).
 *
 * @since 0.1.0
 * @category parsing
 */
export const select = (
  sections: ReadonlyArray<Section>,
  only: ReadonlyArray<string>
): ReadonlyArray<Section> | string => {
  if (only.length === 0) return sections
  const matches = (section: Section, words: string) => section.title.toLowerCase().includes(words.toLowerCase())
  const unmatched = only.filter((words) => !sections.some((section) => matches(section, words)))
  if (unmatched.length > 0)
    return (
      `no section's title contains ${unmatched.map((words) => `"${words}"`).join(", ")}; the sections are:\n` +
      sections.map((section) => `  ${section.title}`).join("\n")
    )
  return sections.filter((section) => only.some((words) => matches(section, words)))
}

const load = (): string =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")

const header = (command: Command, quick: boolean): string =>
  `agent-kernel ${command.name}${quick ? " (--quick)" : ""}, ${new Date().toISOString().slice(0, 10)}: ` +
  `node ${process.version}, ${os.availableParallelism()} cores, load average ${load()} at start`

const main = async (command: Command, args: ReadonlyArray<string>): Promise<number> => {
  const parsed = parse(args)
  const sections = typeof parsed === "string" ? parsed : select(command.sections, parsed.only)
  if (typeof parsed === "string" || typeof sections === "string") {
    console.error(
      `${typeof parsed === "string" ? parsed : sections}\n` +
        `usage: pnpm run ${command.command} [--quick] [--only <word of a section's title>]...`
    )
    return 2
  }
  const started = performance.now()
  console.log(header(command, parsed.quick))
  const verdicts: Array<Goal.Verdict> = []
  for (const section of sections) {
    console.log(`\n== ${section.title}`)
    verdicts.push(...(await section.run(parsed.quick)))
  }
  command.report?.(verdicts)
  console.log(`Took ${((performance.now() - started) / 1_000).toFixed(0)} s; load average ${load()} at the end.`)
  return 0
}

/**
 * Runs the command with the process's arguments; a failure prints and exits 1.
 *
 * @since 0.1.0
 * @category running
 */
export const start = (command: Command): void => {
  main(command, process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code
    },
    (error: unknown) => {
      console.error(error)
      process.exitCode = 1
    }
  )
}
