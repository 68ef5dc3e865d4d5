/**
 * The scale-out guide's sample, against the run's throwaway Postgres and the fake provider.
 */
import { Session } from "@agent-kernel/kernel"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { postgresUrl } from "../../packages/cluster/test/postgres.js"
import * as ScaleOut from "./scale-out.js"

describe("scale-out sample", () => {
  it.live("two sessions built from the shared-account layer complete through the Postgres limiter and quota", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FakeProvider.make(FaultPlan.happy)
        const layer = ScaleOut.sharedAccount(postgresUrl(), { baseUrl: server.url, apiKey: Redacted.make("test") })
        const outcomes = yield* Effect.forEach(
          ["one", "two"],
          (input) => Effect.flatMap(Session.make({ model: "claude-sonnet-4-5" }), (session) => session.run(input)),
          { concurrency: 2 }
        ).pipe(Effect.provide(layer))
        assert.deepStrictEqual(
          outcomes.map((outcome) => outcome.status),
          ["completed", "completed"]
        )
        assert.strictEqual((yield* server.requests).length, 2)
      })
    )
  )
})
