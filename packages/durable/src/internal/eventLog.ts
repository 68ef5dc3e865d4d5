/**
 * The session's event log as a run writes it: every kernel event a durable
 * run publishes, in `agent_events`, numbered per session (`seq` 1, 2, ...)
 * across its runs, so that a reader can follow a session from any point.
 *
 * A replay publishes the events of the steps it answers from the journal
 * again. Each such event has a key, made of its type, its turn and what
 * tells it from the others of its turn (a model attempt, a tool call's id),
 * and the number of events with that key before it in the run; a key already
 * logged is not logged again. So a resumed run goes on with the events its
 * crash cut off (those published after the last write of the log), each
 * once, in order, and the sequence has no gap. The events a step publishes
 * while it executes (a model attempt's text and thinking deltas, a tool
 * call's start as the model streams it, a breaker's change) happen only when
 * it executes, and have no key. A model call a crash cut off mid-stream is
 * sent again by the resume: its new deltas follow a `stream_restarted`
 * (category `process_crashed`) that discards the text the log holds of it.
 *
 * When the log is written: the events published so far, in one statement,
 * before a step executes for real (at once when the last write was 20 ms ago
 * or more, as after a model call; otherwise within 20 ms, by the writer's
 * own fiber, so that quick steps share a write and a long one's are written
 * moments after it starts), within 20 ms of a delta while a call streams,
 * before a durable wait, and with the run's end (in the transaction that
 * records it) or its stop (in the transaction of its record): no other write
 * takes a `run_ended`, so the one a crash's interruption publishes, which
 * records nothing, is never logged. Consecutive deltas of one model attempt
 * waiting for a write are one event (their text joined). A crash can lose
 * the last 20 ms of what it cut off (deltas included); every keyed event is
 * logged again by the resume.
 *
 * @internal
 */
import { type EventBus, KernelEvent } from "@agent-kernel/kernel"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { performance } from "node:perf_hooks"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type * as SqlClient from "effect/sql/SqlClient"
import * as SqlError from "effect/sql/SqlError"
import { type StoreError, storeError } from "./storeError.js"
import { sqlReason } from "./storeFile.js"
import { Integer, StoreCheck, storeSql } from "./storeSql.js"

/**
 * The log's table: one row an event, keyed by the session and its sequence
 * number; `run` is the run's number in the session, `key` the event's
 * identity in its run (see the module), `event` the event's JSON.
 *
 * @internal
 */
export const migrate: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* storeSql
  yield* sql`CREATE TABLE IF NOT EXISTS agent_events (
    session_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    run BIGINT NOT NULL,
    key TEXT,
    type TEXT NOT NULL,
    at BIGINT NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  )`
})

/**
 * What tells an event from the others of its type in its run, before the
 * count of those with the same base (see `Writer.log`); `undefined` for the
 * events a step publishes while it executes, which a replay never repeats.
 */
export const keyBase = (event: KernelEvent.KernelEvent): string | undefined => {
  switch (event.type) {
    case "text_delta":
    case "thinking_delta":
    case "tool_use_started":
    case "breaker_changed":
      return undefined
    case "run_started":
    case "run_ended":
      return event.type
    case "turn_started":
    case "turn_ended":
    case "model_response":
    case "retry_quota_exhausted":
    case "content_filtered":
      return `${event.type}/${event.turn}`
    case "model_request":
    case "retry_scheduled":
    case "stream_restarted":
    case "run_paused":
    case "run_resumed":
      return `${event.type}/${event.turn}/${event.attempt}`
    case "fallback":
      return `${event.type}/${event.turn}/${event.from}>${event.to}`
    case "context_reduced":
      return `${event.type}/${event.turn}/${event.reductions}`
    case "tool_call_started":
    case "tool_result":
      return `${event.type}/${event.turn}/${event.id}`
    case "warning":
      return `${event.type}/${event.message}`
  }
}

/** An event waiting to be written, with its key (`null` for one without). */
interface Pending {
  event: KernelEvent.KernelEvent
  readonly key: string | null
}

const isDelta = (
  event: KernelEvent.KernelEvent
): event is KernelEvent.EventOf<"text_delta"> | KernelEvent.EventOf<"thinking_delta"> =>
  event.type === "text_delta" || event.type === "thinking_delta"

/** The delta `last` with `next` joined to it when `next` continues it (same kind, same model attempt). */
const joined = (last: KernelEvent.KernelEvent, next: KernelEvent.KernelEvent): KernelEvent.KernelEvent | undefined =>
  isDelta(last) &&
  isDelta(next) &&
  last.type === next.type &&
  last.turn === next.turn &&
  last.attempt === next.attempt &&
  last.model === next.model
    ? { ...last, text: last.text + next.text }
    : undefined

/**
 * Which run of which session a writer logs: the run's events go to the
 * session's log only while the session's row is this life's, at this run.
 *
 * @internal
 */
export interface RunOf {
  readonly session_id: string
  readonly life?: string | undefined
  readonly run: number
}

/**
 * A run's writer of the log.
 *
 * @internal
 */
export interface Writer {
  /** Takes a published event (a keyed one already logged is dropped). */
  readonly log: (event: KernelEvent.KernelEvent) => void
  /**
   * Writes the events taken so far, in one statement, but a `run_ended`
   * (and what follows it): that is written only with the store's record of
   * the end it tells, by `transaction`'s flush. Writes are serialised, so
   * sequence numbers are committed in order. Not inside a transaction of the
   * store's client: `transaction` gives the flush for one.
   */
  readonly flush: Effect.Effect<void, SqlError.SqlError>
  /**
   * `body` in one transaction of the store's client, given the writer's
   * `flush` for that transaction (the events it writes commit with what
   * `body` records, as a run's end and its `run_ended`). Writes are
   * serialised before the transaction begins: on a client of one connection
   * (the owner's on Postgres, SQLite's) a `flush` waiting for the connection
   * while holding the writer would otherwise wait for ever on the
   * transaction, which waits on the writer.
   */
  readonly transaction: <A, E, R>(
    body: (flush: Effect.Effect<void, SqlError.SqlError>) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | SqlError.SqlError, R>
  /**
   * Gives the run's `run_ended` taken and not yet written the status
   * `status`: the store recorded another end than the one the loop made
   * (its caller's stop, recorded after the loop had ended).
   */
  readonly endAs: (status: KernelEvent.RunStatus) => void
  /**
   * Before a step that executes for real: the events taken so far are
   * written at once when the log's last write was `windowMillis` ago or more
   * (the step follows a long one, such as a model call), otherwise within
   * `windowMillis` by the writer's own fiber (so a run of quick steps shares
   * one write, and a long step's are written moments after it starts).
   */
  readonly beforeStep: Effect.Effect<void, SqlError.SqlError>
  /**
   * Notes what the run's log already holds: a replay does not log its keys
   * again, and a model call the crash cut off mid-stream, sent again, is
   * preceded by a `stream_restarted` discarding what it had streamed.
   */
  readonly resume: Effect.Effect<void, SqlError.SqlError>
}

/**
 * How long events wait for a write at most while a step runs (a streamed
 * answer's deltas, what a long step follows), and how long after the log's
 * last write a step's start writes them at once.
 */
const windowMillis = 20

/** Waits `windowMillis` of the system's time, whatever clock the run reads (a log's write is no decision of the run). */
const window = Effect.sleep(windowMillis).pipe(Effect.provideService(Clock.Clock, Clock.Clock.defaultValue()))

/** The most rows one statement writes (SQLite binds at most 32,766 parameters). */
const rowsPerStatement = 500

const KeyRows = Schema.Array(Schema.Struct({ key: Schema.NullOr(Schema.String) }))
const decodeKeyRows = Schema.decodeUnknownEffect(KeyRows)
const EventRows = Schema.Array(
  Schema.Struct({ event: Schema.fromJsonString(Schema.toCodecJson(KernelEvent.KernelEvent)) })
)
const decodeEventRows = Schema.decodeUnknownEffect(EventRows)
const LastRows = Schema.Array(Schema.Struct({ last: Schema.NullOr(Integer) }))
const decodeLastRows = Schema.decodeUnknownEffect(LastRows)

/** A schema error reading the log's own rows, as the statement's failure. */
const unreadable = (error: Schema.SchemaError): SqlError.SqlError =>
  new SqlError.SqlError({
    reason: new SqlError.UnknownError({
      message: `the session's event log holds a row that does not decode: ${error.message}`,
      cause: error
    })
  })

/**
 * The statement that writes `rows` events of a run, by `rows`, in the
 * client's dialect (Postgres types the values' parameters; SQLite needs
 * nothing), made once a size: only while the session's row is the run's.
 */
const insertTexts = (sql: SqlClient.SqlClient, withLife: boolean) => {
  const made = new Map<number, string>()
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  let parameter = 0
  const p = (cast?: string) => {
    parameter++
    const at = pg ? `$${parameter}` : "?"
    return pg && cast !== undefined ? `CAST(${at} AS ${cast})` : at
  }
  return (rows: number): string => {
    const kept = made.get(rows)
    if (kept !== undefined) return kept
    parameter = 0
    const values = Array.from(
      { length: rows },
      () => `(${p()}, ${p("BIGINT")}, ${p("BIGINT")}, ${p("TEXT")}, ${p()}, ${p("BIGINT")}, ${p()})`
    ).join(", ")
    const owner = `id = ${p()} AND run_index = ${p("BIGINT")} AND ${withLife ? `life = ${p()}` : "life IS NULL"}`
    const text = `INSERT INTO agent_events (session_id, seq, run, key, type, at, event) SELECT * FROM (VALUES ${values}) AS v WHERE EXISTS (SELECT 1 FROM agent_sessions WHERE ${owner})`
    made.set(rows, text)
    return text
  }
}

/**
 * The writer of run `of` on the store's client `sql`, with its fiber for the
 * life of the scope: woken by a step's start or a delta, it writes what is
 * taken within `windowMillis`.
 *
 * @internal
 */
export const writer = (sql: SqlClient.SqlClient, of: RunOf): Effect.Effect<Writer, never, Scope.Scope> =>
  Effect.gen(function* () {
    // Sliding: one wake-up waiting is enough.
    const due = yield* Queue.sliding<void>(1)
    const made = make(sql, of, () => Queue.offerUnsafe(due, undefined))
    // A failure of that write is left to the run's next write, which fails the run.
    yield* Effect.forkScoped(
      Effect.forever(Effect.andThen(Queue.take(due), Effect.andThen(window, Effect.ignore(made.flush))))
    )
    return made
  })

/** What a resumed run's log holds of a model attempt's streamed text: its model, and the characters since its last restart. */
interface Streamed {
  readonly model: string
  readonly chars: number
}

const make = (sql: SqlClient.SqlClient, of: RunOf, wake: () => void): Writer => {
  const pending: Array<Pending> = []
  const occurrences = new Map<string, number>()
  const logged = new Set<string>()
  // The attempts whose deltas the log holds from before a crash, by `turn/attempt`.
  const streamed = new Map<string, Streamed>()
  let next: number | undefined
  let lastWrite = performance.now()
  // The batches a `transaction` wrote so far, given back to `pending` (and `next` with them) if it does not commit.
  let uncommitted: Array<Pending> | undefined
  const turn = Semaphore.makeUnsafe(1)
  const firstSeq = Effect.suspend(() =>
    next !== undefined
      ? Effect.succeed(next)
      : sql`SELECT MAX(seq) AS last FROM agent_events WHERE session_id = ${of.session_id}`.pipe(
          Effect.flatMap((rows) => Effect.mapError(decodeLastRows(rows), unreadable)),
          Effect.map((rows) => (rows[0]?.last ?? 0) + 1)
        )
  )
  const texts = insertTexts(sql, of.life !== undefined)
  const insert = (batch: ReadonlyArray<Pending>, seq: number) => {
    const params: Array<unknown> = []
    batch.forEach(({ event, key }, i) => {
      params.push(of.session_id, seq + i, of.run, key, event.type, Math.trunc(event.at), JSON.stringify(event))
    })
    params.push(of.session_id, of.run)
    if (of.life !== undefined) params.push(of.life)
    return sql.unsafe(texts(batch.length), params)
  }
  // How many of the events taken a write takes (`uncommitted` is set in a `transaction`, which records what they tell).
  const taken = () => writable(pending, uncommitted !== undefined)
  // Writes the events taken (`taken`); a batch that fails goes back, to be written again.
  const write = Effect.gen(function* () {
    if (taken() === 0) return
    const seq = yield* firstSeq
    // Counted again: more may have been taken while the first number was read.
    const batch = pending.splice(0, taken())
    const inserts = Effect.forEach(
      Array.from({ length: Math.ceil(batch.length / rowsPerStatement) }, (_, i) => i * rowsPerStatement),
      (start) => insert(batch.slice(start, start + rowsPerStatement), seq + start),
      { discard: true }
    )
    // A retry of the run: the session's row counts it at once (a killed run's retries are not lost to a
    // reader of the row), with the events that tell it.
    const retries = retriesUsed(batch)
    yield* (retries === undefined ? inserts : sql.withTransaction(Effect.andThen(inserts, countRetries(retries)))).pipe(
      Effect.onError(() => Effect.sync(() => pending.unshift(...batch)))
    )
    next = seq + batch.length
    uncommitted?.push(...batch)
    lastWrite = performance.now()
    // This process's followers read the rows once they are committed (at once outside a transaction).
    yield* sql.afterCommit(written(of.session_id))
  }).pipe(Effect.uninterruptible)
  const countRetries = (used: number) =>
    sql`UPDATE agent_sessions SET retries_used = ${used}
      WHERE id = ${of.session_id} AND run_index = ${of.run} AND retries_used < ${used}
      AND ${of.life === undefined ? sql`life IS NULL` : sql`life = ${of.life}`}`
  // Under the writer's turn, taken by `flush` or for a whole `transaction`.
  const flushTaken = Effect.suspend(() => (pending.length === 0 ? Effect.void : write))
  const flush = Effect.suspend(() => (pending.length === 0 ? Effect.void : turn.withPermit(flushTaken)))
  // The first delta of an attempt the crash cut off mid-stream: what it had streamed is discarded.
  const restarted = (event: KernelEvent.KernelEvent) => {
    if (event.type !== "text_delta" && event.type !== "thinking_delta") return
    const attempt = `${event.turn}/${event.attempt}`
    const before = streamed.get(attempt)
    if (before === undefined) return
    streamed.delete(attempt)
    pending.push({
      event: {
        type: "stream_restarted",
        at: event.at,
        turn: event.turn,
        model: before.model,
        attempt: event.attempt,
        category: "process_crashed",
        discarded_text_chars: before.chars
      },
      key: null
    })
  }
  return {
    log: (event) => {
      const base = keyBase(event)
      if (base === undefined) {
        restarted(event)
        const last = pending[pending.length - 1]
        const merged = last === undefined ? undefined : joined(last.event, event)
        if (last !== undefined && merged !== undefined) last.event = merged
        else pending.push({ event, key: null })
        // What a step publishes while it runs (a streamed answer) is written within the window.
        wake()
        return
      }
      const count = occurrences.get(base) ?? 0
      occurrences.set(base, count + 1)
      const key = `${base}#${count}`
      if (!logged.has(key)) pending.push({ event, key })
    },
    flush,
    endAs: (status) => {
      for (const entry of pending) if (entry.event.type === "run_ended") entry.event = { ...entry.event, status }
    },
    transaction: (body) =>
      turn.withPermit(
        Effect.suspend(() => {
          const before = next
          const wrote: Array<Pending> = []
          uncommitted = wrote
          // Rolled back (failed or interrupted): its rows are not in the log, so they are written again, numbered from `before`.
          return sql.withTransaction(body(flushTaken)).pipe(
            Effect.onError(() =>
              Effect.sync(() => {
                pending.unshift(...wrote)
                next = before
              })
            ),
            Effect.ensuring(Effect.sync(() => (uncommitted = undefined)))
          )
        })
      ),
    beforeStep: Effect.suspend(() => {
      if (pending.length === 0) return Effect.void
      if (performance.now() - lastWrite >= windowMillis) return flush
      wake()
      return Effect.void
    }),
    resume: Effect.gen(function* () {
      const keys = yield* Effect.mapError(
        decodeKeyRows(
          yield* sql`SELECT key FROM agent_events WHERE session_id = ${of.session_id} AND run = ${of.run} AND key IS NOT NULL`
        ),
        unreadable
      )
      for (const row of keys) if (row.key !== null) logged.add(row.key)
      const streams = yield* Effect.mapError(
        decodeEventRows(
          yield* sql`SELECT event FROM agent_events WHERE session_id = ${of.session_id} AND run = ${of.run}
            AND type IN ('text_delta', 'thinking_delta', 'stream_restarted') ORDER BY seq`
        ),
        unreadable
      )
      for (const { event } of streams) noteStreamed(streamed, event)
    })
  }
}

/**
 * How many of the events taken (`pending`, in order) a write takes: all of
 * them in a transaction of the writer's (`recording`), which records what
 * they tell; elsewhere those before the run's `run_ended`, which tells an end
 * the store holds only once such a transaction records it (a crash's
 * interruption publishes one, and records nothing).
 */
const writable = (pending: ReadonlyArray<{ readonly event: KernelEvent.KernelEvent }>, recording: boolean): number => {
  if (recording) return pending.length
  const end = pending.findIndex((entry) => heldUntilRecorded(entry.event))
  return end === -1 ? pending.length : end
}

/** The session budget's retries used as the last retry (or fallback) of `batch` says; none without one. */
const retriesUsed = (batch: ReadonlyArray<Pending>): number | undefined =>
  batch.reduce<number | undefined>(
    (used, { event }) =>
      event.type === "retry_scheduled" || event.type === "fallback"
        ? Math.max(used ?? 0, event.session_retries_used)
        : used,
    undefined
  )

/** Counts a logged delta (or restart) in what the log holds of each model attempt's stream. */
const noteStreamed = (streamed: Map<string, Streamed>, event: KernelEvent.KernelEvent) => {
  if (event.type === "stream_restarted") streamed.delete(`${event.turn}/${event.attempt}`)
  else if (event.type === "text_delta" || event.type === "thinking_delta") {
    const attempt = `${event.turn}/${event.attempt}`
    const chars = event.type === "text_delta" ? event.text.length : 0
    streamed.set(attempt, { model: event.model, chars: (streamed.get(attempt)?.chars ?? 0) + chars })
  }
}

/**
 * The bus a durable run publishes on (`bus`): every event goes to the log's
 * writer (unless `withheld`: the run suspended, or its journal failed, so it
 * has not ended), then on to `bus`, but for the run's end: its `run_ended`
 * (`heldUntilRecorded`) reaches `bus` only through `recorded`, which the run
 * calls once the store holds that end (its `end` step, or its caller's stop,
 * recorded), as the log writes it in the transaction that records it. So an
 * observer told that the run ended finds the store saying so; and a body
 * interrupted without its caller's stop (its engine stopping, its shard
 * moving) records no end, and its run goes on elsewhere: its observers are
 * not told that it ended. The log always listens, so the kernel always builds
 * its events.
 *
 * @internal
 */
export interface Logging {
  readonly bus: EventBus.Service
  /** Publishes on `bus` the `run_ended` held back, once the store records the end it tells. */
  readonly recorded: Effect.Effect<void>
  /**
   * The store recorded the run's end as `status`, whatever end the loop
   * made: the held `run_ended`, and the one the log has yet to write, say so.
   */
  readonly endedAs: (status: KernelEvent.RunStatus) => void
}

/**
 * Whether an event waits for the store's record of what it tells before it
 * is published: a run's `run_ended`.
 *
 * @internal
 */
export const heldUntilRecorded = (event: KernelEvent.KernelEvent): boolean => event.type === "run_ended"

/** @internal */
export const logging = (bus: EventBus.Service, writer: Writer, withheld: () => boolean): Logging => {
  // Nobody else listens (no observer, no subscriber): the events go to the log alone.
  const deliver = (events: ReadonlyArray<KernelEvent.KernelEvent>) => (bus.observed ? bus.deliver(events) : Effect.void)
  let held: KernelEvent.KernelEvent | undefined
  const logged = (events: ReadonlyArray<KernelEvent.KernelEvent>) => {
    if (withheld()) return deliver(events)
    for (const event of events) writer.log(event)
    return deliver(
      events.filter((event) => {
        if (!heldUntilRecorded(event)) return true
        held = event
        return false
      })
    )
  }
  return {
    bus: {
      observed: true,
      responseObserved: bus.responseObserved,
      publish: (event) => Effect.flatMap(Clock.currentTimeMillis, (at) => logged([KernelEvent.stamp(event, at)])),
      deliver: (events) => Effect.suspend(() => logged(events)),
      modelResponded: bus.modelResponded
    },
    recorded: Effect.suspend(() => {
      const event = held
      held = undefined
      return event === undefined ? Effect.void : deliver([event])
    }),
    endedAs: (status) => {
      writer.endAs(status)
      if (held?.type === "run_ended") held = { ...held, status }
    }
  }
}

/** Waiters for the next write of a session's events in this process, by session id. */
const writes = new Map<string, Deferred.Deferred<void>>()

/**
 * Done at this process's next write of the session `id`'s events (after its
 * commit): a follower waits on it between reads.
 *
 * @internal
 */
export const nextWrite = (id: string): Deferred.Deferred<void> => {
  const waiting = writes.get(id)
  if (waiting !== undefined) return waiting
  const made = Deferred.makeUnsafe<void>()
  writes.set(id, made)
  return made
}

/** Wakes the followers of the session `id` in this process. */
const written = (id: string): Effect.Effect<void> =>
  Effect.sync(() => {
    const waiting = writes.get(id)
    if (waiting === undefined) return
    writes.delete(id)
    Deferred.doneUnsafe(waiting, Effect.void)
  })

/**
 * Runs the store's own check (`StoreCheck`) in context.
 *
 * @internal
 */
export const checkStore: Effect.Effect<void, StoreError> = Effect.gen(function* () {
  const check = yield* StoreCheck
  yield* check
})

const LoggedRows = Schema.Array(
  Schema.Struct({
    seq: Integer,
    run: Integer,
    event: Schema.fromJsonString(Schema.toCodecJson(KernelEvent.KernelEvent))
  })
)
const decodeLoggedRows = Schema.decodeUnknownEffect(LoggedRows)

const readError = (what: string) => (error: SqlError.SqlError | Schema.SchemaError) =>
  storeError(
    Schema.isSchemaError(error) ? "invalid-row" : sqlReason(error),
    `${what}: ${Schema.isSchemaError(error) ? `a row does not decode: ${error.message}` : error.message}`
  )

/**
 * The events of the session `id` with `after < seq <= until`, in order, at
 * most `limit`, without deltas if `omitDeltas`.
 *
 * @internal
 */
export const read = (
  id: string,
  query: {
    readonly after: number
    readonly until: number | undefined
    readonly limit: number
    readonly omitDeltas: boolean
  }
): Effect.Effect<
  ReadonlyArray<{ readonly seq: number; readonly run: number; readonly event: KernelEvent.KernelEvent }>,
  StoreError,
  SqlClient.SqlClient
> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const rows = yield* sql`SELECT seq, run, event FROM agent_events
      WHERE session_id = ${id} AND seq > ${query.after}
      ${query.until === undefined ? sql`` : sql`AND seq <= ${query.until}`}
      ${query.omitDeltas ? sql`AND type NOT IN ('text_delta', 'thinking_delta')` : sql``}
      ORDER BY seq LIMIT ${query.limit}`
    return yield* decodeLoggedRows(rows)
  }).pipe(Effect.mapError(readError(`cannot read the events of the session "${id}"`)))

/**
 * The sequence number of the session `id`'s last event; 0 for none.
 *
 * @internal
 */
export const lastSeq = (id: string): Effect.Effect<number, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const rows = yield* decodeLastRows(yield* sql`SELECT MAX(seq) AS last FROM agent_events WHERE session_id = ${id}`)
    return rows[0]?.last ?? 0
  }).pipe(Effect.mapError(readError(`cannot read the events of the session "${id}"`)))

const RunRows = Schema.Array(Schema.Struct({ run: Integer, first: Integer, last: Integer }))
const decodeRunRows = Schema.decodeUnknownEffect(RunRows)

/**
 * The runs of the session `id` as its log tells them: each run's
 * `run_started` and `run_ended`, and its first and last sequence numbers.
 *
 * @internal
 */
export const runs = (
  id: string
): Effect.Effect<
  ReadonlyArray<{
    readonly run: number
    readonly run_id: string
    readonly model: string
    readonly input: string
    readonly status: KernelEvent.RunStatus | null
    readonly started_at: number
    readonly ended_at: number | null
    readonly first_seq: number
    readonly last_seq: number
  }>,
  StoreError,
  SqlClient.SqlClient
> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const spans = yield* decodeRunRows(
      yield* sql`SELECT run, MIN(seq) AS first, MAX(seq) AS last FROM agent_events WHERE session_id = ${id}
        GROUP BY run ORDER BY run`
    )
    const marks = yield* decodeLoggedRows(
      yield* sql`SELECT seq, run, event FROM agent_events
        WHERE session_id = ${id} AND type IN ('run_started', 'run_ended') ORDER BY seq`
    )
    return spans.flatMap((span) => {
      const started = marks.find((mark) => mark.run === span.run && mark.event.type === "run_started")?.event
      const ended = marks.find((mark) => mark.run === span.run && mark.event.type === "run_ended")?.event
      if (started?.type !== "run_started") return []
      return [
        {
          run: span.run,
          run_id: started.run_id,
          model: started.model,
          input: started.input,
          status: ended?.type === "run_ended" ? ended.status : null,
          started_at: started.at,
          ended_at: ended?.type === "run_ended" ? ended.at : null,
          first_seq: span.first,
          last_seq: span.last
        }
      ]
    })
  }).pipe(Effect.mapError(readError(`cannot read the runs of the session "${id}"`)))

/**
 * The last event of run `run` of the session `id`, of one of `types` if
 * given; `None` for none.
 *
 * @internal
 */
export const latest = (
  id: string,
  run: number,
  types?: ReadonlyArray<KernelEvent.EventType>
): Effect.Effect<
  Option.Option<{ readonly seq: number; readonly run: number; readonly event: KernelEvent.KernelEvent }>,
  StoreError,
  SqlClient.SqlClient
> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const rows = yield* decodeLoggedRows(
      yield* sql`SELECT seq, run, event FROM agent_events WHERE session_id = ${id} AND run = ${run}
        ${types === undefined ? sql`` : sql`AND ${sql.in("type", types)}`} ORDER BY seq DESC LIMIT 1`
    )
    return Option.fromUndefinedOr(rows[0])
  }).pipe(Effect.mapError(readError(`cannot read the events of the session "${id}"`)))
