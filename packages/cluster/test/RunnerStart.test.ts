/**
 * A runner's start over a database it cannot reach: a typed `RunnerError`
 * that says which database failed and why, never a defect.
 */
import { assert, describe, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runner from "../src/Runner.js"
import * as Ports from "../src/testing/Ports.js"

describe("a runner over a database it cannot reach", () => {
  it.live("fails to start with a RunnerError naming the connection's failure, not a defect", () =>
    Effect.gen(function* () {
      // Nothing listens on a port that was free a moment ago: the connection is refused.
      const [databasePort, runnerPort] = yield* Effect.all([Ports.free, Ports.free])
      const exit = yield* Layer.build(Runner.layer({ host: "127.0.0.1", port: runnerPort })).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(`postgres://agent@127.0.0.1:${databasePort}/postgres`) })),
        Effect.scoped,
        Effect.exit
      )
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isSuccess(exit)) return
      assert.isFalse(Cause.hasDies(exit.cause), Cause.pretty(exit.cause))
      const error = Cause.findErrorOption(exit.cause)
      assert.isTrue(Option.isSome(error), Cause.pretty(exit.cause))
      if (Option.isNone(error)) return
      assert.strictEqual(error.value._tag, "RunnerError")
      assert.include(error.value.message, "cannot connect to the database")
      assert.include(error.value.message, "ECONNREFUSED")
    })
  )

  it.live("a resumePausedEvery that is not positive is a RunnerError naming it, before the database is read", () =>
    Effect.gen(function* () {
      const [databasePort, runnerPort] = yield* Effect.all([Ports.free, Ports.free])
      const exit = yield* Layer.build(Runner.layer({ host: "127.0.0.1", port: runnerPort, resumePausedEvery: 0 })).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(`postgres://agent@127.0.0.1:${databasePort}/postgres`) })),
        Effect.scoped,
        Effect.exit
      )
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
      assert.isTrue(Option.isSome(error))
      if (Option.isNone(error)) return
      assert.strictEqual(error.value._tag, "RunnerError")
      assert.include(error.value.message, "resumePausedEvery must be positive")
    })
  )
})
