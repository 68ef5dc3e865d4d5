import type { RunOutcome } from "@agent-kernel/kernel"
import * as CliError from "effect/cli/CliError"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type * as Ref from "effect/Ref"
import * as os from "node:os"
import { usageExitCode } from "./usage.js"

/** One exit code per class of run status; 2 is bad usage or invalid settings; 75 a run paused, resumable. */
export const exitCodes: Readonly<Record<RunOutcome.RunStatus, number>> = {
  completed: 0,
  content_filtered: 3,
  context_exhausted: 4,
  auth_error: 5,
  invalid_request: 5,
  quota_exceeded: 5,
  retries_exhausted: 6,
  retry_budget_exhausted: 6,
  max_turns: 7,
  wall_clock_exceeded: 7,
  cost_exceeded: 7,
  failed: 8,
  interrupted: 130,
  // EX_TEMPFAIL: the run waits, resumable, for the user to try again.
  paused: 75
}

/**
 * Where the `agent` command leaves the status of its last run (none when an
 * interactive session ran nothing): the command's exit code is made from it.
 */
export class LastRunStatus extends Context.Service<LastRunStatus, Ref.Ref<RunOutcome.RunStatus | undefined>>()(
  "agent/LastRunStatus"
) {}

/** A run's status: one of the keys above (checked without loading the kernel, which the command line parses without). */
const isStatus = (value: unknown): value is RunOutcome.RunStatus =>
  typeof value === "string" && Object.hasOwn(exitCodes, value)

/** effect/cli ends a command that only shows its help (a command with no handler of its own) with an empty ShowHelp. */
const isHelpOnly = (error: CliError.CliError): boolean => error._tag === "ShowHelp" && error.errors.length === 0

/** The first line of a text, for a one-line report. */
const firstLine = (text: string): string => text.split("\n", 1)[0] ?? ""

/**
 * Why the command ended, in one line for stderr, and its exit code:
 * - the code of the last run's status (above), nothing to say when it completed;
 * - 128 + the signal's number when interrupted (130 for Ctrl-C, 143 for SIGTERM);
 * - 2 for bad usage: effect/cli's parse errors (it has printed them) and `UsageError`;
 * - 1 for anything else: a session store that fails (its one-line reason; sessions.ts `storeFailure`
 *   makes a store path that is wrong or taken bad usage), a defect.
 */
export const outcomeOf = (
  exit: Exit.Exit<unknown, unknown>,
  signal: NodeJS.Signals
): { readonly code: number; readonly message: string | undefined } => {
  const interrupted = { code: 128 + os.constants.signals[signal], message: `interrupted by ${signal}` }
  if (Exit.isSuccess(exit)) {
    const status = isStatus(exit.value) ? exit.value : undefined
    if (status === undefined || status === "completed") return { code: 0, message: undefined }
    if (status === "paused")
      return { code: exitCodes.paused, message: "the run paused: `agent --session PATH --resume` continues it" }
    return status === "interrupted" ? interrupted : { code: exitCodes[status], message: `the run ended ${status}` }
  }
  if (Cause.hasInterruptsOnly(exit.cause)) return interrupted
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isSome(failure) && CliError.isCliError(failure.value)) {
    return { code: isHelpOnly(failure.value) ? 0 : usageExitCode, message: undefined }
  }
  if (Option.isSome(failure)) {
    const error = failure.value
    const message = Predicate.hasProperty(error, "message") ? String(error.message) : String(error)
    return { code: Predicate.isTagged(error, "UsageError") ? usageExitCode : 1, message }
  }
  const defect = Cause.squash(exit.cause)
  return { code: 1, message: `internal error: ${firstLine(defect instanceof Error ? defect.message : String(defect))}` }
}
