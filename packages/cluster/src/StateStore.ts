/**
 * Keyed state that every process sharing a store updates atomically with a
 * pure function. It is the one seam under the provider-wide rate limit and
 * retry quota: each of them is a pure state machine (`RateBucket`,
 * `RetryBudget.Budget`) whose state lives here, in memory for one process or
 * in a Postgres table for many.
 *
 * `modify` reads the state of a key (its `initial` value the first time),
 * applies the function to it and the store's clock, and writes the result
 * back before anyone else reads the key. In Postgres that is one
 * transaction holding the key's row lock (`SELECT … FOR UPDATE`), and the
 * time is the database's, so processes on machines whose clocks disagree
 * still share one timeline.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * The store could not be read or written, or a key held a state of another
 * shape.
 *
 * @since 0.1.0
 * @category errors
 */
export class StateStoreError extends Data.TaggedError("StateStoreError")<{
  readonly key: string
  readonly message: string
  readonly cause?: unknown
}> {}

/**
 * One atomic update of a key.
 *
 * @since 0.1.0
 * @category models
 */
export interface Modify<S, I, A> {
  readonly key: string
  /** The state's Schema; its encoded form must be JSON. */
  readonly schema: Schema.Codec<S, I>
  /** The state of a key nobody has written yet. */
  readonly initial: S
  /** The update: the result and the next state, from the state and the store's clock (epoch milliseconds). */
  readonly f: (state: S, now: number) => readonly [A, S]
}

/**
 * What a state store does.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly modify: <S, I, A>(options: Modify<S, I, A>) => Effect.Effect<A, StateStoreError>
}

/**
 * The state store service.
 *
 * @since 0.1.0
 * @category tags
 */
export class StateStore extends Context.Service<StateStore, Service>()("@agent-kernel/cluster/StateStore") {}

/**
 * A store in this process's memory, on Effect's `Clock` (so `TestClock`
 * drives it). Updates are atomic within the process.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory: Effect.Effect<Service> = Effect.map(
  Ref.make<ReadonlyMap<string, unknown>>(new Map()),
  (states) => ({
    modify: <S, I, A>(options: Modify<S, I, A>) => {
      const is = Schema.is(options.schema)
      return Effect.flatMap(
        Effect.clockWith((clock) => clock.currentTimeMillis),
        (now) =>
          Ref.modify(states, (all): readonly [Effect.Effect<A, StateStoreError>, ReadonlyMap<string, unknown>] => {
            const stored = all.has(options.key) ? all.get(options.key) : options.initial
            if (!is(stored))
              return [
                Effect.fail(
                  new StateStoreError({ key: options.key, message: "the key holds a state of another shape" })
                ),
                all
              ]
            const [result, next] = options.f(stored, now)
            return [Effect.succeed(result), new Map(all).set(options.key, next)]
          })
      ).pipe(Effect.flatten)
    }
  })
)

/**
 * A store in this process's memory.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<StateStore> = Layer.effect(StateStore, makeMemory)

/**
 * Options of the Postgres store.
 *
 * @since 0.1.0
 * @category models
 */
export interface PostgresOptions {
  /** The table, created if missing. Default: `agent_kernel_shared_state`. */
  readonly table?: string | undefined
}

const Row = Schema.Struct({ state: Schema.String, now: Schema.Number })
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))

/**
 * A store in a Postgres table shared by every process that uses the same
 * database and table. The table is created on first use; concurrent
 * creators are serialized by a transaction-scoped advisory lock.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makePostgres = (options?: PostgresOptions): Effect.Effect<Service, StateStoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const name = options?.table ?? "agent_kernel_shared_state"
    const table = sql(name)
    const failed = (key: string, message: string) => (cause: unknown) =>
      new StateStoreError({
        key,
        message: `${message}: ${cause instanceof Error ? cause.message : String(cause)}`,
        cause
      })
    yield* sql
      .withTransaction(
        Effect.andThen(
          sql`SELECT pg_advisory_xact_lock(hashtext(${name}))`,
          sql`CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, state text NOT NULL)`
        )
      )
      .pipe(Effect.mapError(failed("*", `could not create the table ${name}`)))
    return {
      modify: <S, I, A>(update: Modify<S, I, A>) => {
        const json = Schema.fromJsonString(update.schema)
        const encode = Schema.encodeEffect(json)
        return sql
          .withTransaction(
            Effect.gen(function* () {
              const initial = yield* encode(update.initial)
              yield* sql`INSERT INTO ${table} (key, state) VALUES (${update.key}, ${initial}) ON CONFLICT (key) DO NOTHING`
              const rows = yield* decodeRows(
                yield* sql`SELECT state, (extract(epoch from clock_timestamp()) * 1000)::float8 AS now
                  FROM ${table} WHERE key = ${update.key} FOR UPDATE`
              )
              const row = rows[0]
              if (row === undefined)
                return yield* new StateStoreError({ key: update.key, message: "the key's row vanished" })
              const [result, next] = update.f(yield* Schema.decodeEffect(json)(row.state), row.now)
              const encoded = yield* encode(next)
              yield* sql`UPDATE ${table} SET state = ${encoded} WHERE key = ${update.key}`
              return result
            })
          )
          .pipe(
            Effect.catchTags({
              SqlError: (error) => Effect.fail(failed(update.key, "the store failed")(error)),
              SchemaError: (error) => Effect.fail(failed(update.key, "the key holds a state of another shape")(error))
            })
          )
      }
    }
  })

/**
 * A store in a Postgres table, over the `SqlClient` in context (for example
 * `PgClient.layer` from `@effect/sql-pg`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPostgres = (
  options?: PostgresOptions
): Layer.Layer<StateStore, StateStoreError, SqlClient.SqlClient> => Layer.effect(StateStore, makePostgres(options))
