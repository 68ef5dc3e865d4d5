import type * as Libsql from "@libsql/client"
import { Sqlite3Client, Sqlite3Transaction } from "@libsql/client/sqlite3"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import Database from "libsql"

/**
 * How many distinct statements a connection keeps prepared. The engine and
 * the store have a few dozen statement texts; only `IN` lists of varying
 * length (a session's delete) make more, and those are rare.
 */
const preparedLimit = 256

/** A statement that changes the schema (see `StatementCache`). */
const schemaChange = /^\s*(?:CREATE|DROP|ALTER)\b/i

/**
 * A SQLite connection that keeps its prepared statements by SQL text:
 * @libsql/client prepares every statement anew (about 40 µs of CPU for a
 * journal row, a third of its cost through @effect/sql), and the engine runs
 * the same few texts at every step. A statement is only ever run to its end
 * (the client's calls are synchronous), so reusing it is as running a new
 * one. After a schema change SQLite prepares a statement again only when it
 * runs, but the client reads its result's columns before that: a kept
 * `SELECT *` would name the columns as they were. So this connection's own
 * schema changes drop every kept statement (another connection's are not
 * seen: the store's file is this process's alone, `Engine.exclusive`).
 */
class StatementCache extends Database {
  readonly #prepared = new Map<string, Database.Statement>()

  override prepare<BindParameters extends Array<unknown> | {} = Array<unknown>>(
    source: string
  ): Database.Statement<BindParameters> {
    if (schemaChange.test(source)) {
      this.#prepared.clear()
      return super.prepare(source)
    }
    let statement = this.#prepared.get(source)
    if (statement === undefined) {
      statement = super.prepare(source)
      if (this.#prepared.size >= preparedLimit) {
        const oldest = this.#prepared.keys().next()
        if (oldest.done !== true) this.#prepared.delete(oldest.value)
      }
      this.#prepared.set(source, statement)
    }
    // Bind parameters are a type for the caller only: one statement object serves any (the client
    // binds an array).
    return statement as Database.Statement<BindParameters>
  }

  override exec(source: string): this {
    this.#prepared.clear()
    return super.exec(source)
  }

  /**
   * A statement not finalized keeps its connection open after `close`
   * (libsql has no finalize: a statement is finalized when collected), and
   * kept ones stay reachable as long as the client is: dropped here, so that
   * the connection ends (its WAL checkpointed and removed) once they are.
   */
  override close(): this {
    this.#prepared.clear()
    return super.close()
  }
}

/**
 * `BEGIN` for a transaction mode (SQLite has no read-only transaction: a
 * read one is deferred).
 */
const beginOf = (mode: Libsql.TransactionMode): string => (mode === "write" ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")

/**
 * @libsql/client's client of a file, whose transactions run on its own
 * connection: @libsql/client hands the connection to the transaction and
 * opens a plain one for what follows (no statement kept, none of the
 * connection's pragmas: `synchronous` back to FULL). @effect/sql-libsql runs
 * no statement outside a transaction while one is open (its semaphore), so
 * one connection serves both.
 */
class OneConnectionClient extends Sqlite3Client {
  readonly #connection: StatementCache

  constructor(filename: string, connection: StatementCache) {
    super(filename, {}, connection, "bigint")
    this.#connection = connection
  }

  override async transaction(mode: Libsql.TransactionMode = "write"): Promise<Libsql.Transaction> {
    await this.execute(beginOf(mode))
    return new Sqlite3Transaction(this.#connection, "bigint")
  }
}

/**
 * A @libsql/client client of the SQLite file `filename` (integers as bigint)
 * whose connection keeps its prepared statements, closed with the scope: the
 * client @libsql/client's `createClient` makes for a `file:` URL, over that
 * connection, transactions included (`OneConnectionClient`).
 *
 * @internal
 */
export const client = (filename: string): Effect.Effect<Libsql.Client, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => new OneConnectionClient(filename, new StatementCache(filename, {}))),
    (client) => Effect.sync(() => client.close())
  )
