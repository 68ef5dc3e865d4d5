/**
 * The engines a durable session runs on, as Layers. Each provides the
 * `WorkflowEngine` and the `SqlClient` of the session store (the journal and
 * the sessions live in one database), with the store's tables created.
 *
 * - `layerSqlite`: the embedded default, a local file through
 *   @effect/sql-libsql (prebuilt binaries, no compiler), journaled by the
 *   light engine (`SqlEngine`): about 1 ms of journaling per step. One
 *   process owns the file at a time (an exclusive lock on `FILE.lock`; a
 *   second gets `StoreError` with `locked: true`).
 * - `layerSql`: the same engine over any `SqlClient` you provide, such as
 *   Postgres through @effect/sql-pg.
 * - `layerClusterSql` / `layerClusterSqlite`: @effect/cluster's
 *   `ClusterWorkflowEngine` on a `SingleRunner`, the engine of several
 *   runners (`@agent-kernel/cluster`); tens of milliseconds per step.
 * - `layerMemory`: @effect/workflow's in-memory engine, for tests and apps
 *   that want no persistence.
 *
 * The `AgentRun` workflow is the same on all of them.
 *
 * @since 0.1.0
 */
import * as ClusterWorkflowEngine from "@effect/cluster/ClusterWorkflowEngine"
import type * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SingleRunner from "@effect/cluster/SingleRunner"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as LibsqlClient from "@effect/sql-libsql/LibsqlClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import * as WorkflowEngine from "@effect/workflow/WorkflowEngine"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Libsql from "./internal/libsql.js"
import * as SqlEngineInternal from "./internal/sqlEngine.js"
import * as Store from "./internal/store.js"
import * as SqlEngine from "./SqlEngine.js"

/**
 * The store could not be opened: another process holds it, or its database
 * cannot be read or set up.
 *
 * @since 0.1.0
 * @category errors
 */
export const StoreError = Store.StoreError

/**
 * @since 0.1.0
 * @category errors
 */
export type StoreError = Store.StoreError

/**
 * How the cluster engine polls its storage. Durable-clock wake-ups are
 * delivered by this poll, so a wait may end up to one interval late
 * (upstream's default is 10 s; ours is 1 s).
 *
 * @since 0.1.0
 * @category models
 */
export interface ClusterOptions {
  readonly pollInterval?: Duration.DurationInput | undefined
  /** Any other setting of the single runner's sharding. */
  readonly sharding?: Partial<ShardingConfig.ShardingConfig["Type"]> | undefined
}

/**
 * What an engine layer provides: the workflow engine, and the database of
 * the journal and the session store.
 *
 * @since 0.1.0
 * @category models
 */
export type Engine = WorkflowEngine.WorkflowEngine | SqlClient.SqlClient

/**
 * Creates the tables of a durable store if they do not exist: the session
 * store's (`agent_sessions`, `agent_tool_calls`) and the light engine's
 * journal (`SqlEngine.migrate`). Every engine layer here runs it; run it
 * yourself to set up a database another engine (a cluster runner) uses.
 *
 * @since 0.2.0
 * @category migrations
 */
export const migrate: Effect.Effect<void, StoreError, SqlClient.SqlClient> = Effect.zipRight(
  Store.migrate,
  SqlEngine.migrate
).pipe(
  Effect.mapError((error) => new StoreError({ message: `cannot set up the store: ${error.message}`, locked: false }))
)

/** The `SqlClient` in context, passed on once the store's tables exist. */
const migrated = Layer.effect(SqlClient.SqlClient, Effect.zipRight(migrate, SqlClient.SqlClient))

/**
 * How a store's engine keeps its journal, for deleting a session's runs
 * from it.
 *
 * @since 0.2.0
 * @category models
 */
export interface JournalService {
  /** Deletes every journal row of the executions `ids`. */
  readonly purge: (ids: ReadonlyArray<string>) => Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>
}

/**
 * The journal of the engine in context. Its default is the light engine's
 * tables; the cluster layers provide `clusterJournal`.
 *
 * @since 0.2.0
 * @category tags
 */
export class Journal extends Context.Reference<Journal>()("@agent-kernel/durable/Journal", {
  defaultValue: (): JournalService => ({ purge: SqlEngine.purge })
}) {}

/**
 * The cluster engine's journal: an execution's messages and their replies
 * in the `cluster_*` tables (the workflow entity and its clock entity alike
 * are keyed by the execution id).
 *
 * @since 0.2.0
 * @category journal
 */
export const clusterJournal: JournalService = {
  purge: (ids) =>
    Effect.gen(function* () {
      if (ids.length === 0) return
      const sql = yield* SqlClient.SqlClient
      yield* sql.withTransaction(
        Effect.zipRight(
          sql`DELETE FROM cluster_replies WHERE request_id IN
            (SELECT id FROM cluster_messages WHERE ${sql.in("entity_id", ids)})`,
          sql`DELETE FROM cluster_messages WHERE ${sql.in("entity_id", ids)}`
        )
      )
    })
}

const engineError = (error: SqlEngine.JournalError) => new StoreError({ message: error.message, locked: false })

const Locked = Schema.Tuple(Schema.Struct({ locked: Schema.Boolean }))

/**
 * On Postgres, holds a session-level advisory lock on the database's durable store (keyed by the
 * schema) for the life of the scope, on a connection reserved for it: a second process on the same
 * database fails at once, and the server releases the lock when the holder's connection drops, a
 * killed process included. Two processes running one journal's workflows would both run them.
 * Other databases through `layerSql` are the caller's to guard (`layerSqlite` locks its file).
 *
 * Returns a check that the lock is still held: a statement on its connection, which is alive
 * exactly while the session holding the lock is (a server restart, `idle_session_timeout`, a
 * network cut or `pg_terminate_backend` end both). Elsewhere the check is nothing.
 */
const exclusiveDatabase: Effect.Effect<
  Effect.Effect<void>,
  StoreError,
  SqlClient.SqlClient | Scope.Scope
> = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function* () {
        const connection = yield* sql.reserve
        const key = "hashtext('agent-kernel/durable/' || current_schema())"
        const [{ locked }] = yield* Effect.flatMap(
          connection.execute(`SELECT pg_try_advisory_lock(${key}) AS locked`, [], undefined),
          Schema.decodeUnknown(Locked)
        )
        if (!locked)
          return yield* new StoreError({
            message: "the session store (its Postgres database and schema) is in use by another process",
            locked: true
          })
        // Before the connection goes back to the pool (finalizers run in reverse), or the pool's
        // next user of it would hold the lock.
        yield* Effect.addFinalizer(() =>
          Effect.ignore(connection.execute(`SELECT pg_advisory_unlock(${key})`, [], undefined))
        )
        return Effect.catchAll(
          Effect.asVoid(connection.execute("SELECT 1", [], undefined)),
          SqlEngineInternal.fail("the session store's lock was lost (its Postgres connection ended)")
        )
      }),
    orElse: () => Effect.succeed(Effect.void)
  })
).pipe(
  Effect.catchTags({
    SqlError: (error) => new StoreError({ message: `cannot lock the session store: ${error.message}`, locked: false }),
    ParseError: (error) => new StoreError({ message: `cannot lock the session store: ${error.message}`, locked: false })
  })
)

/**
 * The light engine (`SqlEngine`) over the `SqlClient` in context, and the
 * session store's tables in the same database. On Postgres, one process owns
 * the store at a time (an advisory lock): a second gets `StoreError` with
 * `locked: true`, and the owner checks that it still holds the lock before
 * each new execution (a run's start): one that lost it (its lock's connection
 * ended) fails the run with a `JournalError` rather than run it beside a
 * second process that took the store.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerSql = (
  options: SqlEngine.Options = {}
): Layer.Layer<WorkflowEngine.WorkflowEngine | SqlClient.SqlClient, StoreError, SqlClient.SqlClient> =>
  Layer.unwrapScoped(
    Effect.map(exclusiveDatabase, (held) => {
      const before = options.beforeWrite ?? (() => Effect.void)
      return SqlEngine.layer({
        ...options,
        beforeWrite: (write) => (write.kind === "execution" ? Effect.zipRight(held, before(write)) : before(write))
      }).pipe(Layer.mapError(engineError), Layer.provideMerge(migrated))
    })
  )

/**
 * The cluster workflow engine on a single runner over the `SqlClient` in
 * context (its messages, replies, locks and runners in `cluster_*` tables),
 * and the session store's tables in the same database.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerClusterSql = (
  options: ClusterOptions = {}
): Layer.Layer<WorkflowEngine.WorkflowEngine | SqlClient.SqlClient, StoreError, SqlClient.SqlClient> =>
  ClusterWorkflowEngine.layer.pipe(
    Layer.provide(
      SingleRunner.layer({
        runnerStorage: "sql",
        shardingConfig: {
          entityMessagePollInterval: options.pollInterval ?? Duration.seconds(1),
          // An activity in flight at shutdown is ended by the process; waiting 15 s for it only delays exit.
          entityTerminationTimeout: Duration.seconds(1),
          ...options.sharding
        }
      })
    ),
    Layer.mapError((error) => new StoreError({ message: `cannot start the runner: ${error.message}`, locked: false })),
    // The runner logs its housekeeping (a runner found unhealthy at shutdown) at WARN, to the app's
    // logger: a CLI's stdout. Only its errors are the app's business.
    Layer.locally(FiberRef.currentMinimumLogLevel, LogLevel.Error),
    Layer.provideMerge(migrated),
    Layer.provideMerge(Layer.succeed(Journal, clusterJournal))
  )

/**
 * Holds `FILE.lock` exclusively for the life of the scope: a second process
 * on the same store fails at once, and the OS releases the lock when the
 * process dies, SIGKILL included. Two processes running one store's
 * workflows would both run them.
 */
const exclusive = (filename: string): Layer.Layer<never, StoreError> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const lock = yield* LibsqlClient.make({ url: `file:${filename}.lock` })
      yield* lock.unsafe("PRAGMA locking_mode = EXCLUSIVE")
      yield* lock.unsafe("BEGIN EXCLUSIVE")
      // Released at once when the scope ends, not whenever the connection is collected: the same
      // process may open the store again (a test, an app reopening it).
      yield* Effect.addFinalizer(() =>
        Effect.ignore(
          Effect.all([
            lock.unsafe("ROLLBACK"),
            lock.unsafe("PRAGMA locking_mode = NORMAL"),
            lock.unsafe("SELECT count(*) FROM sqlite_master")
          ])
        )
      )
    }).pipe(
      Effect.mapError(
        (error) =>
          new StoreError({
            message: /SQLITE_BUSY|locked/i.test(`${error.message} ${String(error.cause)}`)
              ? `the session store ${filename} is in use by another process`
              : `cannot lock the session store ${filename}: ${error.message}`,
            locked: /SQLITE_BUSY|locked/i.test(`${error.message} ${String(error.cause)}`)
          })
      ),
      Effect.provide(Reactivity.layer)
    )
  )

/**
 * The embedded store's database alone, without an engine: the file
 * `filename` (SQLite, WAL), owned by this process alone, with the session
 * tables. For reading a store (`DurableSessions.summaries`) without running
 * (or resuming) anything.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqliteStore = (filename: string): Layer.Layer<SqlClient.SqlClient, StoreError> =>
  migrated.pipe(
    Layer.provideMerge(
      Layer.effectDiscard(
        // WAL with synchronous=NORMAL: a commit survives the process's death (SIGKILL included);
        // only a power loss may roll back the last commits, leaving the file consistent. It cuts
        // a journal write from about 1 ms to 0.15 ms. (Per connection: libsql opens another for a
        // transaction, which keeps FULL; the journal writes outside transactions.)
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          Effect.zipRight(sql.unsafe("PRAGMA journal_mode=WAL"), sql.unsafe("PRAGMA synchronous=NORMAL"))
        ).pipe(
          Effect.mapError(
            (error) => new StoreError({ message: `cannot open ${filename}: ${error.message}`, locked: false })
          )
        )
      )
    ),
    // The client @effect/sql-libsql would make for `file:`, over a connection that keeps its prepared
    // statements (each journal write would prepare its statement again). Integers as bigint: the
    // cluster's ids are 64-bit; @effect/sql-libsql ignores SqlClient.SafeIntegers.
    Layer.provideMerge(
      Layer.unwrapScoped(Effect.map(Libsql.client(filename), (liveClient) => LibsqlClient.layer({ liveClient })))
    ),
    Layer.provideMerge(exclusive(filename))
  )

/**
 * The embedded store: the file `filename` (SQLite, WAL), owned by this
 * process alone, journaled by the light engine.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (
  filename: string,
  options: SqlEngine.Options = {}
): Layer.Layer<WorkflowEngine.WorkflowEngine | SqlClient.SqlClient, StoreError> =>
  layerSql(options).pipe(Layer.provideMerge(layerSqliteStore(filename)))

/**
 * The file `filename` (SQLite, WAL), owned by this process alone, with the
 * cluster engine on a single runner.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerClusterSqlite = (
  filename: string,
  options: ClusterOptions = {}
): Layer.Layer<WorkflowEngine.WorkflowEngine | SqlClient.SqlClient, StoreError> =>
  layerClusterSql(options).pipe(Layer.provideMerge(layerSqliteStore(filename)))

/**
 * @effect/workflow's in-memory engine, with the session store in an
 * in-memory database: nothing outlives the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<WorkflowEngine.WorkflowEngine | SqlClient.SqlClient, StoreError> =
  WorkflowEngine.layerMemory.pipe(
    Layer.provideMerge(migrated),
    Layer.provideMerge(LibsqlClient.layer({ url: ":memory:", intMode: "bigint" }))
  )
