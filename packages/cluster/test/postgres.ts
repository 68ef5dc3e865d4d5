/**
 * The throwaway database of the test run (see `./postgres.setup.ts`). A test
 * that needs it FAILS when it is missing: it is never skipped.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import { inject } from "vitest"

/** The URL of the run's database; throws why there is none. */
export const postgresUrl = (): string => {
  const postgres = inject("postgres")
  if ("error" in postgres) throw new Error(postgres.error)
  return postgres.url
}

/** A client of the run's database, with a small pool. */
export const pgLayer = () => PgClient.layer({ url: Redacted.make(postgresUrl()), maxConnections: 4 })

let databases = 0

/**
 * A new database of the test's own on the run's server, named after `prefix`, so no other test's
 * engine holds its lock or sees its rows: its URL and its name.
 */
export const ownDatabase = (prefix: string): Effect.Effect<{ readonly url: string; readonly name: string }> =>
  Effect.gen(function* () {
    const name = `${prefix}_${Date.now()}_${databases++}`
    yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE ${name}`)).pipe(
      Effect.provide(pgLayer()),
      Effect.scoped
    )
    const url = new URL(postgresUrl())
    url.pathname = `/${name}`
    return { url: url.toString(), name }
  }).pipe(Effect.orDie)
