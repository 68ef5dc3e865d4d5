/**
 * The engines a durable session runs on, as Layers. Each provides the
 * `WorkflowEngine` and the `SqlClient` of the session store (the journal and
 * the sessions live in one database), with the store's tables created.
 *
 * - `layerSqlite`: the embedded default, a local file through Node's built-in
 *   SQLite (`node:sqlite`: nothing to install or compile), journaled by the
 *   light engine (`SqlEngine`). One process owns the file at a time,
 *   whatever path names it (a symbolic or hard link): a second gets
 *   `StoreError` with reason `locked`.
 * - `layerSql`: the same engine over any `SqlClient` you provide, such as
 *   Postgres through @effect/sql-pg (one process owns the store: an advisory
 *   lock, on the connection every statement of the store runs on).
 * - `layerClusterSql` / `layerClusterSqlite`: effect/cluster's
 *   `ClusterWorkflowEngine` on a `SingleRunner`, the engine of several
 *   runners (`@agent-kernel/cluster`).
 * - `layerMemory`: effect/workflow's in-memory engine, for tests and apps
 *   that want no persistence.
 *
 * The `AgentRun` workflow is the same on all of them.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Digest from "effect/crypto/Digest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as References from "effect/References"
import type * as Scope from "effect/Scope"
import * as ClusterWorkflowEngine from "effect/cluster/ClusterWorkflowEngine"
import type * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as SingleRunner from "effect/cluster/SingleRunner"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import * as Owner from "./internal/owner.js"
import * as Ownership from "./internal/ownership.js"
import * as Sqlite from "./internal/sqlite.js"
import * as SqlSteps from "./internal/sqlSteps.js"
import * as Steps from "./internal/steps.js"
import * as Store from "./internal/store.js"
import * as StoreFile from "./internal/storeFile.js"
import { sqlReason } from "./internal/storeFile.js"
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
  readonly pollInterval?: Duration.Input | undefined
  /** Any other setting of the single runner's sharding. */
  readonly sharding?: Partial<ShardingConfig.ShardingConfig["Service"]> | undefined
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
export const migrate: Effect.Effect<void, StoreError, SqlClient.SqlClient> = Effect.suspend(() =>
  migrateStore("the database")
)

/**
 * `migrate` of the store `name` (as its errors name it): refused when the database is not a store
 * (`Ownership.claim`: `StoreError` `foreign`), marked as one otherwise, then its tables created.
 */
const migrateStore = (name: string): Effect.Effect<void, StoreError, SqlClient.SqlClient> =>
  Ownership.claim(name, { mark: true }).pipe(
    Effect.andThen(Store.migrate),
    Effect.andThen(SqlEngine.migrate),
    Effect.andThen(Ownership.stamp),
    Effect.catchTags({
      SqlError: (error) =>
        Store.makeStoreError(sqlReason(error), `cannot set up the session store ${name}: ${error.message}`),
      SchemaError: (error) =>
        Store.makeStoreError("unavailable", `cannot set up the session store ${name}: ${error.message}`)
    })
  )

/** The `SqlClient` in context, passed on once the tables of the store `name` exist. */
const migratedStore = (name: string) =>
  Layer.effect(SqlClient.SqlClient, Effect.andThen(migrateStore(name), SqlClient.SqlClient))

/** The `SqlClient` in context, passed on once the store's tables exist. */
const migrated = migratedStore("the database")

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
export const Journal: Context.Reference<JournalService> = Context.Reference<JournalService>(
  "@agent-kernel/durable/Journal",
  { defaultValue: () => ({ purge: SqlEngine.purge }) }
)

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
      // The steps journaled beside the engine's messages (`clusterSteps`) first: they are written only while
      // the execution's messages exist.
      yield* SqlEngine.purge(ids)
      yield* sql.withTransaction(
        Effect.andThen(
          sql`DELETE FROM cluster_replies WHERE request_id IN
            (SELECT id FROM cluster_messages WHERE ${sql.in("entity_id", ids)})`,
          sql`DELETE FROM cluster_messages WHERE ${sql.in("entity_id", ids)}`
        )
      )
    })
}

/**
 * `AgentRun`'s steps on the cluster engine, journaled in the store's SQL
 * beside the engine's tables (the light engine's rows: a read and a write a
 * step) rather than as activities (the engine's message round trip). Part of
 * `layerClusterSql`; provide it where `AgentRun.layer` is built over a
 * `ClusterWorkflowEngine` of your own (several runners).
 *
 * @since 0.4.0
 * @category layers
 */
export const clusterSteps: Layer.Layer<never, never, SqlClient.SqlClient> = Layer.effectContext(
  Effect.map(Store.storeSql, (sql) => Context.make(Steps.Steps, Option.some(SqlSteps.make(sql))))
)

const engineError = (error: SqlEngine.JournalError) => Store.makeStoreError("unavailable", error.message)

/** `layer` with its error mapped by `f`. */
const mapError = <ROut, E, RIn, E2>(
  layer: Layer.Layer<ROut, E, RIn>,
  f: (error: E) => E2
): Layer.Layer<ROut, E2, RIn> => Layer.effectContext(Effect.mapError(Layer.build(layer), f))

/** The embedded store's client of `filename`, named `given`, its failure to open a `StoreError` saying why. */
const sqliteClient = (
  filename: string,
  given: string,
  options: { readonly wal?: boolean } = {}
): Layer.Layer<SqlClient.SqlClient, StoreError> =>
  mapError(Sqlite.layer({ filename, ...options }), StoreFile.failure(given, "open"))

/**
 * The `SqlClient` the store's engine and tables use: on Postgres, one on the connection that holds
 * the store's advisory lock, so that no statement lands once the lock is lost (`Owner.ownPostgres`);
 * elsewhere the one in context (`layerSqlite` locks its file; other databases are the caller's to
 * guard). Two processes running one journal's workflows would both run them.
 */
const owned: Effect.Effect<SqlClient.SqlClient, StoreError, SqlClient.SqlClient | Scope.Scope> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql.onDialectOrElse({ pg: () => Owner.ownPostgres, orElse: () => Effect.succeed(sql) })
)

/**
 * The light engine (`SqlEngine`) over the `SqlClient` in context, and the
 * session store's tables in the same database.
 *
 * On Postgres, one process owns the store at a time: it holds an advisory
 * lock on a connection it reserves from the pool for the layer's life, and
 * every statement of the engine and the store runs on that connection, one
 * at a time. A second process gets `StoreError` with `locked: true`. If the
 * server ends that connection (a restart, `idle_session_timeout`, a network
 * cut, `pg_terminate_backend`) the lock is gone and no statement of the store
 * can land any more: a run in progress fails at its next write with a
 * `JournalError`, unfinished (a second process that takes the store resumes
 * it), and so does every later run of this layer, which never takes the
 * store again (build the layer again for that).
 *
 * The `SqlClient` this layer provides is the one in context, the pool: the
 * app's own statements (its transforms, its transactions, its streams) run
 * there, beside the store's, not on the lock's connection. So the pool needs
 * one connection for the lock and the others for the app's statements and
 * for cancelling an interrupted statement of the store: two at least.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerSql = (
  options: SqlEngine.Options = {}
): Layer.Layer<WorkflowEngine.WorkflowEngine | SqlClient.SqlClient, StoreError, SqlClient.SqlClient> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const pool = yield* SqlClient.SqlClient
      const sql = yield* owned
      const store = Layer.succeed(SqlClient.SqlClient, sql)
      // The store's client under its own tag (the store and the journal read it there), the pool as
      // the layer's `SqlClient` (`Layer` is contravariant in what it provides: the tag stays internal).
      return Layer.mergeAll(
        mapError(SqlEngine.layer(options), engineError).pipe(Layer.provide(migrated), Layer.provide(store)),
        Layer.succeed(Store.StoreSql, Option.some(sql)),
        Layer.succeed(SqlClient.SqlClient, pool)
      )
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
  mapError(
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
      Layer.provide(Digest.layerWebCrypto)
    ),
    (error) => Store.makeStoreError("unavailable", `cannot start the runner: ${error.message}`)
  ).pipe(
    // The runner logs its housekeeping (a runner found unhealthy at shutdown) at WARN, to the app's
    // logger: a CLI's stdout. Only its errors are the app's business.
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error")),
    Layer.provideMerge(clusterSteps),
    Layer.provideMerge(migrated),
    Layer.provideMerge(Layer.succeed(Journal, clusterJournal))
  )

/**
 * The database of the embedded store `filename` (SQLite through
 * `node:sqlite`, WAL), created if new when `create`, owned by this process
 * alone (whatever path names it: `StoreFile.own`; a second owner gets
 * `StoreError` `locked`), with the session tables (a database that is not a
 * store is refused, `StoreError` `foreign`).
 */
const sqliteStore = (
  filename: string,
  options: { readonly create: boolean }
): Layer.Layer<SqlClient.SqlClient, StoreError> =>
  Layer.unwrap(
    Effect.map(StoreFile.own(filename, options), (located) =>
      // WAL with synchronous=NORMAL: a commit survives the process's death (SIGKILL included); only a
      // power loss may roll back the last commits, leaving the file consistent. Opened by its real path,
      // whose write-ahead log every name of the file shares.
      Layer.merge(
        migratedStore(filename).pipe(Layer.provideMerge(sqliteClient(located.real, filename))),
        Layer.succeed(Store.StoreCheck, StoreFile.stillThere(located))
      )
    )
  )

/**
 * The embedded store's database alone, without an engine, for reading a
 * store (`DurableSessions.summaries`) without running (or resuming)
 * anything: the file `filename` (SQLite through `node:sqlite`, WAL), owned
 * by this process alone, whatever path names it (a second owner gets
 * `StoreError` `locked`). A file that is not there is `StoreError`
 * `missing`, and nothing is created; a database that is not a session store
 * is `StoreError` `foreign`, and is left as it is.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqliteStore = (filename: string): Layer.Layer<SqlClient.SqlClient, StoreError> =>
  sqliteStore(filename, { create: false })

/**
 * The embedded store `filename` for reading, beside the process that owns
 * it, if one does: no lock is taken, no table is made, and nothing is
 * written but a stop asked for (`DurableSessions.requestStop`); SQLite's
 * write-ahead log lets a reader in beside the owner, whose commits it sees. A file that is not there is `StoreError` `missing`
 * (nothing is created); a database that is not a session store is
 * `StoreError` `foreign`; a store deleted or replaced under the reader fails
 * its next wait (`EventLog.follow`) with `StoreError` `missing`. Whether a
 * live process holds the store's unfinished runs is read by trying the
 * owner's locks for an instant (`DurableSessions.Summary.live`): an owner
 * starting meanwhile waits for it.
 *
 * @since 0.5.0
 * @category layers
 */
export const layerSqliteReader = (filename: string): Layer.Layer<SqlClient.SqlClient, StoreError> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const found = yield* StoreFile.locate(filename)
      if (Option.isNone(found))
        return yield* Store.makeStoreError("missing", `there is no session store at ${filename}`)
      const located = found.value
      const checked = Layer.effect(
        SqlClient.SqlClient,
        Effect.tap(SqlClient.SqlClient, () =>
          Ownership.claim(filename, { mark: false, existing: true }).pipe(
            Effect.catchTags({
              SqlError: StoreFile.failure(filename, "read"),
              SchemaError: (error) =>
                Store.makeStoreError("unavailable", `cannot read the session store ${filename}: ${error.message}`)
            })
          )
        )
      )
      return Layer.mergeAll(
        checked.pipe(Layer.provide(sqliteClient(located.real, filename, { wal: false }))),
        Layer.succeed(Store.StoreCheck, StoreFile.stillThere(located)),
        Layer.succeed(Store.Liveness, Option.some(StoreFile.ownedElsewhere(filename)))
      )
    })
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
  layerSql(options).pipe(Layer.provideMerge(sqliteStore(filename, { create: true })))

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
  layerClusterSql(options).pipe(Layer.provideMerge(sqliteStore(filename, { create: true })))

/**
 * effect/workflow's in-memory engine, with the session store in an
 * in-memory database: nothing outlives the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<WorkflowEngine.WorkflowEngine | SqlClient.SqlClient, StoreError> =
  WorkflowEngine.layerMemory.pipe(
    Layer.provideMerge(migrated),
    Layer.provideMerge(sqliteClient(":memory:", "the in-memory store"))
  )
