import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as AdaptiveRate from "../src/AdaptiveRate.js"
import * as RateBucket from "../src/RateBucket.js"
import { pgLayer, postgresUrl } from "./postgres.js"
import * as Releases from "./releases.js"
import * as Workers from "./workers.js"

const Report = Schema.fromJsonString(
  Schema.Struct({
    statuses: Schema.Array(Schema.String),
    retries: Schema.Array(Schema.Number),
    /** When the limiter let the process's requests go (`./releases.ts`). */
    releases: Schema.Array(Schema.Number),
    /** The adaptive limiter's committed updates of its state (`./releases.ts`). */
    transitions: Schema.Array(Schema.Struct({ before: AdaptiveRate.State, after: AdaptiveRate.State }))
  })
)

/** A state as one string, the same for equal states however their fields are ordered. */
const canonical = (state: AdaptiveRate.State): string =>
  JSON.stringify(Object.entries(state).sort(([a], [b]) => (a < b ? -1 : 1)))

/** The most arrivals in any window of `ms` milliseconds. */
const busiestWindow = (times: ReadonlyArray<number>, ms: number): number => {
  let best = 0
  let start = 0
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= ms) start++
    best = Math.max(best, end - start + 1)
  }
  return best
}

/**
 * Runs `processes` workers of `SESSIONS` sessions each against a fake provider admitting `rate` requests a second,
 * every one connected before any starts so that they compete for the whole run: their reports, once each has run
 * every session to completion, and the requests the provider saw.
 */
const runWorkers = (options: {
  readonly rate: number
  readonly processes: number
  readonly sessions: number
  readonly env: Record<string, string>
}) =>
  Effect.gen(function* () {
    const server = yield* FakeProvider.make(FaultPlan.capacityLimited(options.rate))
    const env = {
      ...options.env,
      DATABASE_URL: postgresUrl(),
      PROVIDER_URL: server.url,
      SESSIONS: String(options.sessions),
      RATE: String(options.rate)
    }
    const workers = yield* Effect.forEach(Array.from({ length: options.processes }), () =>
      Workers.start("limitedSessions", env)
    )
    yield* Effect.forEach(workers, (w) => w.ready, { concurrency: "unbounded" })
    yield* Effect.forEach(workers, (w) => w.go)
    const reports = yield* Effect.forEach(workers, (w) => Effect.flatMap(w.report, Schema.decodeEffect(Report)), {
      concurrency: "unbounded"
    })
    const statuses = reports.flatMap((report) => report.statuses)
    assert.strictEqual(statuses.length, options.processes * options.sessions)
    assert.deepStrictEqual([...new Set(statuses)], ["completed"])
    return { reports, statuses, requests: yield* server.requests }
  })

describe("the provider-wide limiter across processes", () => {
  it.live(
    "three processes sharing the Postgres limiter let requests go within its bound, and the provider sees only those",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const rate = 5
          const processes = 3
          const sessions = 15
          const { reports, requests, statuses } = yield* runWorkers({
            rate,
            processes,
            sessions,
            env: { LIMITER_KEY: `fake-${Date.now()}`, TABLE: "limiter_processes" }
          })
          const times = requests.map((request) => request.time).sort((a, b) => a - b)
          const first = times[0]!
          const last = times.at(-1)!
          const observed = ((times.length - 1) * 1_000) / (last - first)
          const throttled = requests.filter((request) => request.throttled).length
          const releases = reports.flatMap((report) => report.releases)
          // The workers' limiter (`Releases.workersLimit`).
          const bucket = RateBucket.rate(Releases.workersLimit(rate))
          const excess = Releases.excess(releases, bucket)
          console.log(
            `limiter across ${processes} processes: ${times.length} requests for ${statuses.length} sessions ` +
              `(${(times.length / statuses.length).toFixed(2)} attempts per success), ${throttled} answered 429; ` +
              `observed at the provider ${observed.toFixed(2)} req/s against a limit of ${rate}, busiest second ` +
              `${busiestWindow(times, 1_000)}; ${releases.length} releases, most beyond the bound ${excess.toFixed(6)}, arrivals at most ${Releases.earliness(times, releases).toFixed(3)} ms before their release`
          )
          // Every request the provider saw went through the limiter, and no other (no attempt is cut short here).
          assert.strictEqual(times.length, releases.length)
          // And none reached it before the limiter let it go (a wait cut short would pass the bound above).
          assert.isAtMost(Releases.earliness(times, releases), Releases.arrivalTolerance)
          // The limiter's guarantee, exactly: within any span of releases, at most 1 + span × rate (burst 1), so
          // the mean rate from the first to the last is at most `rate`. Without a shared budget, three processes
          // at the limit each would go far past it. Arrival times are not held to it: each adds its request's
          // way to the provider, unevenly on a loaded machine (`./releases.ts`).
          assert.isAtMost(excess, Releases.tolerance)
        })
      ),
    180_000
  )

  it.live(
    "three processes sharing one adaptive state over Postgres make one history of it, each pacing by the cuts the fleet's 429s made",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const rate = 5
          const processes = 3
          const sessions = 15
          const key = `adaptive-${Date.now()}`
          const table = "limiter_processes_adaptive"
          const { reports, requests, statuses } = yield* runWorkers({
            rate,
            processes,
            sessions,
            env: { LIMITER_KEY: key, TABLE: table, ADAPTIVE: "1" }
          })
          const throttled = requests.filter((request) => request.throttled).length
          // One state for the account's model, in the table every process used.
          const rows = yield* Effect.flatMap(
            SqlClient.SqlClient,
            (sql) =>
              sql<{
                key: string
                state: string
              }>`SELECT key, state FROM ${sql(table)} WHERE key LIKE ${`limiter/${key}/%`}`
          ).pipe(Effect.provide(Layer.fresh(pgLayer())))
          assert.deepStrictEqual(
            rows.map((row) => row.key),
            [`limiter/${key}/adaptive/fake-model`]
          )
          const state = yield* Schema.decodeEffect(Schema.fromJsonString(AdaptiveRate.State))(rows[0]!.state)
          // The share of 429s depends on the machine's speed; the bench measures it (bench/README.md).
          console.log(
            `adaptive limiter across ${processes} processes: ${requests.length} requests for ${statuses.length} sessions ` +
              `(${(requests.length / statuses.length).toFixed(2)} attempts per success), ${throttled} answered 429; ` +
              `the shared state ended at ${state.rate.toFixed(2)} req/s after ${state.generation} cuts, accepting ${state.measured.toFixed(2)} req/s`
          )
          const transitions = reports.map((report) =>
            report.transitions.map((t) => ({ before: canonical(t.before), after: canonical(t.after) }))
          )
          // Every update read the state the one before it wrote, whichever process made it: one history from the
          // initial state to the stored one. Three states of their own would start it three times.
          const { sinks, sources } = Releases.histories(transitions.flat())
          assert.deepStrictEqual(sources, [[canonical(AdaptiveRate.initial(AdaptiveRate.defaults)), 1]])
          assert.deepStrictEqual(sinks, [[canonical(state), -1]])
          // The fleet cut the rate for its 429s, at most once each (a 429 of a send granted before a cut makes none),
          // and every process went on to pace its sends by a cut state.
          assert.isAtLeast(state.generation, 1)
          assert.isAtMost(state.generation, throttled)
          const decoded = reports.map((report) => report.transitions)
          for (const own of decoded) assert.isTrue(own.some((t) => t.before.generation >= 1))
        })
      ),
    180_000
  )
})
