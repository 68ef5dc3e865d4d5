/**
 * A runner of the service (`main.ts start`, a real process) over a database
 * it cannot reach: it exits 1 at once, saying that it cannot connect and why.
 */
import { Ports } from "@agent-kernel/cluster/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as RunnerProcess from "./RunnerProcess.js"

describe("a runner of the service started over a database it cannot reach", () => {
  it.live(
    "exits 1 saying it cannot connect to the database, and why",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          // Nothing listens on a port that was free a moment ago: the connection is refused.
          const port = yield* Ports.free
          const error = yield* Effect.flip(
            RunnerProcess.start({ databaseUrl: `postgres://agent@127.0.0.1:${port}/postgres` })
          )
          assert.include(error.message, "a runner exited 1")
          assert.include(
            error.message,
            "cannot connect to the database: PgConnection: Failed to connect: connect ECONNREFUSED"
          )
        })
      ),
    120_000
  )
})
