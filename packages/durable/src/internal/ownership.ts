/**
 * Whether a database is a session store, and marking it as one.
 *
 * A SQLite store is marked in its header: `PRAGMA application_id` is
 * `applicationId`, and `PRAGMA user_version` the version of its tables
 * (`schemaVersion`). A database with another application id, or with no mark
 * and tables a store does not have (another program's), or with a table of a
 * store's name but not its columns, is not touched: opening it fails with
 * `StoreError` `foreign`, naming it. An empty database, or a store made
 * before the mark (the same tables, unmarked), is marked when it is opened
 * to be written. On Postgres, where a store shares its schema with the
 * application's own tables, a table of a store's name must have a store's
 * columns.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import { type StoreError, storeError } from "./storeError.js"

/**
 * The mark of a session store in a SQLite header (`PRAGMA application_id`):
 * "AKSS", agent-kernel session store.
 *
 * @internal
 */
export const applicationId = 0x414b5353

/**
 * The version of a store's tables (`PRAGMA user_version`): 1, the sessions,
 * the tool-call claims and the light engine's journal; 2, the event log.
 *
 * @internal
 */
export const schemaVersion = 2

/** The columns a store's tables have (at least), by table. */
const storeTables: Readonly<Record<string, ReadonlyArray<string>>> = {
  agent_sessions: ["id", "state", "status", "run_index", "pending", "retries_used", "updated_at"],
  agent_tool_calls: ["execution_id", "call_id", "started_at"],
  agent_events: ["session_id", "seq", "run", "key", "type", "at", "event"],
  workflow_executions: ["execution_id", "workflow", "payload", "status", "result"],
  workflow_activities: ["execution_id", "name", "attempt", "exit"],
  workflow_deferreds: ["execution_id", "name", "exit"],
  workflow_clocks: ["execution_id", "name", "wake_at"]
}

/** Whether a store may hold the table `name`: its own, or the cluster engine's (`cluster_*`). */
const storeMayHold = (name: string): boolean => Object.hasOwn(storeTables, name) || name.startsWith("cluster_")

const Names = Schema.Array(Schema.Struct({ name: Schema.String }))
const decodeNames = Schema.decodeUnknownEffect(Names)
const Pragma = Schema.Array(Schema.Record(Schema.String, Schema.Number))
const decodePragma = Schema.decodeUnknownEffect(Pragma)

const foreign = (name: string, why: string): StoreError =>
  storeError("foreign", `${name} is not an agent-kernel session store (${why}): it is left as it is`)

/** A failure to read what the database holds. */
type ReadError = SqlError.SqlError | Schema.SchemaError

/** The value of the SQLite pragma `pragma` (an integer). */
const pragma = (sql: SqlClient.SqlClient, pragma: string): Effect.Effect<number, ReadError> =>
  Effect.map(Effect.flatMap(sql.unsafe(`PRAGMA ${pragma}`), decodePragma), (rows) => rows[0]?.[pragma] ?? 0)

/** The columns of the table `table` that lack among a store's. */
const missingColumns = (sql: SqlClient.SqlClient, table: string): Effect.Effect<ReadonlyArray<string>, ReadError> =>
  Effect.gen(function* () {
    const rows = yield* sql.onDialectOrElse({
      sqlite: () => sql`SELECT name FROM pragma_table_info(${table})`,
      orElse: () =>
        sql`SELECT column_name AS name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = ${table}`
    })
    const present = new Set((yield* decodeNames(rows)).map((row) => row.name))
    return (storeTables[table] ?? []).filter((column) => !present.has(column))
  })

/** The tables of a store's names that the database holds with other columns, as a reason to refuse it. */
const misshapen = (
  sql: SqlClient.SqlClient,
  name: string,
  tables: ReadonlyArray<string>
): Effect.Effect<void, StoreError | ReadError> =>
  Effect.gen(function* () {
    for (const table of tables) {
      if (!Object.hasOwn(storeTables, table)) continue
      const missing = yield* missingColumns(sql, table)
      if (missing.length > 0) return yield* foreign(name, `its table ${table} has no column ${missing.join(", ")}`)
    }
  })

/** Checks (and with `mark`, marks) a SQLite database as a store; with `existing`, one that has its tables. */
const sqlite = (
  sql: SqlClient.SqlClient,
  name: string,
  mark: boolean,
  existing: boolean
): Effect.Effect<void, StoreError | ReadError> =>
  Effect.gen(function* () {
    const id = yield* pragma(sql, "application_id")
    if (id === applicationId) {
      const version = yield* pragma(sql, "user_version")
      if (version > schemaVersion)
        return yield* foreign(
          name,
          `its tables are version ${version}, made by a newer agent-kernel; this one reads up to ${schemaVersion}`
        )
      return
    }
    if (id !== 0) return yield* foreign(name, `it is another program's database, application_id ${id}`)
    const tables = (yield* decodeNames(
      yield* sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
    )).map((row) => row.name)
    const others = tables.filter((table) => !storeMayHold(table))
    if (others.length > 0)
      return yield* foreign(name, `it holds the table${others.length > 1 ? "s" : ""} ${others.slice(0, 5).join(", ")}`)
    yield* misshapen(sql, name, tables)
    if (existing && !tables.includes("agent_sessions")) return yield* foreign(name, "it has no sessions table")
    if (mark) yield* sql.unsafe(`PRAGMA application_id = ${applicationId}`)
  })

/** Checks a Postgres schema's tables of a store's names. */
const postgres = (sql: SqlClient.SqlClient, name: string): Effect.Effect<void, StoreError | ReadError> =>
  Effect.gen(function* () {
    const tables = (yield* decodeNames(
      yield* sql`SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = current_schema() AND ${sql.in("table_name", Object.keys(storeTables))}`
    )).map((row) => row.name)
    yield* misshapen(sql, name, tables)
  })

/**
 * Checks that the database in context is a session store (or empty, unless
 * `existing`), and with `mark` marks it as one; `name` names it in the error. Fails with
 * `StoreError` `foreign` for one that is not, touching nothing.
 *
 * @internal
 */
export const claim = (
  name: string,
  options: { readonly mark: boolean; readonly existing?: boolean }
): Effect.Effect<void, StoreError | ReadError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.onDialectOrElse({
      sqlite: () => sqlite(sql, name, options.mark, options.existing ?? false),
      pg: () => postgres(sql, name),
      orElse: () => Effect.void
    })
  )

/**
 * Records that the store's tables are at `schemaVersion` (SQLite's
 * `user_version`; nothing elsewhere).
 *
 * @internal
 */
export const stamp: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql.onDialectOrElse({
      sqlite: () => Effect.asVoid(sql.unsafe(`PRAGMA user_version = ${schemaVersion}`)),
      orElse: () => Effect.void
    })
)
