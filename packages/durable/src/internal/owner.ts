import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import * as SqlError from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Store from "./store.js"

/** The advisory lock's key: one store a database schema. */
const lockKey = "hashtext('agent-kernel/durable/' || current_schema())"

const Locked = Schema.Tuple(Schema.Struct({ locked: Schema.Boolean }))

/** What a Postgres error carries of its SQLSTATE; the client's own errors (a closed socket) carry none. */
const PgErrorCode = Schema.Struct({ code: Schema.String })

/**
 * Whether a failed statement means the session on the server ended (and so
 * its advisory locks are gone), from the error's cause: a Postgres error's
 * SQLSTATE of class 08 (connection exception) or 57P (the server ended the
 * session: `pg_terminate_backend`, a shutdown, `idle_session_timeout`), or an
 * error of the client without one (its socket closed, or the client was
 * ended by such an error and refuses statements). Any other SQLSTATE (a
 * constraint, a syntax error, a cancelled statement) leaves the session, and
 * the lock, alive.
 *
 * @internal
 */
export const sessionEnded = (cause: unknown): boolean =>
  Option.match(Schema.decodeUnknownOption(PgErrorCode)(cause), {
    onNone: () => true,
    onSome: ({ code }) => code.startsWith("08") || code.startsWith("57P")
  })

/**
 * The error of every statement once the lock's session ended: this engine
 * never takes the store again (another process may have taken it since);
 * building the engine's layer again does, if the store is free.
 */
const lockLost = (cause: unknown) =>
  new SqlError.SqlError({
    message:
      "the session store's lock was lost (its Postgres connection ended): this process no longer owns the store; " +
      "build the engine again to take it, if no other process holds it",
    cause
  })

/**
 * The connection `connection`, whose statements are never cancelled: the
 * Postgres client cancels an interrupted statement by the backend's id (with
 * `pg_cancel_backend` on another connection), which on a connection that
 * many fibers share may cancel another fiber's statement, and with a pool of
 * one would wait for a second connection. An interrupted caller returns at
 * once; its statement finishes in the background, before any later one (the
 * client runs a connection's statements in the order they were sent). A
 * statement that finds the session ended marks the lock `lost`.
 */
const guarded = (connection: SqlConnection.Connection, lost: { ended: boolean }): SqlConnection.Connection => {
  const watch = <A>(statement: Effect.Effect<A, SqlError.SqlError>): Effect.Effect<A, SqlError.SqlError> =>
    Effect.disconnect(
      Effect.uninterruptible(
        Effect.catchAll(statement, (error) => {
          if (!lost.ended && !sessionEnded(error.cause)) return Effect.fail(error)
          lost.ended = true
          return Effect.fail(lockLost(error))
        })
      )
    )
  return {
    execute: (sql, params, transformRows) => watch(connection.execute(sql, params, transformRows)),
    executeRaw: (sql, params) => watch(connection.executeRaw(sql, params)),
    executeValues: (sql, params) => watch(connection.executeValues(sql, params)),
    executeUnprepared: (sql, params, transformRows) => watch(connection.executeUnprepared(sql, params, transformRows)),
    executeStream: (sql, params, transformRows) =>
      Stream.catchAll(connection.executeStream(sql, params, transformRows), (error) => {
        if (!lost.ended && !sessionEnded(error.cause)) return Stream.fail(error)
        lost.ended = true
        return Stream.fail(lockLost(error))
      })
  }
}

/**
 * The owner of a durable store on Postgres, for the life of the scope: a
 * session-level advisory lock (`pg_try_advisory_lock`, keyed by the schema)
 * on a connection reserved from the pool of the `SqlClient` in context, and
 * a `SqlClient` whose every statement runs on that connection. A second
 * process on the same database fails at once (`StoreError`, `locked: true`),
 * and the server releases the lock when the holder's session ends, a killed
 * process included.
 *
 * Fencing: no statement of this client can land once the lock is gone. The
 * lock and the statements share one server session, and a session's locks
 * are released only when it ends (a restart, `idle_session_timeout`, a
 * network cut, `pg_terminate_backend`), after which its connection accepts
 * nothing: a write either committed while the lock was held or fails. The
 * first failure that shows the session ended (`sessionEnded`) marks the lock
 * lost for good: every later statement fails at once, never on a new
 * connection, so this process never takes the store again behind the runs it
 * had in progress.
 *
 * One statement (or one transaction, or one stream) at a time on the
 * connection: a transaction holds it for its life, so no other fiber's
 * statement runs inside it (and a transaction that waited for another
 * fiber's statement would wait for ever). The pool's size does not matter
 * (one connection is enough). Statements use the Postgres compiler of @effect/sql-pg, which
 * the caller of a Postgres `SqlClient` has installed, without name
 * transforms (the store names its columns).
 *
 * @internal
 */
export const ownPostgres: Effect.Effect<SqlClient.SqlClient, Store.StoreError, SqlClient.SqlClient | Scope.Scope> =
  Effect.gen(function* () {
    const pool = yield* SqlClient.SqlClient
    const PgClient = yield* Effect.tryPromise({
      try: () => import("@effect/sql-pg/PgClient"),
      catch: (cause) =>
        new Store.StoreError({
          message: `the Postgres store needs @effect/sql-pg installed: ${String(cause)}`,
          locked: false
        })
    })
    const connection = yield* pool.reserve
    const [{ locked }] = yield* Effect.flatMap(
      connection.execute(`SELECT pg_try_advisory_lock(${lockKey}) AS locked`, [], undefined),
      Schema.decodeUnknown(Locked)
    )
    if (!locked)
      return yield* new Store.StoreError({
        message: "the session store (its Postgres database and schema) is in use by another process",
        locked: true
      })
    // Before the connection goes back to the pool (finalizers run in reverse), or the pool's next
    // user of it would hold the lock.
    yield* Effect.addFinalizer(() =>
      Effect.ignore(connection.execute(`SELECT pg_advisory_unlock(${lockKey})`, [], undefined))
    )
    const lost = { ended: false }
    const owned = guarded(connection, lost)
    const turn = yield* Effect.makeSemaphore(1)
    // The connection's turn, held for the statement's (or transaction's, or stream's) scope. Waiting
    // for it can be interrupted; a turn taken is always given back (as `Semaphore.withPermits`).
    const acquirer: SqlConnection.Connection.Acquirer = Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(
        restore(turn.take(1)),
        Effect.addFinalizer(() => turn.release(1))
      )
    ).pipe(
      Effect.zipRight(Effect.suspend(() => (lost.ended ? Effect.fail(lockLost(undefined)) : Effect.succeed(owned))))
    )
    return yield* SqlClient.make({
      acquirer,
      transactionAcquirer: acquirer,
      compiler: PgClient.makeCompiler(),
      spanAttributes: [["db.system.name", "postgresql"]]
    }).pipe(Effect.provide(Reactivity.layer))
  }).pipe(
    Effect.catchTags({
      SqlError: (error) =>
        new Store.StoreError({ message: `cannot lock the session store: ${error.message}`, locked: false }),
      ParseError: (error) =>
        new Store.StoreError({ message: `cannot lock the session store: ${error.message}`, locked: false })
    })
  )
