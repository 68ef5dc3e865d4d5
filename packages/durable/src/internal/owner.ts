import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
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
import { type StoreError, storeError } from "./storeError.js"
import { sqlReason } from "./storeFile.js"

/** The advisory lock's key: one store a database schema. */
const lockKey = "hashtext('agent-kernel/durable/' || current_schema())"

const Locked = Schema.Tuple([Schema.Struct({ locked: Schema.Boolean, pid: Schema.Number })])

/**
 * What a report of the server carries (the fields @effect/sql-pg copies
 * onto the reason's cause): its severity, unlocalized where the server says
 * it, and its SQLSTATE.
 */
const ServerReport = Schema.Struct({
  severity: Schema.String,
  severityUnlocalized: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String)
})
const decodeServerReport = Schema.decodeUnknownOption(ServerReport)

/**
 * Whether a failed statement means the session on the server ended (and so
 * its advisory locks are gone).
 *
 * A report of the server ends the session only at severity FATAL or PANIC
 * (`pg_terminate_backend`, a shutdown, `idle_session_timeout`); the class 57P
 * SQLSTATEs are always such, whatever language the severity is reported in.
 * At ERROR the session goes on, whatever the SQLSTATE: a constraint, a
 * cancelled statement, or a class-08 code such as 08P01 for a statement of
 * more than 65,535 parameters. An error of the client itself (no report of
 * the server) ends it when the client says its connection is gone (reason
 * `ConnectionError`: the socket failed or closed, a write to it failed):
 * the server ends the session once it sees the connection gone, and this
 * client cannot reach it again either way. Anything else leaves the lock
 * held: taking a live session for ended would refuse every statement while
 * the lock stays held, and a session that did end fails its next statement
 * anyway (the connection accepts nothing).
 *
 * @internal
 */
export const sessionEnded = (error: SqlError.SqlError): boolean =>
  Option.match(decodeServerReport(error.reason.cause), {
    onSome: ({ severity, severityUnlocalized, code }) => {
      const level = severityUnlocalized ?? severity
      return level === "FATAL" || level === "PANIC" || code?.startsWith("57P") === true
    },
    onNone: () => error.reason._tag === "ConnectionError"
  })

/**
 * The Postgres dialect of effect/sql's compiler (`$1` placeholders,
 * quoted identifiers), without name transforms (the store names its
 * columns) nor any client's custom fragments (the store uses none): so the
 * store runs on any Postgres `SqlClient` without @effect/sql-pg.
 */
const compiler = Statement.makeCompiler<never>({
  dialect: "pg",
  placeholder: (index) => `$${index}`,
  onIdentifier: Statement.defaultEscape('"'),
  onRecordUpdate: (placeholders, alias, columns, values, returning) => [
    `(values ${placeholders}) AS ${alias}${columns}${returning ? ` RETURNING ${returning[0]}` : ""}`,
    returning ? values.flat().concat(returning[1]) : values.flat()
  ],
  onCustom: () => ["", []]
})

/** How long cancelling or ending the owner's session over another connection, and closing the layer, may take. */
const controlTimeout = Duration.seconds(5)

const lockLost = (cause: unknown) =>
  new SqlError.SqlError({
    reason: new SqlError.ConnectionError({
      message:
        "the session store's lock was lost (its Postgres connection ended): this process no longer owns the store; " +
        "build the engine again to take it, if no other process holds it",
      cause
    })
  })

const ownerClosed = new SqlError.SqlError({
  reason: new SqlError.ConnectionError({
    message: "the session store's engine layer is closed: its connection and lock are released",
    cause: undefined
  })
})

/** What the owner knows of its session: whether it ended (the lock is lost for good), whether the layer closed. */
interface Session {
  ended: boolean
  closed: boolean
}

/**
 * The connection `connection` with one statement on the wire at a time (the
 * `wire` permit, held from sending a statement to its reply: the `pg` client
 * is never handed a second query to queue), whose failures that show the
 * session ended mark it ended.
 *
 * An interrupted caller returns at once. Its statement keeps the wire until
 * its reply arrives, so that nothing is sent behind it, and is cancelled with
 * `cancel` (`pg_cancel_backend` over another connection): the backend runs
 * only this statement, and the wire is given back only once both the reply
 * arrived and the cancel returned, so the cancel cannot reach a later one.
 */
const guarded = (
  connection: SqlConnection.Connection,
  session: Session,
  wire: Semaphore.Semaphore,
  cancel: Effect.Effect<void>
): SqlConnection.Connection => {
  const classify = (error: SqlError.SqlError): SqlError.SqlError => {
    if (!session.ended && !sessionEnded(error)) return error
    session.ended = true
    return lockLost(error)
  }
  const onWire = <A>(statement: Effect.Effect<A, SqlError.SqlError>): Effect.Effect<A, SqlError.SqlError> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        yield* restore(wire.take(1))
        const flight = { replied: false, cancelling: false }
        const cancelled = yield* Deferred.make<void>()
        const settled = Effect.suspend(() => {
          flight.replied = true
          return flight.cancelling ? Deferred.await(cancelled) : Effect.void
        })
        const running = yield* Effect.forkDetach(
          Effect.mapError(statement, classify).pipe(Effect.ensuring(settled), Effect.ensuring(wire.release(1)))
        )
        return yield* restore(Fiber.join(running)).pipe(
          Effect.onInterrupt(() =>
            Effect.suspend(() => {
              if (flight.replied) return Effect.void
              flight.cancelling = true
              return Effect.forkDetach(Effect.ensuring(cancel, Deferred.succeed(cancelled, undefined)))
            })
          )
        )
      })
    )
  return {
    execute: (sql, params, transformRows) => onWire(connection.execute(sql, params, transformRows)),
    executeRaw: (sql, params) => onWire(connection.executeRaw(sql, params)),
    executeValues: (sql, params) => onWire(connection.executeValues(sql, params)),
    executeValuesUnprepared: (sql, params) => onWire(connection.executeValuesUnprepared(sql, params)),
    executeUnprepared: (sql, params, transformRows) => onWire(connection.executeUnprepared(sql, params, transformRows)),
    // A stream keeps the wire while it reads (its cursor's statement is in progress).
    executeStream: (sql, params, transformRows) =>
      Stream.unwrap(
        Effect.as(
          Effect.acquireRelease(wire.take(1), () => wire.release(1)),
          Stream.mapError(connection.executeStream(sql, params, transformRows), classify)
        )
      )
  }
}

/**
 * The owner of a durable store on Postgres, for the life of the scope: a
 * session-level advisory lock (`pg_try_advisory_lock`, keyed by the schema)
 * on a connection reserved from the pool of the `SqlClient` in context, and
 * a `SqlClient` whose every statement runs on that connection (the store's
 * and the engine's; the app's own statements keep the pool). A second
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
 * had in progress. Once the scope closes, every statement fails at once too.
 *
 * One statement (or one transaction, or one stream) at a time on the
 * connection: a transaction holds it for its life, so no other fiber's
 * statement runs inside it (and a transaction that waited for another
 * fiber's statement would wait for ever). An interrupted statement is
 * cancelled over another connection of the pool, so that it does not hold
 * up the next: the pool needs a second connection for that, or the
 * interrupted statement runs to its end first. Closing the scope waits
 * `controlTimeout` at most for the connection; after that it ends its
 * session over another connection (which releases the lock, and the pool
 * discards the broken connection).
 *
 * @internal
 */
export const ownPostgres: Effect.Effect<SqlClient.SqlClient, StoreError, SqlClient.SqlClient | Scope.Scope> =
  Effect.gen(function* () {
    const pool = yield* SqlClient.SqlClient
    const connection = yield* pool.reserve
    const [{ locked, pid }] = yield* Effect.flatMap(
      connection.execute(`SELECT pg_try_advisory_lock(${lockKey}) AS locked, pg_backend_pid() AS pid`, [], undefined),
      Schema.decodeUnknownEffect(Locked)
    )
    if (!locked)
      return yield* storeError(
        "locked",
        "the session store (its Postgres database and schema) is in use by another process"
      )
    // Best effort over another connection of the pool, bounded (the pool may have none free).
    const control = (statement: string) => Effect.ignore(Effect.timeout(pool.unsafe(statement, [pid]), controlTimeout))
    const session: Session = { ended: false, closed: false }
    const wire = yield* Semaphore.make(1)
    const owned = guarded(connection, session, wire, control("SELECT pg_cancel_backend($1)"))
    const turn = yield* Semaphore.make(1)
    // Before the connection goes back to the pool (finalizers run in reverse), or the pool's next
    // user of it would hold the lock. The turn first, so that no statement of this client runs
    // after it; bounded, since a statement may be stuck on the server.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        session.closed = true
        if (session.ended) return
        const unlocked = yield* Effect.exit(
          Effect.timeout(
            Effect.interruptible(
              turn.withPermit(owned.execute(`SELECT pg_advisory_unlock(${lockKey})`, [], undefined))
            ),
            controlTimeout
          )
        )
        if (Exit.isSuccess(unlocked) || session.ended) return
        yield* control("SELECT pg_terminate_backend($1)")
        // The stuck statement's reply (the session's end) before the connection goes back to the
        // pool, which then discards it, rather than handing out a connection with a statement on it.
        yield* Effect.ignore(Effect.timeout(Effect.interruptible(wire.withPermit(Effect.void)), controlTimeout))
      })
    )
    // The connection's turn, held for the statement's (or transaction's, or stream's) scope. Waiting
    // for it can be interrupted; a turn taken is always given back (as `Semaphore.withPermits`).
    const acquirer: SqlConnection.Acquirer = Effect.uninterruptibleMask((restore) =>
      Effect.andThen(
        restore(turn.take(1)),
        Effect.addFinalizer(() => turn.release(1))
      )
    ).pipe(
      Effect.andThen(
        Effect.suspend(() =>
          session.closed
            ? Effect.fail(ownerClosed)
            : session.ended
              ? Effect.fail(lockLost(undefined))
              : Effect.succeed(owned)
        )
      )
    )
    return yield* SqlClient.make({
      acquirer,
      transactionAcquirer: acquirer,
      compiler,
      driver: "agent-kernel-owner",
      spanAttributes: [["db.system.name", "postgresql"]]
    }).pipe(Effect.provide(Reactivity.layer))
  }).pipe(
    Effect.catchTags({
      SqlError: (error) => storeError(sqlReason(error), `cannot lock the session store: ${error.message}`),
      SchemaError: (error) => storeError("unavailable", `cannot lock the session store: ${error.message}`)
    })
  )

const Held = Schema.Array(Schema.Struct({ held: Schema.Boolean }))

/**
 * Whether a live process holds the store's runs on Postgres now: a process
 * holds the store's advisory lock in this database (the store's owner),
 * looked up in `pg_locks` without taking it; or the store is a cluster's
 * (effect/cluster's `cluster_runners` beside it), whose runners take no
 * such lock and resume a dead runner's runs themselves.
 *
 * @internal
 */
export const heldOnPostgres: Effect.Effect<boolean, StoreError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // A one-argument advisory lock on a bigint: its high 32 bits are classid, its low ones objid, objsubid 1.
  const rows = yield* sql.unsafe(`SELECT EXISTS (SELECT 1 FROM pg_locks, (SELECT (${lockKey})::bigint AS k) key
    WHERE locktype = 'advisory' AND granted AND objsubid = 1
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND objid = (key.k & 4294967295)::oid AND classid = ((key.k >> 32) & 4294967295)::oid)
    OR to_regclass('cluster_runners') IS NOT NULL AS held`)
  const [row] = yield* Schema.decodeUnknownEffect(Held)(rows)
  return row?.held ?? false
}).pipe(
  Effect.catchTags({
    SqlError: (error) =>
      storeError(sqlReason(error), `cannot tell whether the session store is in use: ${error.message}`),
    SchemaError: (error) =>
      storeError("unavailable", `cannot tell whether the session store is in use: ${error.message}`)
  })
)
