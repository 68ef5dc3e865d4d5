/**
 * The throwaway database of the test run (see `./postgres.setup.ts`). A test
 * that needs it FAILS when it is missing: it is never skipped.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Redacted from "effect/Redacted"
import { inject } from "vitest"

/** The URL of the run's database; throws why there is none. */
export const postgresUrl = (): string => {
  const postgres = inject("postgres")
  if ("error" in postgres) throw new Error(postgres.error)
  return postgres.url
}

/** A client of the run's database, with a small pool. */
export const pgLayer = () => PgClient.layer({ url: Redacted.make(postgresUrl()), maxConnections: 4 })
