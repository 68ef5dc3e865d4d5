import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Getter from "effect/SchemaGetter"
import * as SqlClient from "effect/sql/SqlClient"
import type { StoreError } from "./storeError.js"

/**
 * The `SqlClient` of the store's tables and journal when it is not the one in context: on
 * Postgres, `Engine.layerSql` provides here its client on the connection that holds the store's
 * lock (`Owner.ownPostgres`), while the app's statements keep the pool (its `SqlClient`). None by
 * default: the store runs on the `SqlClient` it requires (a `SqlClient` of its own would have to be
 * in the `R` of every public function that reads the store, and in the documented `Engine.Engine`).
 *
 * @internal
 */
export const StoreSql = Context.Reference<Option.Option<SqlClient.SqlClient>>("@agent-kernel/durable/StoreSql", {
  defaultValue: () => Option.none()
})

/**
 * The `SqlClient` every statement of the store and its journal runs on, in `context`: its
 * `StoreSql` if the engine's layer provides one, else its `SqlClient`.
 *
 * @internal
 */
export const storeSqlIn = (context: Context.Context<SqlClient.SqlClient>): SqlClient.SqlClient =>
  Option.getOrElse(Context.get(context, StoreSql), () => Context.get(context, SqlClient.SqlClient))

/**
 * The `SqlClient` every statement of the store and its journal runs on, in the fiber's context
 * (`storeSqlIn`).
 *
 * @internal
 */
export const storeSql: Effect.Effect<SqlClient.SqlClient, never, SqlClient.SqlClient> = Effect.map(
  Effect.context<SqlClient.SqlClient>(),
  storeSqlIn
)

/**
 * Checks that the store in context is still there: the embedded store's layers check that its path
 * still names the file they opened (a deleted or replaced file fails with `StoreError`); elsewhere
 * nothing. A reader that waits on the store (`EventLog.follow`) runs it between reads.
 *
 * @internal
 */
export const StoreCheck = Context.Reference<Effect.Effect<void, StoreError>>("@agent-kernel/durable/StoreCheck", {
  defaultValue: () => Effect.void
})

/**
 * Whether a live process other than the reader holds the store's unfinished runs now (it runs them, or
 * will resume them): the store's owner. The embedded store's reader (`Engine.layerSqliteReader`) tries
 * the owner's locks, the service of an engine says itself; by default (none here) the store's own
 * answer is taken: on Postgres, whether its advisory lock is held; elsewhere none (the reader owns it).
 *
 * @internal
 */
export const Liveness = Context.Reference<Option.Option<Effect.Effect<boolean, StoreError>>>(
  "@agent-kernel/durable/Liveness",
  { defaultValue: () => Option.none() }
)

/**
 * An integer column as the drivers read it: SQLite a number (a bigint under
 * `SqlClient.SafeIntegers`), Postgres a BIGINT as a string.
 *
 * @internal
 */
export const Integer = Schema.Union([
  Schema.Number,
  Schema.BigInt.pipe(
    Schema.decodeTo(Schema.Number, { decode: Getter.transform(Number), encode: Getter.transform(BigInt) })
  ),
  Schema.NumberFromString
])
