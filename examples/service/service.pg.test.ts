/**
 * The example service as it runs: two runner processes (`main.ts start`) over
 * the throwaway Postgres of the run, every prompt sent to ONE runner's HTTP
 * port, the events of every session streamed back from it, including the
 * sessions whose shard the other runner holds.
 */
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Net from "node:net"
import * as Path from "node:path"
import { inject } from "vitest"
import * as Api from "./Api.js"
import * as Service from "./Service.js"

const root = Path.join(import.meta.dirname, "..", "..")

/** The URL of the run's throwaway database; a test without it FAILS, it never skips. */
const postgresUrl = (): string => {
  const postgres = inject("postgres")
  if ("error" in postgres) throw new Error(postgres.error)
  return postgres.url
}

const clientOf = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })

/** A fresh database of the run's cluster, so that this test's runners meet no other test's. */
const freshDatabase = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE ${name}`)).pipe(
    Effect.provide(clientOf(postgresUrl())),
    Effect.as(postgresUrl().replace(/\/[^/]*$/, `/${name}`))
  )

const freePort = Effect.async<number>((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

interface Runner {
  readonly http: string
  readonly runner: string
}

/** Starts `main.ts start` as a real process (killed with the scope) and waits for its `listening` line. */
const startRunner = (databaseUrl: string, providerUrl: string): Effect.Effect<Runner, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const port = yield* freePort
    const runnerPort = yield* freePort
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        ChildProcess.spawn(
          process.execPath,
          [
            "--import",
            "tsx",
            Path.join(import.meta.dirname, "main.ts"),
            "start",
            "--port",
            String(port),
            "--runner-port",
            String(runnerPort),
            "--database-url",
            databaseUrl,
            "--provider-url",
            providerUrl
          ],
          { cwd: root, stdio: ["ignore", "pipe", "pipe"] }
        )
      ),
      (child) => Effect.sync(() => child.kill("SIGKILL"))
    )
    let output = ""
    yield* Effect.async<void, Error>((resume) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8")
        if (output.includes("listening on")) resume(Effect.void)
      }
      child.stdout.on("data", onData)
      child.stderr.on("data", onData)
      child.once("exit", (code) => resume(Effect.fail(new Error(`the runner exited ${code}: ${output}`))))
    })
    return { http: `http://127.0.0.1:${port}`, runner: `127.0.0.1:${runnerPort}` }
  })

/** The advisory locks (shards) held by each backend on `database`: one row per runner holding shards. */
const shardHolders = (url: string, database: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ readonly shards: string }>`SELECT count(*)::text AS shards FROM pg_locks
      WHERE locktype = 'advisory' AND granted
        AND database = (SELECT oid FROM pg_database WHERE datname = ${database}) GROUP BY pid`
  ).pipe(
    Effect.map((rows) => rows.map((row) => Number(row.shards))),
    Effect.provide(clientOf(url))
  )

/** Waits until two runners hold all 300 shards: a shard handed over mid-run replays the run. */
const settled = (url: string, database: string) =>
  shardHolders(url, database).pipe(
    Effect.repeat({
      until: (held) => held.length === 2 && held.reduce((sum, n) => sum + n, 0) === 300,
      schedule: Schedule.spaced("200 millis")
    }),
    Effect.timeoutFail({ duration: "120 seconds", onTimeout: () => new Error("the runners never split the shards") })
  )

const decodeLine = Schema.decodeUnknown(Schema.parseJson(Api.Line))
const decodeError = Schema.decodeUnknown(Schema.parseJson(Api.ErrorBody))

/** POSTs a prompt over real HTTP and reads the whole answer. */
const post = (base: string, id: string, body: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/sessions/${id}/prompt`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body
    })
    return { status: response.status, type: response.headers.get("content-type"), text: await response.text() }
  })

const answer = "The service answers."

describe("the example service on two runner processes", () => {
  it.live(
    "prompts sent to one runner stream every session's events back, from both runners; bad input gets typed 4xx",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const database = `service_${Date.now()}`
          const url = yield* freshDatabase(database)
          yield* Service.migrate({ databaseUrl: Redacted.make(url) })
          // Every answer is held after its first event until `release`: every run stays in progress
          // until the test lets them finish, whatever the machine's speed.
          const provider = yield* FakeProvider.make(
            FaultPlan.make([{ kind: "reply", text: answer, hold_after_events: 1 }], { after: "repeat_last" })
          )
          const [a, b] = yield* Effect.all([startRunner(url, provider.url), startRunner(url, provider.url)], {
            concurrency: "unbounded"
          })
          if (a === undefined || b === undefined) return assert.fail("two runners")
          yield* settled(url, database)

          const ids = Array.from({ length: 16 }, (_, i) => `session-${i}`)
          const answers = yield* Effect.fork(
            Effect.forEach(ids, (id) => post(a.http, id, JSON.stringify({ prompt: `hello ${id}` })), {
              concurrency: "unbounded"
            })
          )
          // Every run is in progress: a second prompt for one of them, on the other runner, is a 409.
          yield* provider.awaitRequests(ids.length)
          const pending = yield* post(b.http, "session-0", JSON.stringify({ prompt: "again" }))
          assert.strictEqual(pending.status, 409)
          assert.strictEqual((yield* decodeError(pending.text)).error, "run_pending")
          yield* provider.release

          const responses = yield* Effect.flatMap(answers.await, Effect.orDie)
          const ranOn = new Set<string>()
          for (const [i, response] of responses.entries()) {
            const id = ids[i]
            assert.strictEqual(response.status, 200, response.text)
            assert.strictEqual(response.type, "application/x-ndjson")
            const lines = yield* Effect.forEach(response.text.trimEnd().split("\n"), (line) => decodeLine(line))
            const events = lines.flatMap((line) => ("event" in line ? [line.event] : []))
            assert.strictEqual(events.length, lines.length, `no error line for ${id}`)
            const first = events[0]
            const last = events[events.length - 1]
            assert.deepInclude(first, { type: "run_started", run_id: `${id}/run-1`, input: `hello ${id}` })
            assert.deepInclude(last, {
              type: "run_ended",
              run_id: `${id}/run-1`,
              status: "completed",
              final_text: answer
            })
            assert.isTrue(events.some((event) => event.type === "text_delta"))
            for (const line of lines) if ("runner" in line) ranOn.add(line.runner)
          }
          // Every session's events came back through runner A; some of them ran on runner B.
          assert.deepStrictEqual([...ranOn].sort(), [a.runner, b.runner].sort())
          // No model call was sent twice, and the refused prompt sent none.
          assert.strictEqual((yield* provider.requests).length, ids.length)

          // Bad input: typed 400s, before any run starts.
          const badId = yield* post(a.http, "not%20an%20id", JSON.stringify({ prompt: "x" }))
          const notJson = yield* post(a.http, "session-x", "{")
          const noPrompt = yield* post(a.http, "session-x", JSON.stringify({ prompt: "" }))
          for (const bad of [badId, notJson, noPrompt]) {
            assert.strictEqual(bad.status, 400, bad.text)
            assert.strictEqual((yield* decodeError(bad.text)).error, "invalid_request")
          }
          // A session's next prompt is its next run, on the history of the first.
          const second = yield* post(a.http, "session-1", JSON.stringify({ prompt: "and again" }))
          const secondLines = yield* Effect.forEach(second.text.trimEnd().split("\n"), (line) => decodeLine(line))
          const runIds = secondLines.flatMap((line) =>
            "event" in line && (line.event.type === "run_started" || line.event.type === "run_ended")
              ? [line.event.run_id]
              : []
          )
          assert.deepStrictEqual(runIds, ["session-1/run-2", "session-1/run-2"])
          const requests = yield* provider.requests
          assert.strictEqual(requests.length, ids.length + 1)
          // The model saw the first run's prompt and answer before the new prompt.
          const body = requests[requests.length - 1]?.body
          assert.strictEqual(
            Schema.decodeUnknownSync(Schema.Struct({ messages: Schema.Array(Schema.Unknown) }))(body).messages.length,
            3
          )
        })
      ),
    300_000
  )
})
