/**
 * A session's runs and status, read from its events: pure functions a store
 * uses to answer `InspectorStore.session` and `sessions` from an event log.
 *
 * A run starts at its `run_started` and ends at its `run_ended`. A second
 * `run_started` of the same run id before its end is the run resumed after
 * its process stopped: the same run goes on.
 *
 * @since 0.1.0
 */
import type { KernelEvent } from "@agent-kernel/kernel"
import type * as InspectorStore from "./InspectorStore.js"

/**
 * The runs the events show, in order, each located in the sequence. Events
 * before the first `run_started` (of a run whose start the log does not
 * hold) belong to no run.
 *
 * @since 0.1.0
 * @category runs
 */
export const fromEvents = (events: Iterable<InspectorStore.LoggedEvent>): Array<InspectorStore.RunSummary> => {
  const runs: Array<InspectorStore.RunSummary> = []
  let open: InspectorStore.RunSummary | undefined
  const close = () => {
    if (open !== undefined) runs.push(open)
    open = undefined
  }
  for (const { seq, event } of events) {
    if (event.type === "run_started") {
      if (open !== undefined && open.run_id === event.run_id && open.status === null) {
        open = { ...open, last_seq: seq }
        continue
      }
      close()
      open = {
        run_id: event.run_id,
        index: runs.length + 1,
        model: event.model,
        input: event.input,
        status: null,
        started_at: event.at,
        ended_at: null,
        first_seq: seq,
        last_seq: seq
      }
    } else if (open !== undefined) {
      open =
        event.type === "run_ended"
          ? { ...open, status: event.status, ended_at: event.at, last_seq: seq, paused: null }
          : event.type === "run_paused"
            ? { ...open, last_seq: seq, paused: pausedOf(event) }
            : event.type === "run_resumed"
              ? { ...open, last_seq: seq, paused: null }
              : { ...open, last_seq: seq }
      if (event.type === "run_ended") close()
    }
  }
  close()
  return runs
}

/**
 * A run's pause as its `run_paused` tells it.
 *
 * @since 0.6.0
 * @category runs
 */
export const pausedOf = (event: KernelEvent.EventOf<"run_paused">): InspectorStore.Paused => ({
  reason: event.reason,
  error: event.error,
  paused_at: event.at,
  resume_at: event.resume_at
})

/**
 * The session's status from its last run, and whether a live process holds
 * that run: a run not ended is `paused` when its last `run_paused` has no
 * `run_resumed` after it, `running` while its process runs it, else
 * `resumable`.
 *
 * @since 0.1.0
 * @category runs
 */
export const statusOf = (
  last: InspectorStore.RunSummary | undefined,
  live: boolean
): { readonly status: InspectorStore.SessionStatus; readonly run_status: KernelEvent.RunStatus | null } => {
  if (last === undefined) return { status: "new", run_status: null }
  if (last.status === null)
    return {
      status: last.paused !== undefined && last.paused !== null ? "paused" : live ? "running" : "resumable",
      run_status: null
    }
  switch (last.status) {
    case "completed":
      return { status: "completed", run_status: last.status }
    case "interrupted":
      return { status: "interrupted", run_status: last.status }
    default:
      return { status: "failed", run_status: last.status }
  }
}

/**
 * Whether a session summary passes a query's filters.
 *
 * @since 0.1.0
 * @category queries
 */
export const matches = (
  summary: Pick<InspectorStore.SessionSummary, "id" | "status">,
  query: Pick<InspectorStore.SessionQuery, "search" | "status">
): boolean =>
  (query.status === undefined || summary.status === query.status) &&
  (query.search === undefined || query.search === "" || summary.id.toLowerCase().includes(query.search.toLowerCase()))

/**
 * The order of the sessions list: newest activity first, then by id.
 *
 * @since 0.1.0
 * @category queries
 */
export const byActivity = (
  a: Pick<InspectorStore.SessionSummary, "id" | "last_activity">,
  b: Pick<InspectorStore.SessionSummary, "id" | "last_activity">
): number => b.last_activity - a.last_activity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
