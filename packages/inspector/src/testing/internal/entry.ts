import type { Content, KernelEvent, RetryBudget, RunOutcome, Session } from "@agent-kernel/kernel"
import * as Option from "effect/Option"
import type * as Fiber from "effect/Fiber"
import type * as PubSub from "effect/PubSub"
import type * as Ref from "effect/Ref"
import type * as InspectorStore from "../../InspectorStore.js"
import * as Runs from "../../Runs.js"

/** An append-only list whose newest view appends in place. @internal */
export interface Log {
  readonly backing: Array<InspectorStore.LoggedEvent>
  readonly length: number
}

const append = (log: Log, event: KernelEvent.KernelEvent): Log => {
  const backing = log.backing.length === log.length ? log.backing : log.backing.slice(0, log.length)
  backing.push({ seq: log.length + 1, event })
  return { backing, length: log.length + 1 }
}

/** A run in progress in this process: its session and its fiber. @internal */
export interface Live {
  readonly generation: number
  readonly session: Session.Service
  readonly fiber: Fiber.Fiber<RunOutcome.RunOutcome>
}

/** A session as the store keeps it. @internal */
export interface Entry {
  readonly id: string
  /** Which process the session's events are recorded from: a crash starts a new one. */
  readonly generation: number
  readonly log: Log
  readonly runs: number
  readonly lastRun: InspectorStore.RunSummary | undefined
  readonly retries: { readonly used: number; readonly left: number | null }
  /** After the last run that ended; before the run in progress. */
  readonly state: Option.Option<Session.State>
  /** The input of the run in progress or left unfinished. */
  readonly pending: Option.Option<string | Content.Message>
  readonly live: Option.Option<Live>
  readonly lastActivity: number
}

/** An entry and the signal that wakes its followers. @internal */
export interface Slot {
  readonly entry: Ref.Ref<Entry>
  /** Wakes followers when the log grows (or the store goes away). */
  readonly grew: PubSub.PubSub<void>
}

/** A session with nothing recorded yet. @internal */
export const empty = (id: string, now: number): Entry => ({
  id,
  generation: 0,
  log: { backing: [], length: 0 },
  runs: 0,
  lastRun: undefined,
  retries: { used: 0, left: null },
  state: Option.none(),
  pending: Option.none(),
  live: Option.none(),
  lastActivity: now
})

const lastRunAt = (lastRun: InspectorStore.RunSummary | undefined, seq: number) =>
  lastRun === undefined ? undefined : { ...lastRun, last_seq: seq }

/** A run's start: a new run, or the same one again after a resume. */
const started = (
  entry: Entry,
  event: KernelEvent.EventOf<"run_started">,
  seq: number
): Pick<Entry, "runs" | "lastRun"> => {
  const { lastRun } = entry
  if (lastRun !== undefined && lastRun.status === null && lastRun.run_id === event.run_id) {
    return { runs: entry.runs, lastRun: { ...lastRun, last_seq: seq } }
  }
  const runs = entry.runs + 1
  return {
    runs,
    lastRun: {
      run_id: event.run_id,
      index: runs,
      model: event.model,
      input: event.input,
      status: null,
      started_at: event.at,
      ended_at: null,
      first_seq: seq,
      last_seq: seq
    }
  }
}

/** The entry after one more event of its process. @internal */
export const recorded = (entry: Entry, event: KernelEvent.KernelEvent): Entry => {
  const log = append(entry.log, event)
  const seq = log.length
  const next = { ...entry, log, lastActivity: Math.max(entry.lastActivity, event.at) }
  switch (event.type) {
    case "run_started":
      return { ...next, ...started(entry, event, seq) }
    case "run_ended":
      return {
        ...next,
        lastRun:
          entry.lastRun === undefined
            ? undefined
            : { ...entry.lastRun, status: event.status, ended_at: event.at, last_seq: seq },
        retries: { used: event.retries.session_total, left: entry.retries.left }
      }
    case "run_paused":
      return {
        ...next,
        lastRun:
          entry.lastRun === undefined ? undefined : { ...entry.lastRun, last_seq: seq, paused: Runs.pausedOf(event) }
      }
    case "run_resumed":
      return {
        ...next,
        lastRun: entry.lastRun === undefined ? undefined : { ...entry.lastRun, last_seq: seq, paused: null }
      }
    case "retry_scheduled":
    case "fallback":
      return {
        ...next,
        lastRun: lastRunAt(entry.lastRun, seq),
        retries: { used: event.session_retries_used, left: event.session_retries_left }
      }
    default:
      return { ...next, lastRun: lastRunAt(entry.lastRun, seq) }
  }
}

/** The entry with the session budget as the session reports it. @internal */
export const withBudget = (entry: Entry, budget: RetryBudget.Snapshot): Entry => ({
  ...entry,
  retries: { used: budget.used, left: budget.remaining }
})

const isDelta = (event: KernelEvent.KernelEvent) => event.type === "text_delta" || event.type === "thinking_delta"

/** The entry's events a query asks for. @internal */
export const eventsOf = (entry: Entry, query: InspectorStore.EventQuery): ReadonlyArray<InspectorStore.LoggedEvent> => {
  const from = Math.max(0, Math.floor(query.after))
  const to = Math.min(entry.log.length, query.until === undefined ? entry.log.length : Math.floor(query.until))
  const out: Array<InspectorStore.LoggedEvent> = []
  for (let i = from; i < to && out.length < query.limit; i++) {
    const logged = entry.log.backing[i]!
    if (!(query.omitDeltas === true && isDelta(logged.event))) out.push(logged)
  }
  return out
}

/** The entry's every event, in order. @internal */
export const allEvents = (entry: Entry): ReadonlyArray<InspectorStore.LoggedEvent> =>
  entry.log.backing.slice(0, entry.log.length)

/** What the sessions list filters and orders by. @internal */
export const shown = (entry: Entry) => ({
  ...Runs.statusOf(entry.lastRun, Option.isSome(entry.live)),
  id: entry.id,
  last_activity: entry.lastActivity
})
