import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Runners from "./runners.js"

const Report = Schema.fromJsonString(Schema.Struct({ statuses: Schema.Array(Schema.String) }))

describe("durable sessions sharded over runner processes", () => {
  it.live(
    "two runners over one Postgres: the shards are split between them, and every session completes",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* Runners.freshStore("runners")
          const server = yield* FakeProvider.make(FaultPlan.happy)
          const ids = Array.from({ length: 20 }, (_, i) => `${store.database}-${i}`)
          // Sessions start once the shards have settled: a shard handed over mid-call re-runs its call.
          const runners = yield* Runners.startRunners(
            store,
            { PROVIDER_URL: server.url },
            [ids.slice(0, 10), ids.slice(10)].map((half) => ({ SESSIONS: half.join(",") }))
          )
          yield* Effect.forEach(runners, (runner) => runner.go)
          const reports = yield* Effect.forEach(
            runners,
            (runner) => Effect.flatMap(runner.report, Schema.decodeEffect(Report)),
            {
              concurrency: "unbounded"
            }
          )
          const statuses = reports.flatMap((report) => report.statuses)
          assert.strictEqual(statuses.length, ids.length)
          assert.deepStrictEqual([...new Set(statuses)], ["completed"])
          // Each runner holds its shards as advisory locks on its own connection.
          const held = yield* Runners.shardHolders(store)
          console.log(`runners: shards held per runner: ${held.join(", ")}`)
          assert.strictEqual(held.length, 2)
          // No call was sent twice: with no runner lost, every model call ran once.
          assert.strictEqual((yield* server.requests).length, ids.length)
        })
      ),
    240_000
  )

  it.live(
    "a runner killed with SIGKILL mid-run: its shards move to the live runner, which finishes every session",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* Runners.freshStore("failover")
          // Every model call takes 3 s, so that calls are in flight when the runner dies.
          const server = yield* FakeProvider.make(
            FaultPlan.make([{ kind: "reply", text: "slow", delay_ms: 3_000 }], { after: "repeat_last" })
          )
          const ids = Array.from({ length: 12 }, (_, i) => `${store.database}-${i}`)
          // The survivor submits every session; the victim only hosts shards.
          // The victim's shards move once its heartbeat is 10 s old, not the default 30 s: the test pins the takeover.
          const runners = yield* Runners.startRunners(
            store,
            { PROVIDER_URL: server.url, SHARD_LOCK_EXPIRATION_SECONDS: "10" },
            [{ SESSIONS: ids.join(",") }, { SESSIONS: "" }]
          )
          const survivor = runners[0]!
          const victim = runners[1]!
          yield* survivor.go
          yield* victim.go
          // Wait until calls are in flight on both runners, then kill one.
          yield* server.awaitRequests(ids.length)
          const killedAt = Date.now()
          yield* victim.kill("SIGKILL")
          const report = yield* Effect.flatMap(survivor.report, Schema.decodeEffect(Report))
          const doneAt = Date.now()
          assert.deepStrictEqual([...new Set(report.statuses)], ["completed"])
          assert.strictEqual(report.statuses.length, ids.length)
          // The survivor takes over every shard.
          const tookOver = yield* Runners.settled(store, 1).pipe(Effect.as(Date.now()))
          const requests = (yield* server.requests).length
          console.log(
            `failover: ${ids.length} sessions, ${requests} model requests, all done ${((doneAt - killedAt) / 1000).toFixed(1)} s after the kill, ` +
              `every shard on the survivor ${((tookOver - killedAt) / 1000).toFixed(1)} s after it`
          )
          // A call in flight when its runner died is sent again; a completed one never is.
          assert.isAtMost(requests, ids.length * 2)
        })
      ),
    240_000
  )
})
