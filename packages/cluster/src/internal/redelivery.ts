/**
 * Offers again the requests a runner read from the cluster's message table
 * but never delivered.
 *
 * `effect/cluster`'s `SqlMessageStorage` marks every message it reads
 * (`last_read = NOW()`) and reads a message again only once that mark is ten
 * minutes old, unless the shard is acquired again or the request reset. A
 * runner's storage loop drops a message it has just marked when the shard is
 * no longer held by the time the message is handed on (`Sharding`'s storage
 * read loop): a read issued while it held the shard that reaches the database
 * after the shard's new holder has reset the shard's marks leaves a message
 * that nobody delivers for ten minutes. Its workflow waits as long, and so
 * does the caller waiting for its result.
 *
 * Clearing the mark of a request still unprocessed `after` its read makes the
 * shard's holder read it again at its next poll. A request that is in fact
 * being processed is read and skipped, as upstream does every ten minutes
 * anyway; only requests are cleared, never the interrupt or acknowledgement
 * envelopes. Each runner clears the marks of the shards it holds, which lets
 * the database use the storage's index on `(shard_id, processed, last_read,
 * …)`.
 */
import * as Cause from "effect/Cause"
import * as ShardId from "effect/cluster/ShardId"
import * as Sharding from "effect/cluster/Sharding"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"

/** The `kind` of a request row in the message table (`SqlMessageStorage`'s `messageKind.Request`). */
const requestKind = 0

/** Every shard of the cluster configured by `config`: each of its groups' shards 1..`shardsPerGroup`. */
export const allShards = (config: ShardingConfig.ShardingConfig["Service"]): ReadonlyArray<ShardId.ShardId> =>
  [...ShardingConfig.shardGroupConfig(config).available].flatMap((group) =>
    Array.from({ length: config.shardsPerGroup }, (_, i) => ShardId.make(group, i + 1))
  )

/**
 * Clears the read mark of every request of `table` (the cluster's message
 * table) in `shards` still unprocessed `after` it was read, by the
 * database's clock (the one that set the mark), and returns how many it
 * cleared.
 */
export const clearStaleReads = (
  table: string,
  shards: ReadonlyArray<ShardId.ShardId>,
  after: Duration.Duration
): Effect.Effect<number, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    if (shards.length === 0) return Effect.succeed(0)
    const seconds = Math.max(1, Math.ceil(Duration.toSeconds(after)))
    // The dialects of upstream's SqlMessageStorage, with its literals for false.
    const dialect = sql.onDialectOrElse({
      pg: () => ({ cutoff: `NOW() - INTERVAL '${seconds} seconds'`, no: "FALSE" }),
      mysql: () => ({ cutoff: `NOW() - INTERVAL ${seconds} SECOND`, no: "FALSE" }),
      sqlite: () => ({ cutoff: `DATETIME('now', '-${seconds} seconds')`, no: "0" }),
      orElse: () => undefined
    })
    if (dialect === undefined) return Effect.succeed(0)
    const raw = sql.withoutTransforms()
    return raw<{ readonly id: unknown }>`
      UPDATE ${raw(table)} SET last_read = NULL
      WHERE shard_id IN ${raw.in(shards.map(String))} AND processed = ${raw.literal(dialect.no)}
        AND last_read < ${raw.literal(dialect.cutoff)} AND kind = ${requestKind}
      RETURNING id`.pipe(Effect.map((rows) => rows.length))
  })

/**
 * Runs `clearStaleReads` over the shards this runner holds every half of
 * `after`, for as long as the scope lasts; never, for an infinite `after`
 * (upstream's ten minutes alone). A failed sweep is logged and the next one
 * runs as planned: the runner's work never depends on it.
 */
export const sweep = (
  table: string,
  after: Duration.Duration
): Effect.Effect<void, never, SqlClient.SqlClient | Sharding.Sharding | ShardingConfig.ShardingConfig> =>
  Effect.gen(function* () {
    if (!Duration.isFinite(after)) return
    const sharding = yield* Sharding.Sharding
    const shards = allShards(yield* ShardingConfig.ShardingConfig)
    const once = Effect.suspend(() =>
      clearStaleReads(
        table,
        shards.filter((shard) => sharding.hasShardId(shard)),
        after
      )
    ).pipe(
      Effect.tap((cleared) =>
        cleared > 0
          ? Effect.logDebug(
              `offered ${cleared} unprocessed request(s) read over ${Duration.format(after)} ago again (stranded, or still being processed and skipped)`
            )
          : Effect.void
      ),
      // A failed sweep, typed or not, is logged and the next runs as planned; an interrupt ends the loop.
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logWarning("cannot offer stale reads again", cause)
      )
    )
    yield* Effect.repeat(once, Schedule.spaced(Duration.divideUnsafe(after, 2)))
  })
