/**
 * One process of the multi-process limiter test: runs `SESSIONS` sessions at
 * once against the fake provider at `PROVIDER_URL`, through the provider-wide
 * limiter and retry quota kept in the Postgres at `DATABASE_URL`, and prints
 * one line `report {json}`: each run's status and retries, and the instants at
 * which the limiter let this process's requests go (`../releases.ts`). It connects first, prints
 * `ready`, and starts its sessions when a line arrives on stdin, so that the
 * test starts every process at once. With `ADAPTIVE=1` the limiter is the
 * adaptive one, told no rate, and the report has every committed update of
 * its state (`transitions`).
 */
import { RetryBudget, Session, Settings } from "@agent-kernel/kernel"
import { Anthropic } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as ProviderLimiter from "../../src/ProviderLimiter.js"
import * as SharedRetryQuota from "../../src/SharedRetryQuota.js"
import * as StateStore from "../../src/StateStore.js"
import * as Releases from "../releases.js"

const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined) throw new Error(`${name} is not set`)
  return value
}

const sessions = Number(env("SESSIONS"))
const rate = Number(env("RATE"))
const key = env("LIMITER_KEY")

const releases: Array<number> = []
const transitions: Array<Releases.Transition> = []
const store = Releases.recording(releases, transitions).pipe(
  Layer.provide(StateStore.layerPostgres({ table: env("TABLE") })),
  Layer.provide(PgClient.layer({ url: Redacted.make(env("DATABASE_URL")), maxConnections: 4 }))
)
const model = ProviderLimiter.provider.pipe(
  Layer.provide(Anthropic.layer({ baseUrl: env("PROVIDER_URL"), apiKey: Redacted.make("test"), stream: false })),
  Layer.provide(NodeTransport.layer()),
  Layer.provide(
    ProviderLimiter.layer(
      process.env["ADAPTIVE"] === "1" ? { key, adaptive: true } : { key, requests: Releases.workersLimit(rate) }
    )
  )
)
const quota = SharedRetryQuota.layer({
  key,
  budget: RetryBudget.tokenBucket({ capacity: 100, retryCost: 5, successRefund: 1 })
})

/** The test's go: any line on stdin. */
const go = Effect.callback<void>((resume) => {
  process.stdin.once("data", () => {
    // An open stdin would keep the process alive after its report.
    process.stdin.destroy()
    resume(Effect.void)
  })
})

const program = Effect.gen(function* () {
  process.stdout.write("ready\n")
  yield* go
  const settings = yield* Settings.decode({ base_delay_ms: 200, max_retries: 8, jitter: "full" })
  const outcomes = yield* Effect.forEach(
    Array.from({ length: sessions }),
    () => Effect.flatMap(Session.make({ model: "fake-model", settings }), (session) => session.run("hello")),
    { concurrency: "unbounded" }
  )
  process.stdout.write(
    `report ${JSON.stringify({ statuses: outcomes.map((o) => o.status), retries: outcomes.map((o) => o.retries.session_total), releases, transitions })}\n`
  )
}).pipe(Effect.provide(Layer.mergeAll(model, quota).pipe(Layer.provide(store))))

Effect.runPromise(program).catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
