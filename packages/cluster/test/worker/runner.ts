/**
 * One runner process of the multi-runner test: durable sessions on a
 * `Runner` over the Postgres at `DATABASE_URL`, listening on `PORT`, with the
 * fake provider at `PROVIDER_URL` as the model. It prints `ready` once it has
 * joined the cluster; on a line on stdin it runs the sessions named in
 * `SESSIONS` (comma-separated ids, one input each), prints one JSON line with
 * their statuses, and keeps serving its shards until it is stopped.
 */
import { DurableSessions } from "@agent-kernel/durable"
import { Settings } from "@agent-kernel/kernel"
import { Anthropic } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Runner from "../../src/Runner.js"

const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined) throw new Error(`${name} is not set`)
  return value
}

const sessions = env("SESSIONS")
  .split(",")
  .filter((id) => id.length > 0)

const go = Effect.async<void>((resume) => {
  process.stdin.once("data", () => resume(Effect.void))
})

const model = Anthropic.layer({ baseUrl: env("PROVIDER_URL"), apiKey: Redacted.make("test"), stream: false }).pipe(
  Layer.provide(NodeTransport.layer())
)

const program = Effect.gen(function* () {
  const durable = yield* DurableSessions.DurableSessions
  process.stdout.write("ready\n")
  yield* go
  const outcomes = yield* Effect.forEach(sessions, (id) => durable.run(id, "hello"), { concurrency: "unbounded" })
  process.stdout.write(`${JSON.stringify({ statuses: outcomes.map((outcome) => outcome.status) })}\n`)
  return yield* Effect.never
}).pipe(
  Effect.provide(
    Layer.unwrapEffect(
      Effect.map(Settings.decode({ jitter: "none" }), (settings) =>
        DurableSessions.layer({ model: "fake-model", settings }).pipe(
          Layer.provideMerge(Runner.layer({ host: "127.0.0.1", port: Number(env("PORT")) })),
          Layer.provide(model),
          Layer.provideMerge(PgClient.layer({ url: Redacted.make(env("DATABASE_URL")), maxConnections: 6 }))
        )
      )
    )
  )
)

Effect.runPromise(program).catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
