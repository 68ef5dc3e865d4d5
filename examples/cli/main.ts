/**
 * The `agent` command line: `agent [options]` runs the kernel (see agent.ts),
 * and subcommands live in their own modules; add one to `subcommands`.
 *
 * This is the entry point: `npx -y pnpm@12.4.2 build:cli` bundles it into
 * examples/dist/agent.mjs, the `agent` bin, which runs on plain node.
 */
import type { RunOutcome } from "@agent-kernel/kernel"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Ref from "effect/Ref"
import type * as Runtime from "effect/Runtime"
import { command } from "./agent.js"
import * as Argv from "./argv.js"
import * as CliOutput from "./cliOutput.js"
import { comparePolicies } from "./comparePolicies.js"
import { LastRunStatus, outcomeOf } from "./exitCodes.js"
import { fakeServer } from "./fakeServer.js"
import { sessions } from "./sessions.js"
import { simulate } from "./simulate.js"
import { ui } from "./ui.js"
import { UsageError } from "./usage.js"

/** Every subcommand of `agent`. */
export const subcommands = [simulate, comparePolicies, sessions, fakeServer, ui] as const

/** The root command. */
export const root = command.pipe(Command.withSubcommands(subcommands))

/** The version `agent --version` prints. */
export const version = "0.1.0"

/**
 * How long cleanup may take after SIGINT or SIGTERM (plugin processes stopped, telemetry flushed)
 * before the command exits anyway: a plugin's own stop is bounded well within it.
 */
const signalGraceMillis = 10_000

/** The command line run to its end: the status of the last run, if one ran, for the exit code. */
const program = (args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    // Option names and choices are checked first, so that a typo gets a suggestion (see argv.ts).
    const spec = Argv.specOfCommand(
      command,
      subcommands.map((subcommand) => Argv.specOfCommand(subcommand))
    )
    const reading = Argv.read(args, spec)
    if ("problem" in reading) return yield* new UsageError({ message: reading.problem })
    const last = yield* Ref.make<RunOutcome.RunStatus | undefined>(undefined)
    yield* Command.runWith(root, { version })(reading.args).pipe(Effect.provideService(LastRunStatus, last))
    return yield* Ref.get(last)
  })

const main = () => {
  // The signal that interrupted the run, for its exit code; NodeRuntime handles both alike.
  let signal: NodeJS.Signals | undefined
  // A signal must end the command even if some cleanup never does: at the end of the grace period
  // (unref'd, so it holds nothing open), or at once on a second signal.
  const onSignal = (received: NodeJS.Signals) => {
    if (signal !== undefined) {
      process.stderr.write(`agent: interrupted by ${signal}; ${received} again, so cleanup was cut short\n`)
      process.exit(outcomeOf(Exit.interrupt(), signal).code)
    }
    const first = received
    signal = first
    setTimeout(() => {
      process.stderr.write(
        `agent: interrupted by ${first}; cleanup did not finish within ${signalGraceMillis} ms, so it was cut short\n`
      )
      process.exit(outcomeOf(Exit.interrupt(), first).code)
    }, signalGraceMillis).unref()
  }
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)

  const teardown: Runtime.Teardown = (exit, onExit) => {
    const { code, message } = outcomeOf(exit, signal ?? "SIGINT")
    if (message !== undefined) process.stderr.write(`agent: ${message}\n`)
    onExit(code)
    // The run is over and every scope closed: a handle left open by a library (a stray timer) must
    // not keep the command alive. NodeRuntime exits by itself only on a signal or a non-zero code.
    process.exit(code)
  }

  program(process.argv.slice(2)).pipe(
    // Logs (--log-level) go to stderr: stdout is the run's output, JSON Lines under --json.
    Effect.provideService(Logger.LogToStderr, true),
    Effect.provide(CliOutput.layer),
    Effect.provide(NodeServices.layer),
    NodeRuntime.runMain({ disableErrorReporting: true, teardown })
  )
}

main()
