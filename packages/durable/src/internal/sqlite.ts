/**
 * A `SqlClient` over Node's built-in SQLite (`node:sqlite`, nothing to
 * compile), built on effect/sql's own client constructor: one connection a
 * database, shared by the fibers through a semaphore (a transaction holds it
 * for its life), its prepared statements kept by SQL text, and every failure
 * a `SqlError` whose reason says what SQLite reported.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlConnection from "effect/sql/SqlConnection"
import * as SqlError from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Stream from "effect/Stream"
import type { DatabaseSync, SQLInputValue, SQLOutputValue, StatementSync } from "node:sqlite"

/**
 * Node's SQLite module, loaded when a database is first opened. Node 22
 * prints an ExperimentalWarning on stderr when it loads: that one warning is
 * dropped, so that a CLI's output stays its own; any other goes on.
 */
let sqliteModule: typeof import("node:sqlite") | undefined
const loadSqlite = (): typeof import("node:sqlite") => {
  if (sqliteModule !== undefined) return sqliteModule
  const emitWarning = process.emitWarning
  process.emitWarning = ((warning: string | Error, ...rest: Array<unknown>) => {
    if (isSqliteExperimental(warning, rest[0])) return
    return Reflect.apply(emitWarning, process, [warning, ...rest])
  }) as typeof process.emitWarning
  try {
    sqliteModule = process.getBuiltinModule("node:sqlite")
  } finally {
    process.emitWarning = emitWarning
  }
  return sqliteModule
}

const isSqliteExperimental = (warning: string | Error, type: unknown): boolean => {
  const name = typeof type === "string" ? type : warning instanceof Error ? warning.name : undefined
  const text = typeof warning === "string" ? warning : warning.message
  return name === "ExperimentalWarning" && /SQLite/.test(text)
}

/**
 * How the database's file is opened.
 *
 * @internal
 */
export interface Options {
  /** The database file, or `:memory:`. */
  readonly filename: string
  /** Open it for reading only: every write fails (reason `AuthorizationError`). Default false. */
  readonly readOnly?: boolean | undefined
  /**
   * How long a statement waits for another connection's lock on the file
   * before it fails (reason `LockTimeoutError`). Default 5 seconds.
   */
  readonly busyTimeout?: Duration.Input | undefined
  /**
   * Set WAL with `synchronous = NORMAL` (a commit survives the process's death, not a power loss).
   * Default true; false leaves the database's journal mode as it is.
   */
  readonly wal?: boolean | undefined
}

/** What `node:sqlite` attaches to the errors it throws: SQLite's extended result code and its text. */
const SqliteFailure = Schema.Struct({ errcode: Schema.Number, message: Schema.String })
const decodeFailure = Schema.decodeUnknownOption(SqliteFailure)

/**
 * SQLite's primary result codes the store names (https://sqlite.org/rescode.html).
 *
 * @internal
 */
export const SQLITE_BUSY = 5
/** @internal */
export const SQLITE_LOCKED = 6
/** @internal */
export const SQLITE_READONLY = 8
/** @internal */
export const SQLITE_IOERR = 10
/** @internal */
export const SQLITE_CORRUPT = 11
/** @internal */
export const SQLITE_FULL = 13
/** @internal */
export const SQLITE_CANTOPEN = 14
/** @internal */
export const SQLITE_NOTADB = 26
const SQLITE_CONSTRAINT = 19
const SQLITE_CONSTRAINT_UNIQUE = 2067

/**
 * The primary result code SQLite reported for a failed statement of this
 * client; `undefined` for a failure that is not SQLite's.
 *
 * @internal
 */
export const primaryCode = (error: SqlError.SqlError): number | undefined =>
  Option.match(decodeFailure(error.reason.cause), {
    onNone: () => undefined,
    onSome: (failure) => failure.errcode & 0xff
  })

const PgFailure = Schema.Struct({ code: Schema.String })
const decodePgFailure = Schema.decodeUnknownOption(PgFailure)

/**
 * The SQLSTATE a Postgres server reported for a failed statement, if it
 * did (the field @effect/sql-pg copies onto the reason's cause).
 *
 * @internal
 */
export const sqlState = (error: SqlError.SqlError): string | undefined =>
  Option.match(decodePgFailure(error.reason.cause), {
    onNone: () => undefined,
    onSome: (failure) => (/^[0-9A-Z]{5}$/.test(failure.code) ? failure.code : undefined)
  })

/**
 * The reason of a failure `cause` of `operation`: effect/sql's own
 * classification of SQLite's code (busy or locked: `LockTimeoutError`; a file
 * that cannot be opened: `ConnectionError`; constraints; permissions), and
 * for what it leaves unknown, a message naming it: a read-only database
 * (`AuthorizationError`), a corrupt file or one that is no database, a full
 * disk, an I/O failure.
 *
 * @internal
 */
export const reasonOf = (cause: unknown, operation: string): SqlError.SqlErrorReason => {
  const failure = decodeFailure(cause)
  const text = Option.match(failure, { onNone: () => String(cause), onSome: (failure) => failure.message })
  const code = Option.match(failure, { onNone: () => undefined, onSome: (failure) => failure.errcode })
  const props = { cause, operation }
  switch (code === undefined ? undefined : code & 0xff) {
    case SQLITE_READONLY:
      return new SqlError.AuthorizationError({ ...props, message: `the database is read-only: ${text}` })
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return new SqlError.UnknownError({ ...props, message: `the database file is corrupt: ${text}` })
    case SQLITE_FULL:
      return new SqlError.UnknownError({ ...props, message: `the database or its disk is full: ${text}` })
    case SQLITE_IOERR:
      return new SqlError.UnknownError({ ...props, message: `the database file cannot be read or written: ${text}` })
  }
  // A primary key's violation (its own extended code) is a unique key's for effect/sql.
  const errno =
    code !== undefined && (code & 0xff) === SQLITE_CONSTRAINT && text.startsWith("UNIQUE constraint failed")
      ? SQLITE_CONSTRAINT_UNIQUE
      : code
  const classified = SqlError.classifySqliteError(code === undefined ? cause : { errno, message: text }, {
    message: text,
    operation
  })
  // The classifier keeps what it was given as the cause: the original error is the one to keep.
  return Object.assign(classified, { cause })
}

const sqlError = (operation: string) => (cause: unknown) =>
  new SqlError.SqlError({ reason: reasonOf(cause, operation) })

/**
 * A statement's parameters as SQLite binds them: a boolean is an integer,
 * `undefined` is NULL (effect/sql's statements pass both; `node:sqlite`
 * refuses them).
 */
const bindable = (params: ReadonlyArray<unknown>): Array<SQLInputValue> =>
  params.map((value) =>
    typeof value === "boolean" ? (value ? 1 : 0) : value === undefined ? null : (value as SQLInputValue)
  )

/** How many statements a connection keeps prepared (the store has a few dozen texts; `IN` lists of varying length make more). */
const preparedLimit = 256

/**
 * The connection of `db`: each statement's prepared form is kept by its SQL
 * text (SQLite prepares a statement again by itself after a schema change),
 * the oldest dropped past `preparedLimit`. A statement runs to its end before
 * the next (the calls are synchronous), so one kept statement serves every
 * run of its text.
 */
const makeConnection = (db: DatabaseSync): SqlConnection.Connection => {
  const prepared = new Map<string, StatementSync>()
  const prepare = (sql: string): StatementSync => {
    const kept = prepared.get(sql)
    if (kept !== undefined) return kept
    const statement = db.prepare(sql)
    if (prepared.size >= preparedLimit) {
      const oldest = prepared.keys().next()
      if (oldest.done !== true) prepared.delete(oldest.value)
    }
    prepared.set(sql, statement)
    return statement
  }
  // Integers as bigint when the fiber asks for them (`SqlClient.SafeIntegers`: the cluster's 64-bit ids).
  const run = <A>(statement: () => StatementSync, arrays: boolean, f: (statement: StatementSync) => A) =>
    Effect.withFiber((fiber) =>
      Effect.try({
        try: () => {
          const prepared = statement()
          prepared.setReadBigInts(fiber.getRef(SqlClient.SafeIntegers))
          prepared.setReturnArrays(arrays)
          return f(prepared)
        },
        catch: sqlError("execute")
      })
    )
  const rows = (
    statement: () => StatementSync,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) =>
    run(statement, false, (prepared) => {
      const rows = prepared.all(...bindable(params))
      return transformRows === undefined ? rows : transformRows(rows)
    })
  // Node's types do not follow `setReturnArrays`: with it, each row is the array of its columns.
  const values = (statement: () => StatementSync, params: ReadonlyArray<unknown>) =>
    run(
      statement,
      true,
      (prepared) => prepared.all(...bindable(params)) as unknown as ReadonlyArray<ReadonlyArray<SQLOutputValue>>
    )
  return {
    execute: (sql, params, transformRows) => rows(() => prepare(sql), params, transformRows),
    executeRaw: (sql, params) =>
      run(
        () => prepare(sql),
        false,
        (prepared) => prepared.run(...bindable(params))
      ),
    executeValues: (sql, params) => values(() => prepare(sql), params),
    executeValuesUnprepared: (sql, params) => values(() => db.prepare(sql), params),
    executeUnprepared: (sql, params, transformRows) => rows(() => db.prepare(sql), params, transformRows),
    // Rows a page at a time from a statement of its own, while the stream holds the connection.
    executeStream: (sql, params, transformRows) =>
      Stream.unwrap(
        Effect.map(
          Effect.try({ try: () => db.prepare(sql).iterate(...bindable(params)), catch: sqlError("stream") }),
          (iterator) =>
            Stream.paginate(undefined, () =>
              Effect.try({
                try: () => {
                  const page: Array<Record<string, SQLOutputValue>> = []
                  let next = iterator.next()
                  while (next.done !== true) {
                    page.push(next.value)
                    if (page.length === 128) break
                    next = iterator.next()
                  }
                  const rows = transformRows === undefined ? page : transformRows(page)
                  return [rows, next.done === true ? Option.none() : Option.some(undefined)] as const
                },
                catch: sqlError("stream")
              })
            )
        )
      )
  }
}

/**
 * Opens the database (its pragmas set) for the life of the scope.
 */
const open = (options: Options): Effect.Effect<DatabaseSync, SqlError.SqlError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const { DatabaseSync } = loadSqlite()
        const db = new DatabaseSync(options.filename, { readOnly: options.readOnly ?? false })
        try {
          db.exec(`PRAGMA busy_timeout = ${Math.ceil(Duration.toMillis(options.busyTimeout ?? "5 seconds"))}`)
          if (options.wal !== false && options.readOnly !== true)
            db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
          return db
        } catch (error) {
          db.close()
          throw error
        }
      },
      catch: sqlError("open")
    }),
    (db) => Effect.sync(() => db.close())
  )

/**
 * A `SqlClient` of the database `options.filename` for the life of the
 * scope. Its transactions begin `IMMEDIATE` (the write lock at once, so two
 * processes never both hold a read lock they must upgrade) and hold the one
 * connection for their life, so no other fiber's statement runs inside one.
 *
 * @internal
 */
export const make = (
  options: Options
): Effect.Effect<SqlClient.SqlClient, SqlError.SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const db = yield* open(options)
    const connection = makeConnection(db)
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore: yield* Semaphore.make(1),
      isTransaction: () => db.isTransaction
    })
    return yield* SqlClient.make({
      ...acquirers,
      compiler: Statement.makeCompilerSqlite(),
      driver: "node-sqlite",
      beginTransaction: "BEGIN IMMEDIATE",
      prepareTransactionControls: true,
      spanAttributes: [["db.system.name", "sqlite"]]
    })
  })

/**
 * The client as a Layer.
 *
 * @internal
 */
export const layer = (options: Options): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))

/**
 * Holds the file `filename` locked against every other connection for the
 * life of the scope (an exclusive transaction that is never ended), so that
 * a second holder fails, once it has waited `wait` for it (default: not at
 * all), with a `SqlError` of reason `LockTimeoutError`. The OS releases the
 * lock when the process dies, SIGKILL included; the scope's end releases it
 * at once.
 *
 * @internal
 */
export const lockFile = (
  filename: string,
  wait: Duration.Input = 0
): Effect.Effect<void, SqlError.SqlError, Scope.Scope> =>
  Effect.flatMap(open({ filename, busyTimeout: wait, wal: false }), (db) =>
    Effect.acquireRelease(
      Effect.try({
        try: () => db.exec("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE"),
        catch: sqlError("lock")
      }),
      () => Effect.ignore(Effect.try(() => db.exec("ROLLBACK")))
    )
  )
