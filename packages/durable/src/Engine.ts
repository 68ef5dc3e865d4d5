/**
 * The engines a durable session runs on, as Layers. Each provides the
 * `WorkflowEngine` and the `SqlClient` of the session store (the journal and
 * the sessions live in one database), with the store's tables created.
 *
 * - `layerSqlite`: the embedded default, a local file through
 *   @effect/sql-libsql (prebuilt binaries, no compiler), with @effect/cluster's
 *   `ClusterWorkflowEngine` on a `SingleRunner`. One process owns the file at a
 *   time (an exclusive lock on `FILE.lock`; a second gets `StoreLocked`).
 * - `layerSql`: the same engine over any `SqlClient` you provide, such as
 *   Postgres through @effect/sql-pg.
 * - `layerMemory`: @effect/workflow's in-memory engine, for tests and apps
 *   that want no persistence.
 *
 * @since 0.1.0
 */
import * as ClusterWorkflowEngine from "@effect/cluster/ClusterWorkflowEngine"
import type * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SingleRunner from "@effect/cluster/SingleRunner"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as LibsqlClient from "@effect/sql-libsql/LibsqlClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as WorkflowEngine from "@effect/workflow/WorkflowEngine"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Store from "./internal/store.js"

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

const migrated = Layer.effectDiscard(
  Effect.mapError(Store.migrate, (error) => new StoreError({ message: error.message, locked: false }))
)

/**
 * The cluster workflow engine on a single runner over the `SqlClient` in
 * context (its messages, replies, locks and runners in `cluster_*` tables),
 * and the session store's tables in the same database.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSql = (
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
    Layer.provideMerge(migrated)
  ) as Layer.Layer<WorkflowEngine.WorkflowEngine | SqlClient.SqlClient, StoreError, SqlClient.SqlClient>

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
 * The embedded store: the file `filename` (SQLite, WAL), owned by this
 * process alone, with the cluster engine on a single runner.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (
  filename: string,
  options: ClusterOptions = {}
): Layer.Layer<WorkflowEngine.WorkflowEngine | SqlClient.SqlClient, StoreError> =>
  layerSql(options).pipe(
    Layer.provideMerge(
      Layer.effectDiscard(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe("PRAGMA journal_mode=WAL")).pipe(
          Effect.mapError(
            (error) => new StoreError({ message: `cannot open ${filename}: ${error.message}`, locked: false })
          )
        )
      )
    ),
    // intMode "bigint": the cluster's ids are 64-bit; @effect/sql-libsql ignores SqlClient.SafeIntegers.
    Layer.provideMerge(LibsqlClient.layer({ url: `file:${filename}`, intMode: "bigint" })),
    Layer.provideMerge(exclusive(filename))
  )

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
