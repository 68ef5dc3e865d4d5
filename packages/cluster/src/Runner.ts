/**
 * Durable sessions sharded over several runner processes: the cluster
 * workflow engine of `@agent-kernel/durable` on a `NodeClusterSocket` runner
 * over a shared SQL store (Postgres through `@effect/sql-pg`), instead of its
 * single runner. The workflow, the loop and `DurableSessions` are unchanged:
 * only this Layer differs.
 *
 * Runners coordinate through the store (heartbeats in `cluster_runners`,
 * shard locks as advisory locks) and talk to each other over TCP at their
 * `host:port`. A session's messages go to whichever runner holds its shard.
 * When a runner dies, its shards move to the live runners once its
 * heartbeat is older than `shardLockExpiration`, and its runs resume there
 * from the journal.
 *
 * The shard lock expires after 6 s here (refreshed every 2 s), against
 * upstream's 35 s: a runner that stalls longer than that loses its shards,
 * and its entities are interrupted.
 *
 * A request that a runner read from the store but never delivered is
 * offered again after `rereadAfter` (30 s) instead of upstream's ten minutes
 * (see `internal/redelivery.ts`): its session's result would otherwise reach
 * the caller up to ten minutes late.
 *
 * @since 0.1.0
 */
import * as ClusterWorkflowEngine from "@effect/cluster/ClusterWorkflowEngine"
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import type * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as WorkflowEngine from "@effect/workflow/WorkflowEngine"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
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
  readonly pollInterval?: Duration.DurationInput | undefined
  /** A runner whose heartbeat is older than this loses its shards. Default 6 s. */
  readonly shardLockExpiration?: Duration.DurationInput | undefined
  /** Default 2 s. */
  readonly shardLockRefreshInterval?: Duration.DurationInput | undefined
  /**
   * A request read from the store and still unprocessed this long after is
   * read again by its shard's holder, which skips it if it is processing it.
   * Default 30 s.
   */
  readonly rereadAfter?: Duration.DurationInput | undefined
  /** Any other sharding setting. Never change `shardsPerGroup` once a store has data. */
  readonly sharding?: Partial<ShardingConfig.ShardingConfig["Type"]> | undefined
}

/** The message table of the cluster's SQL storage, under the default prefix the runner keeps. */
const messagesTable = "cluster_messages"

/**
 * The workflow engine on a runner of the cluster whose store is the
 * `SqlClient` in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<WorkflowEngine.WorkflowEngine, RunnerError, SqlClient.SqlClient> =>
  ClusterWorkflowEngine.layer.pipe(
    Layer.provide(
      NodeClusterSocket.layer({
        storage: "sql",
        shardingConfig: {
          runnerAddress: Option.some(RunnerAddress.make(options.host, options.port)),
          entityMessagePollInterval: options.pollInterval ?? Duration.seconds(1),
          shardLockExpiration: options.shardLockExpiration ?? Duration.seconds(6),
          shardLockRefreshInterval: options.shardLockRefreshInterval ?? Duration.seconds(2),
          entityTerminationTimeout: Duration.seconds(1),
          ...options.sharding
        }
      })
    ),
    Layer.mapError((error) => new RunnerError({ message: `cannot start the runner: ${String(error)}` })),
    Layer.merge(
      Layer.scopedDiscard(
        Effect.forkScoped(Redelivery.sweep(messagesTable, Duration.decode(options.rereadAfter ?? Duration.seconds(30))))
      )
    )
  )
