/**
 * The `agent` command line: `agent [options]` runs the kernel (see agent.ts),
 * and subcommands live in their own modules; add one to `subcommands`.
 */
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import type * as Runtime from "@effect/platform/Runtime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import { command } from "./agent.js"
import { simulate } from "./simulate.js"
import { usageExitCode } from "./usage.js"

/** Every subcommand of `agent`. */
export const subcommands = [simulate] as const

/** The root command. */
export const root = command.pipe(Command.withSubcommands(subcommands))

/**
 * A run's own exit code when it returns one (see exitCodes.ts), 130 when
 * interrupted, 2 for bad usage (already reported on stderr: @effect/cli's
 * validation errors and any error tagged `UsageError`), 1 for any other failure.
 */
export const teardown: Runtime.Teardown = (exit, onExit) => {
  if (Exit.isSuccess(exit)) return onExit(typeof exit.value === "number" ? exit.value : 0)
  if (Cause.isInterruptedOnly(exit.cause)) return onExit(130)
  const failure = Cause.failureOption(exit.cause)
  const usage =
    Option.isSome(failure) &&
    (Predicate.isTagged(failure.value, "UsageError") || ValidationError.isValidationError(failure.value))
  onExit(usage ? usageExitCode : 1)
}

const cli = Command.run(root, { name: "agent", version: "0.1.0" })

if (import.meta.url === `file://${process.argv[1]}`) {
  cli(process.argv).pipe(
    Effect.provide(NodeContext.layer),
    NodeRuntime.runMain({ disableErrorReporting: true, teardown })
  )
}
