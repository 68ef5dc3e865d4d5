/**
 * The pure part of the service's event log: which session a run belongs to,
 * and where a followed stream ends.
 *
 * @internal
 */
import type { KernelEvent } from "@agent-kernel/kernel"
import * as Option from "effect/Option"

/**
 * The session of a kernel run id. The kernel names a session's runs
 * `<session id>/run-<n>`; a session id may itself contain `/run-`, so only
 * the last such suffix is the run's.
 *
 * @internal
 */
export const sessionOfRunId = (runId: string): Option.Option<string> => {
  const match = runIdPattern.exec(runId)
  return match === null ? Option.none() : Option.fromUndefinedOr(match[1])
}

/**
 * The number of a kernel run id's run (`<session id>/run-<n>`): the
 * session's run index in the store.
 *
 * @internal
 */
export const runOfRunId = (runId: string): Option.Option<number> => {
  const match = runIdPattern.exec(runId)
  return match === null ? Option.none() : Option.some(Number(match[2]))
}

const runIdPattern = /^(.+)\/run-(\d+)$/

/**
 * Whether a followed stream of a run's events ends after this event: a run
 * publishes nothing after `run_ended`.
 *
 * @internal
 */
export const endsRun = (type: KernelEvent.EventType): boolean => type === "run_ended"
