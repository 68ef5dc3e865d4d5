import { Content, ModelError, Session } from "@agent-kernel/kernel"
import * as crypto from "node:crypto"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import * as EventLog from "./eventLog.js"
import { type StoreError, storeError as makeStoreError } from "./storeError.js"
import { sqlReason } from "./storeFile.js"
import * as Owner from "./owner.js"
import { Integer, Liveness, storeSql } from "./storeSql.js"

export { StoreError, storeError as makeStoreError } from "./storeError.js"
export { Liveness, StoreCheck, StoreSql, storeSql, storeSqlIn } from "./storeSql.js"

/** Session.State as stored: Schema-encoded JSON text. */
const StateJson = Schema.fromJsonString(Schema.toCodecJson(Session.State))
const MessageJson = Schema.fromJsonString(Schema.toCodecJson(Content.Message))
const ErrorJson = Schema.fromJsonString(Schema.toCodecJson(ModelError.ModelError))

/** @internal */
export const Row = Schema.Struct({
  id: Schema.String,
  /** The session's life (see `newLife`); NULL for a session made before lives existed. */
  life: Schema.NullOr(Schema.String),
  state: Schema.NullOr(StateJson),
  status: Schema.String,
  run_index: Integer,
  pending: Schema.NullOr(MessageJson),
  retries_used: Integer,
  updated_at: Integer,
  /** The session budget's retries left when the row was last written (`null`: unknown, or a store from before it). */
  retries_left: Schema.optional(Schema.NullOr(Integer)),
  /** When another process asked for the unfinished run to be stopped (`requestStop`). */
  stop_requested_at: Schema.optional(Schema.NullOr(Integer)),
  /** A paused run (status `paused`): the status it would have ended with. */
  paused_reason: Schema.optional(Schema.NullOr(Schema.String)),
  /** The error that paused it. */
  paused_error: Schema.optional(Schema.NullOr(ErrorJson)),
  paused_at: Schema.optional(Schema.NullOr(Integer)),
  /** When a runner resumes it (`null`: only a caller does). */
  resume_at: Schema.optional(Schema.NullOr(Integer)),
  /** The name of the durable deferred its resume completes. */
  paused_step: Schema.optional(Schema.NullOr(Schema.String))
})

/** @internal */
export interface Row extends Readonly<typeof Row.Type> {}

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))
const encodeState = Schema.encodeEffect(StateJson)
const encodeMessage = Schema.encodeEffect(MessageJson)
const encodeError = Schema.encodeEffect(ErrorJson)

/**
 * The tables of the session store, in the database of the journal:
 * `agent_sessions`, one row a session (its state after its last run, the
 * status of that run, and the input of a run in progress), and
 * `agent_tool_calls`, one row a tool call whose invocation started (the claim
 * that tells a re-executed tool activity the call was in flight). Their SQL is
 * portable between SQLite and Postgres.
 *
 * @internal
 */
export const migrate: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* storeSql
  yield* sql`CREATE TABLE IF NOT EXISTS agent_sessions (
    id TEXT PRIMARY KEY,
    state TEXT,
    status TEXT NOT NULL,
    run_index BIGINT NOT NULL,
    pending TEXT,
    retries_used BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    life TEXT
  )`
  // A store made before sessions had lives gets the column; its sessions keep NULL (and their
  // execution ids) until their next run begins (see `begin`). (If the ALTER fails, another process may just
  // have added it: the probe says.)
  yield* addColumn(sql, "life", "TEXT")
  // The budget's retries left when the row was last written, and a stop asked by another process.
  yield* addColumn(sql, "retries_left", "BIGINT")
  yield* addColumn(sql, "stop_requested_at", "BIGINT")
  // A paused run's why, since when, when it resumes, and the deferred its resume completes.
  yield* addColumn(sql, "paused_reason", "TEXT")
  yield* addColumn(sql, "paused_error", "TEXT")
  yield* addColumn(sql, "paused_at", "BIGINT")
  yield* addColumn(sql, "resume_at", "BIGINT")
  yield* addColumn(sql, "paused_step", "TEXT")
  yield* sql`CREATE INDEX IF NOT EXISTS agent_sessions_by_update ON agent_sessions (updated_at, id)`
  yield* EventLog.migrate
  yield* sql`CREATE TABLE IF NOT EXISTS agent_tool_calls (
    execution_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    PRIMARY KEY (execution_id, call_id)
  )`
})

/**
 * Adds the column `name` to `agent_sessions` unless it has it (a store made
 * before the column). If the ALTER fails, another process may just have
 * added it: the probe says.
 */
const addColumn = (sql: SqlClient.SqlClient, name: string, type: string) => {
  const probe = sql.unsafe(`SELECT ${name} FROM agent_sessions WHERE 1 = 0`)
  return probe.pipe(
    Effect.catch(() =>
      sql.unsafe(`ALTER TABLE agent_sessions ADD COLUMN ${name} ${type}`).pipe(Effect.catch(() => probe))
    ),
    Effect.asVoid
  )
}

/** A failure of the store at `what`: a row that does not decode, or the database's failure, in one line. */
const storeError = (what: string) => (cause: SqlError.SqlError | Schema.SchemaError) =>
  makeStoreError(
    Schema.isSchemaError(cause) ? "invalid-row" : sqlReason(cause),
    `${what}: ${Schema.isSchemaError(cause) ? `a row does not decode: ${cause.message}` : cause.message}`
  )

/** @internal */
export const get = (id: string): Effect.Effect<Option.Option<Row>, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const rows = yield* sql`SELECT * FROM agent_sessions WHERE id = ${id}`
    const decoded = yield* decodeRows(rows)
    return Option.fromUndefinedOr(decoded[0])
  }).pipe(Effect.mapError(storeError(`cannot read the session "${id}"`)))

/** Every session, by last update. @internal */
export const list: Effect.Effect<ReadonlyArray<Listed>, StoreError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* storeSql
  return yield* Schema.decodeUnknownEffect(ListedRows)(
    yield* sql`SELECT s.*, ${lastEvent(sql)} FROM agent_sessions s ORDER BY s.updated_at, s.id`
  )
}).pipe(Effect.mapError(storeError("cannot list the sessions")))

/** The columns of a listed session's last event: its sequence number and time (NULL for none). */
const lastEvent = (sql: SqlClient.SqlClient) =>
  sql`(SELECT MAX(e.seq) FROM agent_events e WHERE e.session_id = s.id) AS last_seq,
    (SELECT e.at FROM agent_events e WHERE e.session_id = s.id ORDER BY e.seq DESC LIMIT 1) AS last_at`

/**
 * A session's row as a list gives it, with its last event's sequence number
 * and time (`null` for none).
 *
 * @internal
 */
export interface Listed extends Row {
  readonly last_seq: number | null
  readonly last_at: number | null
}

const ListedRows = Schema.Array(
  Schema.Struct({ ...Row.fields, last_seq: Schema.NullOr(Integer), last_at: Schema.NullOr(Integer) })
)

/**
 * A new life of a session: a random id, given to its row when the row is
 * created (a first run, an import). Run numbers start again at 1 in a new
 * life, so the execution ids of its runs include it: a deleted and recreated
 * session never meets the journal of an earlier life.
 *
 * @internal
 */
export const newLife: Effect.Effect<string> = Effect.sync(() => crypto.randomUUID())

const LifeRows = Schema.Array(Schema.Struct({ life: Schema.NullOr(Schema.String) }))

/**
 * Marks run `run` of the session started with `input`, creating the session
 * (with a new life) if it is new, or giving it one if it has none (a store
 * from before lives), and returns the session's life and whether this call
 * began the run: it only moves a session with no run in progress forward (a
 * run already recorded, or begun by another caller, is left as it is).
 *
 * @internal
 */
export const begin = (
  id: string,
  run: number,
  input: Content.Message,
  at: number
): Effect.Effect<{ readonly life: string | null; readonly began: boolean }, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const pending = yield* encodeMessage(input)
    const life = yield* newLife
    yield* sql`INSERT INTO agent_sessions (id, life, state, status, run_index, pending, retries_used, updated_at)
      VALUES (${id}, ${life}, NULL, 'new', 0, NULL, 0, ${at}) ON CONFLICT DO NOTHING`
    // A session from before lives gets one with its next run: its runs so far may have journaled ids
    // `id/run` that a run number after an import (an import into a store from before lives kept that
    // journal) would meet.
    // Only a session with no run in progress moves on: of two callers sending an input at once,
    // one begins the run, the other is told a run is pending.
    const began = yield* sql`UPDATE agent_sessions SET status = 'running', run_index = ${run}, pending = ${pending},
      updated_at = ${at}, life = COALESCE(life, ${life})
      WHERE id = ${id} AND run_index < ${run} AND pending IS NULL RETURNING id`
    // The row's own life: another caller may have created the session first.
    const rows = yield* Schema.decodeUnknownEffect(LifeRows)(
      yield* sql`SELECT life FROM agent_sessions WHERE id = ${id}`
    )
    return { life: rows[0]?.life ?? null, began: began.length > 0 }
  }).pipe(Effect.mapError(storeError(`cannot start a run of the session "${id}"`)))

/**
 * A run of a session's life: which row a run's end may write. A run of a
 * deleted session (its body still going in this process) must not write over
 * the session created again under that id, whose run numbers start again.
 *
 * @internal
 */
export interface RunOf {
  readonly session_id: string
  readonly life?: string | undefined
  readonly run: number
}

const rowOf = (sql: SqlClient.SqlClient, of: RunOf) =>
  sql`id = ${of.session_id} AND run_index = ${of.run} AND ${of.life === undefined ? sql`life IS NULL` : sql`life = ${of.life}`}`

/** The columns of a pause, cleared: the run goes on, or has ended. */
const notPaused = "paused_reason = NULL, paused_error = NULL, paused_at = NULL, resume_at = NULL, paused_step = NULL"

/**
 * A run's pause as the store records it (see `paused`).
 *
 * @internal
 */
export interface Pause {
  /** The status the run would have ended with. */
  readonly reason: string
  readonly error: ModelError.ModelError
  readonly at: number
  readonly resumeAt: number | null
  /** The durable deferred its resume completes. */
  readonly step: string
}

/**
 * Records run `of` as paused (status `paused`, still pending: unfinished),
 * with the state it has now, why, since when, and when a runner resumes it.
 * A set, so writing it twice changes nothing; whether it recorded it
 * (nothing is written for a run that is over for the store).
 *
 * @internal
 */
export const paused = (
  of: RunOf,
  state: Session.State,
  pause: Pause,
  retriesLeft: number | null = null
): Effect.Effect<boolean, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const encoded = yield* encodeState(state)
    const error = yield* encodeError(pause.error)
    const recorded = yield* sql`UPDATE agent_sessions SET state = ${encoded}, status = 'paused',
      retries_used = ${state.budget.used}, retries_left = ${retriesLeft}, paused_reason = ${pause.reason},
      paused_error = ${error}, paused_at = ${pause.at}, resume_at = ${pause.resumeAt}, paused_step = ${pause.step},
      updated_at = ${pause.at}
      WHERE ${rowOf(sql, of)} AND pending IS NOT NULL RETURNING id`
    return recorded.length > 0
  }).pipe(Effect.mapError(storeError(`cannot record the pause of a run of the session "${of.session_id}"`)))

/**
 * Records the run `of`, paused at `step`, as going on (status `running`, its
 * pause cleared); whether it did (`false` when it is not paused there:
 * another caller resumed it first).
 *
 * @internal
 */
export const resumed = (of: RunOf, step: string, at: number): Effect.Effect<boolean, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const rows = yield* sql`UPDATE agent_sessions SET status = 'running', updated_at = ${at}, ${sql.literal(notPaused)}
      WHERE ${rowOf(sql, of)} AND pending IS NOT NULL AND status = 'paused' AND paused_step = ${step} RETURNING id`
    return rows.length > 0
  }).pipe(Effect.mapError(storeError(`cannot record the resume of a run of the session "${of.session_id}"`)))

/**
 * The sessions whose paused run a runner resumes now: its `resume_at` is at
 * or before `now`.
 *
 * @internal
 */
export const resumesDue = (now: number): Effect.Effect<ReadonlyArray<string>, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const rows = yield* Schema.decodeUnknownEffect(StopRows)(
      yield* sql`SELECT id FROM agent_sessions
        WHERE status = 'paused' AND pending IS NOT NULL AND resume_at IS NOT NULL AND resume_at <= ${now}
        ORDER BY resume_at, id`
    )
    return rows.map((row) => row.id)
  }).pipe(Effect.mapError(storeError("cannot read the paused runs due to resume")))

/**
 * Records the end of run `run`: the state after it and its status. A set,
 * never an increment, so writing it twice (an activity runs at least once)
 * changes nothing.
 *
 * @internal
 */
export const finish = (
  of: RunOf,
  state: Session.State,
  status: string,
  at: number,
  retriesLeft: number | null = null
): Effect.Effect<void, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const encoded = yield* encodeState(state)
    yield* sql`UPDATE agent_sessions SET state = ${encoded}, status = ${status}, pending = NULL,
      retries_used = ${state.budget.used}, retries_left = ${retriesLeft}, stop_requested_at = NULL, updated_at = ${at},
      ${sql.literal(notPaused)}
      WHERE ${rowOf(sql, of)}`
  }).pipe(Effect.mapError(storeError(`cannot record the end of a run of the session "${of.session_id}"`)))

/**
 * Records the state an interrupted run left (every tool_use answered), with
 * the status `interrupted`: the run has ended. `null` for a run stopped
 * before its session was made (in its start step): the state before it stays.
 * This one write is the record of a stop (see `endedInterrupted`); whether it
 * recorded it (nothing is written for a run over for the store already).
 *
 * @internal
 */
export const interrupted = (
  of: RunOf,
  state: Session.State | null,
  at: number,
  retriesLeft: number | null = null
): Effect.Effect<boolean, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const encoded = state === null ? null : yield* encodeState(state)
    const used = state === null ? null : state.budget.used
    const recorded = yield* sql`UPDATE agent_sessions SET state = COALESCE(${encoded}, state), status = 'interrupted',
      pending = NULL, retries_used = COALESCE(${used}, retries_used), retries_left = COALESCE(${retriesLeft}, retries_left),
      stop_requested_at = NULL, updated_at = ${at}, ${sql.literal(notPaused)}
      WHERE ${rowOf(sql, of)} AND pending IS NOT NULL RETURNING id`
    return recorded.length > 0
  }).pipe(Effect.mapError(storeError(`cannot record the interruption of a run of the session "${of.session_id}"`)))

/**
 * Whether the session's row records run `of` as stopped by its caller (see
 * `interrupted`): an execution of it that the engine starts again (its own
 * `stopped` mark not written, or a restart) must end at once.
 *
 * @internal
 */
export const endedInterrupted = (row: Row, of: RunOf): boolean =>
  row.run_index === of.run && row.life === (of.life ?? null) && row.pending === null && row.status === "interrupted"

/**
 * Whether the session has moved past run `of`: a later run began (`begin`
 * moves a session on only when nothing is pending, so run `of` had ended in
 * the store), or the session was deleted, imported over or given a new life.
 *
 * @internal
 */
export const movedPast = (row: Option.Option<Row>, of: RunOf): boolean =>
  Option.match(row, {
    onNone: () => true,
    onSome: (row) => row.run_index > of.run || row.life !== (of.life ?? null)
  })

/**
 * Whether run `of` is over for the store though an execution of it is
 * starting: its caller's stop is recorded (`endedInterrupted`), or the session
 * moved past it (`movedPast`). Such an execution (the engine starting a body
 * again: a restart before it marked the run ended, the end of a wait the run
 * was stopped in, the cluster engine delivering again the run whose body the
 * stop interrupted) must do nothing.
 *
 * @internal
 */
export const over = (row: Option.Option<Row>, of: RunOf): boolean =>
  Option.exists(row, (row) => endedInterrupted(row, of)) || movedPast(row, of)

/**
 * The state the store holds for the life of run `of`'s session (the stop's
 * record of the run, and what later runs added): `null` when the session
 * was deleted or imported over, or has no state yet.
 *
 * @internal
 */
export const lifeState = (row: Option.Option<Row>, of: RunOf): Session.State | null =>
  Option.match(row, {
    onNone: () => null,
    onSome: (row) => (row.life === (of.life ?? null) ? row.state : null)
  })

/**
 * Writes a session's state as imported: no run in progress, and a new life
 * (the runs it goes on with are new executions, whatever a session of that
 * id ran before).
 *
 * @internal
 */
export const put = (
  id: string,
  state: Session.State,
  at: number
): Effect.Effect<void, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const encoded = yield* encodeState(state)
    const life = yield* newLife
    yield* sql`DELETE FROM agent_sessions WHERE id = ${id}`
    yield* sql`INSERT INTO agent_sessions (id, life, state, status, run_index, pending, retries_used, updated_at)
      VALUES (${id}, ${life}, ${encoded}, 'imported', ${state.runs}, NULL, ${state.budget.used}, ${at})`
  }).pipe(Effect.mapError(storeError(`cannot import the session "${id}"`)))

/**
 * Creates the session `id` with `state` (as `Session.make` from it: no run
 * in progress, a new life), unless the store has a session of that id;
 * whether it did.
 *
 * @internal
 */
export const create = (
  id: string,
  state: Session.State,
  at: number
): Effect.Effect<boolean, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const encoded = yield* encodeState(state)
    const life = yield* newLife
    const created =
      yield* sql`INSERT INTO agent_sessions (id, life, state, status, run_index, pending, retries_used, updated_at)
      VALUES (${id}, ${life}, ${encoded}, 'new', ${state.runs}, NULL, ${state.budget.used}, ${at})
      ON CONFLICT DO NOTHING RETURNING id`
    return created.length > 0
  }).pipe(Effect.mapError(storeError(`cannot create the session "${id}"`)))

/**
 * Deletes the session and the tool-call claims of its runs (the executions
 * `executionIds`).
 *
 * @internal
 */
export const remove = (
  id: string,
  executionIds: ReadonlyArray<string>
): Effect.Effect<void, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    if (executionIds.length > 0) yield* sql`DELETE FROM agent_tool_calls WHERE ${sql.in("execution_id", executionIds)}`
    yield* sql`DELETE FROM agent_sessions WHERE id = ${id}`
  }).pipe(Effect.mapError(storeError(`cannot delete the session "${id}"`)))

/**
 * Asks for the unfinished run of the session `id` to be stopped, as its
 * caller's Ctrl-C would: the process that runs it (the store's owner) sees
 * the request within a second and stops the run (see `DurableSessions`).
 * Whether the session had an unfinished run to stop (`None` for no session).
 *
 * @internal
 */
export const requestStop = (
  id: string,
  at: number
): Effect.Effect<Option.Option<boolean>, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const asked = yield* sql`UPDATE agent_sessions SET stop_requested_at = ${at}
      WHERE id = ${id} AND pending IS NOT NULL RETURNING id`
    if (asked.length > 0) return Option.some(true)
    const found = yield* sql`SELECT id FROM agent_sessions WHERE id = ${id}`
    return found.length > 0 ? Option.some(false) : Option.none()
  }).pipe(Effect.mapError(storeError(`cannot ask for the run of the session "${id}" to stop`)))

const StopRows = Schema.Array(Schema.Struct({ id: Schema.String }))

/**
 * The sessions whose unfinished run another process asked to be stopped.
 *
 * @internal
 */
export const stopsRequested: Effect.Effect<ReadonlyArray<string>, StoreError, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* storeSql
    const rows = yield* Schema.decodeUnknownEffect(StopRows)(
      yield* sql`SELECT id FROM agent_sessions WHERE stop_requested_at IS NOT NULL AND pending IS NOT NULL`
    )
    return rows.map((row) => row.id)
  }
).pipe(Effect.mapError(storeError("cannot read the stops asked for")))

/**
 * Where a session is, as a page of sessions filters it: `running` (an
 * unfinished run a live process holds), `resumable` (one no live process
 * holds), `paused` (an unfinished run paused, see `paused`), `completed`,
 * `interrupted`, `failed` (its last run ended with another status), `new`
 * (no run ended yet).
 *
 * @internal
 */
export type Activity = "running" | "resumable" | "paused" | "completed" | "interrupted" | "failed" | "new"

/** The filter of the sessions in `activity`, `live` saying whether a live process holds the unfinished runs. */
const activityFilter = (sql: SqlClient.SqlClient, activity: Activity, live: boolean) => {
  switch (activity) {
    case "running":
      return live ? sql`pending IS NOT NULL AND status <> 'paused'` : sql`1 = 0`
    case "resumable":
      return live ? sql`1 = 0` : sql`pending IS NOT NULL AND status <> 'paused'`
    case "paused":
      return sql`pending IS NOT NULL AND status = 'paused'`
    case "completed":
      return sql`pending IS NULL AND status = 'completed'`
    case "interrupted":
      return sql`pending IS NULL AND status = 'interrupted'`
    case "new":
      return sql`pending IS NULL AND status IN ('new', 'imported')`
    case "failed":
      return sql`pending IS NULL AND status NOT IN ('completed', 'interrupted', 'new', 'imported', 'running')`
  }
}

/** `text` as a `LIKE` pattern matching it anywhere, its wildcards escaped (with `\`). */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const CountRows = Schema.Array(Schema.Struct({ n: Integer }))

/**
 * A page of the store's sessions, newest update first (then by id), with
 * how many match in all: those whose id contains `search` (ignoring case),
 * in `activity`; with each its last event's sequence number and time.
 *
 * @internal
 */
export const page = (query: {
  readonly search?: string | undefined
  readonly activity?: Activity | undefined
  readonly offset: number
  readonly limit: number
  readonly live: boolean
}): Effect.Effect<{ readonly total: number; readonly rows: ReadonlyArray<Listed> }, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const filters = [
      ...(query.search === undefined || query.search === ""
        ? []
        : [
            sql.onDialectOrElse({
              pg: () => sql`id ILIKE ${containing(query.search!)} ESCAPE '\\'`,
              orElse: () => sql`id LIKE ${containing(query.search!)} ESCAPE '\\'`
            })
          ]),
      ...(query.activity === undefined ? [] : [activityFilter(sql, query.activity, query.live)])
    ]
    const where = filters.length === 0 ? sql`` : sql`WHERE ${sql.and(filters)}`
    const [counted] = yield* Schema.decodeUnknownEffect(CountRows)(
      yield* sql`SELECT COUNT(*) AS n FROM agent_sessions ${where}`
    )
    const rows = yield* Schema.decodeUnknownEffect(ListedRows)(
      yield* sql`SELECT s.*, ${lastEvent(sql)}
        FROM (SELECT * FROM agent_sessions ${where} ORDER BY updated_at DESC, id LIMIT ${query.limit} OFFSET ${query.offset}) s
        ORDER BY s.updated_at DESC, s.id`
    )
    return { total: counted?.n ?? 0, rows }
  }).pipe(Effect.mapError(storeError("cannot list the sessions")))

/**
 * Whether a live process other than this reader holds the store's
 * unfinished runs now (see `Liveness`).
 *
 * @internal
 */
export const heldElsewhere: Effect.Effect<boolean, StoreError, SqlClient.SqlClient> = Effect.gen(function* () {
  const given = yield* Liveness
  if (Option.isSome(given)) return yield* given.value
  const sql = yield* storeSql
  return yield* sql.onDialectOrElse({
    pg: () => Effect.provideService(Owner.heldOnPostgres, SqlClient.SqlClient, sql),
    orElse: () => Effect.succeed(false)
  })
})

const ProgressRows = Schema.Array(Schema.Struct({ name: Schema.String }))
const WaitRows = Schema.Array(Schema.Struct({ wake_at: Integer }))

/**
 * How far the unfinished run `executionId` (run `run` of the session `id`)
 * got, as its journal and log say: its journaled model attempts and tool
 * calls (on the light engine and the cluster engine with `clusterSteps`;
 * none elsewhere), and the deadline of a retry wait it is in (none when it
 * is in none).
 *
 * @internal
 */
export const progress = (
  id: string,
  executionId: string
): Effect.Effect<
  {
    readonly modelCalls: number
    readonly toolCalls: number
    readonly waitingUntil: number | null
  },
  StoreError,
  SqlClient.SqlClient
> =>
  Effect.gen(function* () {
    const sql = yield* storeSql
    const steps = yield* Schema.decodeUnknownEffect(ProgressRows)(
      yield* sql`SELECT name FROM workflow_activities WHERE execution_id = ${executionId} AND attempt = ${1}`
    )
    // A retry's wait `retry/T/A` is over once its wake-up `woke/T/A` is journaled.
    const waits = yield* Schema.decodeUnknownEffect(WaitRows)(
      yield* sql`SELECT c.wake_at FROM workflow_clocks c WHERE c.execution_id = ${executionId}
        AND c.name LIKE 'retry/%' AND NOT EXISTS (SELECT 1 FROM workflow_activities a
          WHERE a.execution_id = c.execution_id AND a.name = 'woke/' || substr(c.name, 7))`
    )
    return {
      modelCalls: steps.filter((step) => step.name.startsWith("model/")).length,
      toolCalls: steps.filter((step) => step.name.startsWith("tool/")).length,
      waitingUntil: waits.reduce<number | null>((latest, wait) => Math.max(latest ?? 0, wait.wake_at), null)
    }
  }).pipe(Effect.mapError(storeError(`cannot read the unfinished run of the session "${id}"`)))
