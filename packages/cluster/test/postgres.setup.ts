/**
 * The vitest global setup of the `postgres` project (vitest.config.ts): one
 * throwaway PostgreSQL cluster for the whole run, started only when a test
 * file of that project runs, and stopped and removed at the end. Its URL
 * reaches the tests through `provide`/`inject` (see `./postgres.ts`).
 *
 * When the programs are missing, the run does not stop here: one line says
 * how to install them, and every test that needs the database fails with it.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import type { TestProject } from "vitest/node"
import * as TempPostgres from "../src/testing/TempPostgres.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** The database URL, or why there is none. */
    readonly postgres: { readonly url: string } | { readonly error: string }
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const scope = Scope.makeUnsafe()
  const started = await Effect.runPromise(Effect.result(Scope.provide(TempPostgres.start(), scope)))
  if (Result.isSuccess(started)) project.provide("postgres", { url: started.success.url })
  else {
    console.error(`[postgres] ${started.failure.message}`)
    project.provide("postgres", { error: started.failure.message })
  }
  return () => Effect.runPromise(Scope.close(scope, Exit.void))
}
