/**
 * The event log of durable sessions: every kernel event a session's runs
 * publish, in the store (table `agent_events`, SQLite or Postgres), numbered
 * per session: `seq` is 1 for the session's first event and one more for
 * each next, across its runs and across a resume, never reused, never
 * skipped. A reader (another process included) reads a session's events from
 * any point, and follows it live.
 *
 * What is logged, and when:
 * - Every event a run publishes, as its observers would see it in a run
 *   that never crashed: a resumed run goes on after the last event its
 *   crashed process logged, with no event twice and none missing (a replayed
 *   step's events are logged only if the crash cut them off). The log agrees
 *   with the store: a run's `run_ended` is written in the transaction that
 *   records the run's end (or its stop) in the session's row; a crash's
 *   interruption is no end, and is not logged.
 * - A model call's text and thinking deltas are logged as the call streams,
 *   within 20 ms, the deltas waiting for one write joined into one event. A
 *   call a crash cut off mid-stream is sent again by the resume, and its new
 *   deltas follow a `stream_restarted` (category `process_crashed`,
 *   `discarded_text_chars` what the log holds of the cut-off call's text),
 *   as when a provider cuts a stream.
 * - The events so far are written before each step executes (at once when
 *   the last write was 20 ms ago or more, as after a model call; otherwise
 *   within 20 ms, so that quick steps share one write), before a durable
 *   wait, and with the run's end: a reader sees what the run waits on. A
 *   crash can lose the last 20 ms of events before it (deltas included);
 *   the resume logs them again, but those a step publishes while it
 *   executes (a model call's deltas, a streamed tool call's start, a
 *   breaker's change), which a replay does not repeat.
 *
 * @since 0.5.0
 */
import { KernelEvent } from "@agent-kernel/kernel"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as internal from "./internal/eventLog.js"
import type * as Store from "./internal/store.js"

/**
 * An event of a session's log: its sequence number in the session, the
 * number of the run that published it (from 1), and the event.
 *
 * @since 0.5.0
 * @category schemas
 */
export const LoggedEvent = Schema.Struct({
  seq: Schema.Number,
  run: Schema.Number,
  event: KernelEvent.KernelEvent
})

/**
 * @since 0.5.0
 * @category models
 */
export interface LoggedEvent extends Schema.Schema.Type<typeof LoggedEvent> {}

/**
 * Which events of a session to read: those with `after < seq <= until`, in
 * order, at most `limit` of them.
 *
 * @since 0.5.0
 * @category models
 */
export interface Query {
  /** Default 0: from the session's first event. */
  readonly after?: number | undefined
  /** Default: no upper bound. */
  readonly until?: number | undefined
  /** Default 1,000. */
  readonly limit?: number | undefined
  /** Leave out `text_delta` and `thinking_delta` events. Default false. */
  readonly omitDeltas?: boolean | undefined
}

/**
 * The events of the session `id` that `query` asks for, by sequence number;
 * none for a session with no events (or none).
 *
 * @example
 * ```ts
 * import { Engine, EventLog } from "@agent-kernel/durable"
 * import { Effect } from "effect"
 *
 * const timeline = EventLog.events("support-42", { after: 0, omitDeltas: true }).pipe(
 *   Effect.provide(Engine.layerSqliteStore("agent.db"))
 * )
 * ```
 *
 * @since 0.5.0
 * @category reading
 */
export const events = (
  id: string,
  query: Query = {}
): Effect.Effect<ReadonlyArray<LoggedEvent>, Store.StoreError, SqlClient.SqlClient> =>
  internal.read(id, {
    after: query.after ?? 0,
    until: query.until,
    limit: query.limit ?? 1_000,
    omitDeltas: query.omitDeltas ?? false
  })

/**
 * The sequence number of the session `id`'s last event; 0 for none.
 *
 * @since 0.5.0
 * @category reading
 */
export const lastSeq = (id: string): Effect.Effect<number, Store.StoreError, SqlClient.SqlClient> =>
  internal.lastSeq(id)

/**
 * How `follow` reads.
 *
 * @since 0.5.0
 * @category models
 */
export interface FollowOptions {
  /** Default 0: from the session's first event. */
  readonly after?: number | undefined
  /**
   * How often the table is read again when nothing new came: the writes of
   * another process are seen within it. A write of this process wakes its
   * followers at once. Default 200 ms.
   */
  readonly pollInterval?: Duration.Input | undefined
  /** Leave out `text_delta` and `thinking_delta` events. Default false. */
  readonly omitDeltas?: boolean | undefined
}

/**
 * The session `id`'s events with a sequence number above `after`, in order:
 * those logged already, then each new one as it is logged, by this process
 * or another of the store, for as long as the stream is read; each once,
 * none skipped. It fails with `StoreError` when the store cannot be read
 * (the embedded store's file deleted or replaced included).
 *
 * @example
 * ```ts
 * import { Engine, EventLog } from "@agent-kernel/durable"
 * import { Effect, Stream } from "effect"
 *
 * // The next run's events, as they are logged, until it ends.
 * const untilTheEnd = (after: number) =>
 *   EventLog.follow("support-42", { after }).pipe(
 *     Stream.takeUntil((logged) => logged.event.type === "run_ended"),
 *     Stream.runForEach((logged) => Effect.log(logged.seq, logged.event.type))
 *   )
 * ```
 *
 * @since 0.5.0
 * @category reading
 */
export const follow = (
  id: string,
  options: FollowOptions = {}
): Stream.Stream<LoggedEvent, Store.StoreError, SqlClient.SqlClient> => {
  const interval = Duration.fromInputUnsafe(options.pollInterval ?? "200 millis")
  const omitDeltas = options.omitDeltas ?? false
  return Stream.paginate(options.after ?? 0, (after) =>
    Effect.gen(function* () {
      // Taken before the read: a write between the read and the wait still ends the wait.
      const written = internal.nextWrite(id)
      const read = yield* internal.read(id, { after, until: undefined, limit: 1_000, omitDeltas })
      if (read.length > 0) return [read, Option.some(read[read.length - 1]!.seq)] as const
      // Nothing new: the store is still there (a deleted file fails here), then this process's next write
      // to the session or the interval, whichever comes first.
      yield* internal.checkStore
      yield* Effect.raceFirst(Deferred.await(written), Effect.sleep(interval))
      return [read, Option.some(after)] as const
    })
  )
}

/**
 * A run of a session as its log tells it.
 *
 * @since 0.5.0
 * @category models
 */
export interface RunSummary {
  /** The run's number in the session, from 1. */
  readonly run: number
  /** The kernel's run id (`<session>/run-<n>`). */
  readonly run_id: string
  readonly model: string
  /** The run's input, as `run_started` carries it. */
  readonly input: string
  /** `null` while the run has not ended (running, or left unfinished by a crash). */
  readonly status: KernelEvent.RunStatus | null
  readonly started_at: number
  readonly ended_at: number | null
  /** The sequence number of the run's `run_started`. */
  readonly first_seq: number
  /** The sequence number of the run's last event so far (its `run_ended` once it ended). */
  readonly last_seq: number
}

/**
 * The runs of the session `id` that its log holds, in order.
 *
 * @since 0.5.0
 * @category reading
 */
export const runs = (id: string): Effect.Effect<ReadonlyArray<RunSummary>, Store.StoreError, SqlClient.SqlClient> =>
  internal.runs(id)
