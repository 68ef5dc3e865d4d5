/**
 * The `agent` command line: `agent [options]` runs the kernel (see agent.ts),
 * and subcommands live in their own modules; add one to `subcommands`.
 *
 * This is the entry point: `npx -y pnpm@12.4.2 build:cli` bundles it into
 * examples/dist/agent.mjs, the `agent` bin, which runs on plain node.
 */
import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import type * as Runtime from "@effect/platform/Runtime"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import { command } from "./agent.js"
import * as Argv from "./argv.js"
import * as CliConsole from "./cliConsole.js"
import { outcomeOf } from "./exitCodes.js"
import { sessions } from "./sessions.js"
import { simulate } from "./simulate.js"
import { UsageError } from "./usage.js"

/** Every subcommand of `agent`. */
export const subcommands = [simulate, sessions] as const

/** The root command. */
export const root = command.pipe(Command.withSubcommands(subcommands))

const cli = Command.run(root, { name: "agent", version: "0.1.0" })

/**
 * How long cleanup may take after SIGINT or SIGTERM (plugin processes stopped, telemetry flushed)
 * before the command exits anyway: a plugin's own stop is bounded well within it.
 */
const signalGraceMillis = 10_000

const main = () => {
  // Which signal interrupted the run, for its exit code; NodeRuntime handles both alike.
  let signal: NodeJS.Signals = "SIGINT"
  // A signal must end the command even if some cleanup never does; unref'd, so it holds nothing open.
  const onSignal = (received: NodeJS.Signals) => {
    signal = received
    setTimeout(() => {
      const { code } = outcomeOf(Exit.interrupt(FiberId.none), signal)
      process.stderr.write(
        `agent: interrupted by ${signal}; cleanup did not finish within ${signalGraceMillis} ms, so it was cut short\n`
      )
      process.exit(code)
    }, signalGraceMillis).unref()
  }
  process.once("SIGINT", onSignal)
  process.once("SIGTERM", onSignal)

  const teardown: Runtime.Teardown = (exit, onExit) => {
    const { code, message } = outcomeOf(exit, signal)
    if (message !== undefined) process.stderr.write(`agent: ${message}\n`)
    onExit(code)
    // The run is over and every scope closed: a handle left open by a library (a stray timer) must
    // not keep the command alive. NodeRuntime exits by itself only on a signal or a non-zero code.
    process.exit(code)
  }

  // Option names and choices are checked first, so that a typo gets a suggestion (see argv.ts).
  const spec = Argv.specOfCommand(command, [Argv.specOfCommand(simulate), Argv.specOfCommand(sessions)])
  const problem = Argv.check(process.argv.slice(2), spec)

  const color = {
    stdout: CliConsole.colorEnabled(process.stdout, process.env),
    stderr: CliConsole.colorEnabled(process.stderr, process.env)
  }
  const program = problem === undefined ? cli(process.argv) : Effect.fail(new UsageError({ message: problem }))
  Effect.flatMap(Effect.console, (base) => Effect.withConsole(program, CliConsole.make(base, color))).pipe(
    Effect.provide(NodeContext.layer),
    NodeRuntime.runMain({ disableErrorReporting: true, teardown })
  )
}

main()
