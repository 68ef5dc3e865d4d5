/**
 * What both benchmark commands (`bench`, `bench:cluster`) do around their
 * sections: read `--quick`, print the machine and its load, time the whole
 * run, and set the exit code.
 *
 * @since 0.1.0
 */
import * as os from "node:os"
import { performance } from "node:perf_hooks"

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
  /** Runs the sections, printing as it goes. */
  readonly run: (quick: boolean) => Promise<void>
}

const header = (command: Command, quick: boolean): string => {
  const load = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")
  return (
    `agent-kernel ${command.name}${quick ? " (--quick)" : ""}: node ${process.version}, ` +
    `${os.availableParallelism()} cores, load average ${load} at start`
  )
}

const main = async (command: Command, args: ReadonlyArray<string>): Promise<number> => {
  const unknown = args.filter((arg) => arg !== "--quick")
  if (unknown.length > 0) {
    console.error(
      `unknown argument${unknown.length > 1 ? "s" : ""}: ${unknown.join(" ")}\n` +
        `usage: npx -y pnpm@12.4.2 ${command.command} [--quick]`
    )
    return 2
  }
  const quick = args.includes("--quick")
  const started = performance.now()
  console.log(header(command, quick))
  await command.run(quick)
  console.log(`Took ${((performance.now() - started) / 1_000).toFixed(0)} s.`)
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
