/**
 * Durable sessions sharded over several runner processes: the cluster
 * workflow engine of `@agent-kernel/durable` on a `NodeClusterSocket` runner
 * over a shared SQL store (Postgres through `@effect/sql-pg`), instead of its
 * single runner. The workflow, the loop and `DurableSessions` are unchanged:
 * only this Layer differs. As on the single runner, `AgentRun`'s steps are
 * journaled in the store's SQL (`Engine.clusterSteps`), and a deleted
 * session's journal is purged from the cluster's tables (`Engine.Journal`).
 *
 * Runners coordinate through the store (heartbeats in `cluster_runners`,
 * shard locks as advisory locks) and talk to each other over TCP at their
 * `host:port`. A session's messages go to whichever runner holds its shard.
 * When a runner dies, its shards move to the live runners once its
 * heartbeat is older than `shardLockExpiration`, and its runs resume there
 * from the journal.
 *
 * Two defaults differ from upstream's:
 *
 * - The shard lock expires after 30 s and is refreshed every 10 s, a third
 *   of the expiration (upstream: 35 s and 10 s). A lock operation that
 *   takes longer than the refresh interval (an event loop stalled on a
 *   loaded machine) makes the runner drop its lock connection, and with it
 *   every shard (`effect/cluster`'s `SqlRunnerStorage` and `Sharding`): its
 *   runs in flight are cut off as in a crash. A shorter expiration fails
 *   over sooner after a real crash, at the price of more such false
 *   failovers.
 * - A request that a runner read from the store but never delivered is
 *   offered again after `rereadAfter` (30 s) instead of upstream's ten
 *   minutes (see `internal/redelivery.ts`): its session's result would
 *   otherwise reach the caller up to ten minutes late.
 *
 * @since 0.1.0
 */
import { AgentRun, DurableSessions, Engine } from "@agent-kernel/durable"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as Cause from "effect/Cause"
import * as ClusterWorkflowEngine from "effect/cluster/ClusterWorkflowEngine"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import * as Drain from "./internal/drain.js"
import * as Redelivery from "./internal/redelivery.js"

/**
 * The runner could not start (its port, its store, its configuration).
 *
 * @since 0.1.0
 * @category errors
 */
export class RunnerError extends Data.TaggedError("RunnerError")<{ readonly message: string }> {}

/**
 * Options of a runner.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The address other runners reach this one at. */
  readonly host: string
  readonly port: number
  /** How often the store is polled for messages and durable-clock wake-ups. Default 1 s. */
  readonly pollInterval?: Duration.Input | undefined
  /**
   * A runner whose heartbeat is older than this loses its shards: how long a
   * crashed runner's sessions wait before another runner takes them over.
   * Default 30 s.
   */
  readonly shardLockExpiration?: Duration.Input | undefined
  /**
   * How often the heartbeat and the shard locks are refreshed. A lock
   * operation that takes longer than this (or than a third of the
   * expiration, whichever is smaller) also costs the runner its shards.
   * Default a third of the expiration (10 s).
   */
  readonly shardLockRefreshInterval?: Duration.Input | undefined
  /**
   * A request read from the store and still unprocessed this long after is
   * read again by its shard's holder, which skips it if it is processing it.
   * Default 30 s; `Duration.infinity` leaves upstream's ten minutes.
   */
  readonly rereadAfter?: Duration.Input | undefined
  /**
   * How long the steps in flight (model calls, tool calls) get to finish
   * before their shard leaves this runner, cutting off those still running:
   * in a drain (`Runner.drain`, and the layer's close) before the runner
   * hands its shards over, and when a shard moves to a runner that joins.
   * Default 20 s: with the hand-over and an app's own stop after it, within
   * an orchestrator's usual 30 s between SIGTERM and SIGKILL.
   */
  readonly drainTimeout?: Duration.Input | undefined
  /**
   * How often the runner looks (at its start, then this long after each
   * look) for paused runs whose `resume_at` has come
   * (`on_exhausted: "pause"` with `pause_resume_after_ms`) and resumes them
   * (`DurableSessions.resumeDue`; a run several runners find is resumed
   * once). Default 5 s; `Duration.infinity`: never (only callers resume).
   */
  readonly resumePausedEvery?: Duration.Input | undefined
  /** Any other sharding setting. Never change `shardsPerGroup` once a store has data. */
  readonly sharding?: Partial<ShardingConfig.ShardingConfig["Service"]> | undefined
}

/**
 * What a runner offers besides its engine: its stop.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /**
   * Stops the runner as a SIGTERM should, so that a redeploy loses nothing:
   * 1. no step of a run starts here any more (a run that would start one
   *    waits, and so do the runs of sessions sent here meanwhile);
   * 2. the steps in flight finish, for at most `drainTimeout`;
   * 3. the runner hands its shards over (releases their locks and leaves
   *    the cluster): the other runners take them at once, and resume the
   *    runs left here from the journal, exactly as after a crash, except
   *    that no step was cut off unless it outlasted `drainTimeout`.
   *
   * The runs are not stopped: none is recorded `interrupted`. Run it before
   * the app interrupts the callers of its runs (an interrupted caller stops
   * its run, see `DurableSessions.run`); the layer's close runs it too, once.
   * The engine serves nothing once it is done.
   */
  readonly drain: Effect.Effect<void>
  /** Whether a drain has begun: an app takes no new work from then on. */
  readonly draining: Effect.Effect<boolean>
}

/**
 * The runner of `layer`.
 *
 * @since 0.2.0
 * @category tags
 */
export class Runner extends Context.Service<Runner, Service>()("@agent-kernel/cluster/Runner") {}

/**
 * The shard lock's expiration and refresh interval: 30 s by default, and a
 * third of the expiration, the longest a lock operation may take (the
 * cluster grants it the smaller of the two), unless set.
 */
const shardLocks = (
  options: Pick<Options, "shardLockExpiration" | "shardLockRefreshInterval">
): { readonly shardLockExpiration: Duration.Duration; readonly shardLockRefreshInterval: Duration.Duration } => {
  const expiration = Duration.fromInputUnsafe(options.shardLockExpiration ?? Duration.seconds(30))
  return {
    shardLockExpiration: expiration,
    shardLockRefreshInterval: Duration.fromInputUnsafe(
      options.shardLockRefreshInterval ?? Duration.divideUnsafe(expiration, 3)
    )
  }
}

/** The message table of the cluster's SQL storage, under the default prefix the runner keeps. */
const messagesTable = "cluster_messages"

/**
 * Why a statement failed, in one line: the driver's message and, when it
 * has one, the failure under it (`PgConnection: Failed to connect: connect
 * ECONNREFUSED 127.0.0.1:5432`).
 *
 * @since 0.2.0
 * @category errors
 */
export const describeSqlError = (error: SqlError.SqlError): string => {
  const under = error.reason.cause
  return under instanceof Error && under.message !== error.message
    ? `${error.message}: ${under.message}`
    : error.message
}

/**
 * Checks that the database in context answers: a `RunnerError` saying why
 * not (`cannot connect to the database: …`) rather than a failure deep in
 * the cluster's start. `layer` runs it first; run it yourself before
 * anything else reads the database.
 *
 * @since 0.2.0
 * @category constructors
 */
export const checkDatabase: Effect.Effect<void, RunnerError, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`SELECT 1`
).pipe(
  Effect.asVoid,
  Effect.mapError((error) => new RunnerError({ message: `cannot connect to the database: ${describeSqlError(error)}` }))
)

/** What made the runner's start fail, in one line: a typed error's message, or the defect's. */
const startFailure = (cause: Cause.Cause<unknown>): string => {
  const squashed = Cause.squash(cause)
  return Predicate.hasProperty(squashed, "message") ? String(squashed.message) : String(squashed)
}

/**
 * The workflow engine on a runner of the cluster whose store is the
 * `SqlClient` in context, and the runner (`Runner`, its drain). With them,
 * for `AgentRun.layer` built over it: `AgentRun`'s steps journaled in the
 * store's SQL (`Engine.clusterSteps`), each passing the drain's gate
 * (`AgentRun.StepGate`; so does every activity the engine runs), and the
 * cluster engine's journal (`Engine.Journal`, for a session's delete). A database
 * that cannot be reached, or a start that fails in any other way (its port
 * taken, the store failing under it), is a `RunnerError`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<WorkflowEngine.WorkflowEngine | Runner, RunnerError, SqlClient.SqlClient> =>
  Layer.unwrap(
    Effect.map(settingsOf(options), (settings) =>
      Layer.effectContext(
        Effect.gen(function* () {
          // The cluster lives in a scope of its own, which the drain closes: that is the hand-over.
          const clusterScope = yield* Scope.fork(yield* Effect.scope)
          const cluster = yield* Layer.buildWithScope(clusterOf(options, settings), clusterScope)
          const gate = yield* Drain.make
          const drain = yield* Effect.cached(drainOf(gate, clusterScope, settings.drainTimeout))
          yield* Effect.addFinalizer(() => drain)
          const engine = Drain.gated(Context.get(cluster, WorkflowEngine.WorkflowEngine), gate)
          // Paused runs due to resume, looked for until the drain hands the shards over.
          if (Duration.isFinite(settings.resumePausedEvery))
            yield* resumingPaused(engine, settings.resumePausedEvery).pipe(Effect.forkIn(clusterScope))
          return Context.make(WorkflowEngine.WorkflowEngine, engine).pipe(
            Context.add(Runner, { drain, draining: Effect.sync(gate.isClosed) }),
            Context.add(AgentRun.StepGate, gate.pass)
          )
        })
      ).pipe(
        // AgentRun's steps journaled in the store's SQL, each through the drain's gate (`AgentRun.StepGate`).
        Layer.provideMerge(Engine.clusterSteps),
        Layer.provideMerge(Layer.succeed(Engine.Journal, Engine.clusterJournal)),
        Layer.provide(Layer.effectDiscard(checkDatabase))
      )
    )
  )

/** The cluster's engine on this runner: effect/cluster's, with the re-read of undelivered requests. */
const clusterOf = (
  options: Options,
  settings: Settings
): Layer.Layer<WorkflowEngine.WorkflowEngine, RunnerError, SqlClient.SqlClient> => {
  const sharding: Partial<ShardingConfig.ShardingConfig["Service"]> = {
    runnerAddress: Option.some(RunnerAddress.make(options.host, options.port)),
    entityMessagePollInterval: options.pollInterval ?? Duration.seconds(1),
    ...settings.locks,
    // A shard that moves (a runner joins) lets the steps in flight on it finish and be journaled first.
    entityTerminationTimeout: settings.drainTimeout,
    ...options.sharding
  }
  const reread = Layer.effectDiscard(Effect.forkScoped(Redelivery.sweep(messagesTable, settings.rereadAfter)))
  return Layer.merge(ClusterWorkflowEngine.layer, reread).pipe(
    Layer.provide(
      Layer.merge(
        NodeClusterSocket.layer({ storage: "sql", shardingConfig: sharding }),
        // The configuration the runner reads (its own environment under these settings), for the sweep.
        ShardingConfig.layerFromEnv(sharding)
      )
    ),
    // The cluster's storage takes its connections with `orDie`: a database lost under the start is a defect.
    Layer.catchCause((cause) =>
      Layer.effectContext<WorkflowEngine.WorkflowEngine, RunnerError, never>(
        Cause.hasInterruptsOnly(cause)
          ? Effect.interrupt
          : Effect.fail(new RunnerError({ message: `cannot start the runner: ${startFailure(cause)}` }))
      )
    )
  )
}

/**
 * Resumes the store's paused runs whose `resume_at` has come, at once (runs
 * that came due while no runner was up) and then `interval` after each look,
 * for ever; a look that fails (the store's tables not made yet, the
 * database down) is left to the next.
 */
const resumingPaused = (
  engine: WorkflowEngine.WorkflowEngine["Service"],
  interval: Duration.Duration
): Effect.Effect<void, never, SqlClient.SqlClient> =>
  Effect.repeat(
    Effect.ignore(Effect.provideService(DurableSessions.resumeDue, WorkflowEngine.WorkflowEngine, engine)),
    Schedule.spaced(interval)
  ).pipe(Effect.asVoid)

/** The drain of `Runner.Service`: the gate closed, the steps in flight waited for, the cluster's scope closed. */
const drainOf = (gate: Drain.Gate, clusterScope: Scope.Closeable, timeout: Duration.Duration): Effect.Effect<void> =>
  Effect.gen(function* () {
    yield* gate.close
    const settled = yield* Effect.timeoutOption(gate.settled, timeout)
    if (Option.isNone(settled)) {
      yield* Effect.logWarning(
        `runner: steps still in flight after ${Duration.format(timeout)} are cut off by the hand-over (their runs resume elsewhere)`
      )
    }
    yield* Scope.close(clusterScope, Exit.void)
  })

/** The options' durations, checked. */
interface Settings {
  readonly locks: ReturnType<typeof shardLocks>
  readonly rereadAfter: Duration.Duration
  readonly drainTimeout: Duration.Duration
  readonly resumePausedEvery: Duration.Duration
}

/**
 * The options' durations, decoded and checked: a duration that cannot be
 * read, a lock expiration that is not positive, or a finite `rereadAfter`
 * under a second (the sweep would run without pause; the store's marks are
 * compared in whole seconds) is a `RunnerError`, not a runner that spins.
 */
const settingsOf = (options: Options): Effect.Effect<Settings, RunnerError> =>
  Effect.try({
    try: () => ({
      locks: shardLocks(options),
      rereadAfter: Duration.fromInputUnsafe(options.rereadAfter ?? Duration.seconds(30)),
      drainTimeout: Duration.fromInputUnsafe(options.drainTimeout ?? Duration.seconds(20)),
      resumePausedEvery: Duration.fromInputUnsafe(options.resumePausedEvery ?? Duration.seconds(5))
    }),
    catch: (error) => new RunnerError({ message: `invalid runner options: ${String(error)}` })
  }).pipe(
    Effect.filterOrFail(
      ({ locks }) =>
        Duration.isGreaterThan(locks.shardLockExpiration, Duration.zero) &&
        Duration.isGreaterThan(locks.shardLockRefreshInterval, Duration.zero),
      () =>
        new RunnerError({ message: "invalid runner options: the shard lock expiration and refresh must be positive" })
    ),
    Effect.filterOrFail(
      ({ resumePausedEvery }) => Duration.isGreaterThan(resumePausedEvery, Duration.zero),
      () => new RunnerError({ message: "invalid runner options: resumePausedEvery must be positive" })
    ),
    Effect.filterOrFail(
      ({ rereadAfter }) =>
        !Duration.isFinite(rereadAfter) || Duration.isGreaterThanOrEqualTo(rereadAfter, Duration.seconds(1)),
      ({ rereadAfter }) =>
        new RunnerError({
          message: `invalid runner options: rereadAfter must be at least 1 second or infinite, not ${Duration.format(rereadAfter)}`
        })
    )
  )
