/**
 * One runner of the example service: durable sessions on a runner of the
 * `@agent-kernel/cluster` cluster over Postgres, the event log, and the HTTP
 * API, with the run inspector mounted at `/inspector` when given its token,
 * as one Layer. Start as many as you like on the same database; each
 * serves the whole API, and a prompt runs on whichever runner holds its
 * session's shard.
 *
 * The database is set up once, before the first runner starts (`migrate`):
 * the cluster's and the session store's migrations race when two processes
 * run them at once.
 *
 * @since 0.1.0
 */
import { Runner } from "@agent-kernel/cluster"
import { DurableSessions, Engine } from "@agent-kernel/durable"
import type { ModelProvider, Settings } from "@agent-kernel/kernel"
import { Inspector } from "@agent-kernel/inspector"
import { DurableStore } from "@agent-kernel/inspector/durable"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerError from "effect/http/HttpServerError"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import * as Http from "node:http"
import * as Api from "./Api.js"
import * as SessionEvents from "./SessionEvents.js"

/**
 * The service could not start: its database, its ports, or a database that
 * was never set up.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServiceError extends Data.TaggedError("ServiceError")<{ readonly message: string }> {}

/**
 * Options of a runner of the service.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The HTTP API's port. */
  readonly port: number
  /** The HTTP API's interface. Default `127.0.0.1`. */
  readonly host?: string | undefined
  /** The address other runners reach this one at (runner to runner TCP). */
  readonly runnerHost: string
  readonly runnerPort: number
  readonly databaseUrl: Redacted.Redacted
  /**
   * Connections of this process's pool. Default 10. The cluster runner holds
   * one of them for its shard locks; the event log's LISTEN has a connection
   * of its own, outside the pool.
   */
  readonly maxConnections?: number | undefined
  readonly model: string
  readonly settings?: Settings.Settings | undefined
  /**
   * A runner whose shard locks are not refreshed for this long loses its
   * shards to the others, which resume its runs. Default the `Runner`'s, 30 s.
   * Each lock operation then gets a third of it: on a loaded machine, 6 s
   * (2 s an operation) loses shards to slow queries, and a runner that loses
   * them interrupts its runs.
   */
  readonly shardLockExpiration?: Duration.Input | undefined
  /**
   * How long each step of a stop (SIGTERM) may take. First the runner's
   * calls in flight get this long to finish before it hands its shards over
   * (`Runner.drain`); then its open answers, whose runs go on on another
   * runner, get this long again to reach their end. Default the `Runner`'s,
   * 20 s. A SIGKILL after the hand-over costs nothing but the answers still
   * open; before it, the runs wait for the shard locks to expire.
   */
  readonly drainTimeout?: Duration.Input | undefined
  /**
   * The run inspector at `/inspector` (`@agent-kernel/inspector`) over this
   * runner's sessions: the sessions of the whole store, each run's timeline,
   * live events, resume and interrupt, which need `token`. `secrets` are kept
   * out of its pages (the database URL always is). None: no inspector.
   */
  readonly inspector?:
    | {
        readonly token: Redacted.Redacted<string>
        readonly secrets?: ReadonlyArray<Redacted.Redacted<string>> | undefined
      }
    | undefined
}

/** The path the inspector is mounted under. */
export const inspectorPrefix = "/inspector"

/** The service's routes: its API, and the inspector over its durable sessions when `options.inspector` is given. */
const routes = (options: Options) => {
  const api = HttpRouter.addAll(Api.make)
  if (options.inspector === undefined) return api
  const inspector = Inspector.layer({
    token: options.inspector.token,
    prefix: inspectorPrefix,
    secrets: [...(options.inspector.secrets ?? []), options.databaseUrl]
  }).pipe(Layer.provide(DurableStore.layerSessions()))
  return Layer.mergeAll(api, inspector)
}

/** What can fail a runner's start or the database's set-up, besides the event log. */
type StartFailure =
  | ServiceError
  | Runner.RunnerError
  | SqlError.SqlError
  | Engine.StoreError
  | HttpServerError.ServeError

/** A start failure as the operator reads it: what failed, and why, in one line. */
const serviceError =
  (port?: number) =>
  (failure: StartFailure): ServiceError => {
    switch (failure._tag) {
      case "ServiceError":
        return failure
      // The runner's and the store's errors say what failed.
      case "RunnerError":
        return new ServiceError({ message: failure.message })
      case "StoreError":
        return new ServiceError({ message: `cannot set up the session store: ${failure.message}` })
      case "SqlError":
        return new ServiceError({ message: `cannot read the database: ${Runner.describeSqlError(failure)}` })
      case "ServeError":
        return new ServiceError({ message: `cannot listen on port ${port}: ${String(failure.cause)}` })
    }
  }

/** `layer` with its start failures as `ServiceError`s; the event log's errors pass as they are. */
const failingAsService = <ROut, RIn>(
  layer: Layer.Layer<ROut, StartFailure | SessionEvents.EventLogError, RIn>,
  port?: number
): Layer.Layer<ROut, ServiceError | SessionEvents.EventLogError, RIn> =>
  Layer.catch(layer, (failure) =>
    Layer.effectContext<ROut, ServiceError | SessionEvents.EventLogError, never>(
      Effect.fail(failure._tag === "EventLogError" ? failure : serviceError(port)(failure))
    )
  )

/** The pool, once the database answers (its client connects lazily: a first query says whether it can). */
const pg = (options: { readonly databaseUrl: Redacted.Redacted; readonly maxConnections?: number | undefined }) =>
  Layer.effectDiscard(Runner.checkDatabase).pipe(
    Layer.provideMerge(PgClient.layer({ url: options.databaseUrl, maxConnections: options.maxConnections ?? 10 }))
  )

/**
 * Sets up the database: the cluster's tables and the session store's (by
 * starting and stopping a single-runner engine on it), and the event log's.
 * Run it once, before any runner starts; running it again changes nothing.
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrate = (options: {
  readonly databaseUrl: Redacted.Redacted
}): Effect.Effect<void, ServiceError | SessionEvents.EventLogError> =>
  Effect.scoped(Effect.andThen(Layer.build(Engine.layerClusterSql()), SessionEvents.migrate)).pipe(
    Effect.provide(pg(options)),
    Effect.catch((failure) => Effect.fail(failure._tag === "EventLogError" ? failure : serviceError()(failure)))
  )

const Exists = Schema.Array(Schema.Struct({ missing: Schema.Number }))

/** Fails, saying what to do, when `migrate` never ran on the database. */
const checkMigrated = Layer.effectDiscard(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`SELECT (CASE WHEN to_regclass('agent_sessions') IS NULL
      OR to_regclass('agent_service_events') IS NULL THEN 1 ELSE 0 END)::int AS missing`.pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(Exists)),
      Effect.mapError((error) =>
        error._tag === "SqlError" ? error : new ServiceError({ message: `cannot read the database: ${error.message}` })
      )
    )
    if (rows[0]?.missing !== 0) {
      return yield* new ServiceError({ message: "the database is not set up: run the service's `migrate` first" })
    }
  })
)

/**
 * The stop of a runner of the service, first when its layer closes (the
 * process's SIGTERM): new prompts get 503 while the runner drains and hands
 * its shards over, then its open answers follow their runs, now on another
 * runner, to their end (for at most `drainTimeout`). Only then do the HTTP
 * server and the callers of its runs close (an interrupted caller would stop
 * its run).
 */
const stopFirst = (drainTimeout: Duration.Duration) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const runner = yield* Runner.Runner
      const answers = yield* Api.Answers
      yield* Effect.addFinalizer(() =>
        Effect.andThen(
          runner.drain,
          Effect.timeoutOption(Api.answered, drainTimeout).pipe(Effect.provideService(Api.Answers, answers))
        )
      )
    })
  )

/**
 * A runner of the service: its HTTP API listening on `port`, its runner on
 * `runnerPort`, its runs' model the `ModelProvider` in context. Closing it
 * (SIGTERM) stops the runner first (see `Options.drainTimeout`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<never, ServiceError | SessionEvents.EventLogError, ModelProvider.ModelProvider> => {
  const drainTimeout = Duration.fromInputUnsafe(options.drainTimeout ?? Duration.seconds(20))
  const store = Runner.layer({
    host: options.runnerHost,
    port: options.runnerPort,
    shardLockExpiration: options.shardLockExpiration,
    drainTimeout
  }).pipe(Layer.provideMerge(checkMigrated), Layer.provideMerge(pg(options)))
  const sessions = DurableSessions.layer({ model: options.model, settings: options.settings }).pipe(
    // The runs' bus writes the event log: provided to the layer that registers the workflow.
    Layer.provideMerge(SessionEvents.layer({ runner: `${options.runnerHost}:${options.runnerPort}` })),
    Layer.provideMerge(store)
  )
  const server = NodeHttpServer.layer(() => Http.createServer(), {
    port: options.port,
    host: options.host ?? "127.0.0.1",
    // By then the stop has let the answers end: this only bounds the wait for idle keep-alive connections.
    gracefulShutdownTimeout: Duration.seconds(5)
  })
  // The operator reads `main.ts`'s own line when the runner listens: no request log, no listen log.
  const served = HttpRouter.serve(routes(options), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(sessions),
    Layer.provideMerge(Api.layerAnswers),
    Layer.provide(server)
  )
  return failingAsService(stopFirst(drainTimeout).pipe(Layer.provide(served)), options.port)
}
