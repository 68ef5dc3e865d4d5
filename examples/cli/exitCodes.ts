import { KernelEvent, type RunOutcome } from "@agent-kernel/kernel"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as os from "node:os"
import { usageExitCode } from "./usage.js"

/** One exit code per class of run status; 2 is bad usage or invalid settings. */
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
  interrupted: 130
}

const isStatus = Schema.is(KernelEvent.RunStatus)

/** The first line of a text, for a one-line report. */
const firstLine = (text: string): string => text.split("\n", 1)[0] ?? ""

/**
 * Why the command ended, in one line for stderr, and its exit code:
 * - the code of the last run's status (above), nothing to say when it completed;
 * - 128 + the signal's number when interrupted (130 for Ctrl-C, 143 for SIGTERM);
 * - 2 for bad usage: @effect/cli's validation errors (it has printed them) and `UsageError`;
 * - 1 for anything else, a defect included.
 */
export const outcomeOf = (
  exit: Exit.Exit<unknown, unknown>,
  signal: NodeJS.Signals
): { readonly code: number; readonly message: string | undefined } => {
  const interrupted = { code: 128 + os.constants.signals[signal], message: `interrupted by ${signal}` }
  if (Exit.isSuccess(exit)) {
    const status = isStatus(exit.value) ? exit.value : undefined
    if (status === undefined || status === "completed") return { code: 0, message: undefined }
    return status === "interrupted" ? interrupted : { code: exitCodes[status], message: `the run ended ${status}` }
  }
  if (Cause.isInterruptedOnly(exit.cause)) return interrupted
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) {
    return { code: usageExitCode, message: undefined }
  }
  if (Option.isSome(failure)) {
    const error = failure.value
    const message = Predicate.hasProperty(error, "message") ? String(error.message) : String(error)
    return { code: Predicate.isTagged(error, "UsageError") ? usageExitCode : 1, message }
  }
  const defect = Cause.squash(exit.cause)
  return { code: 1, message: `internal error: ${firstLine(defect instanceof Error ? defect.message : String(defect))}` }
}
