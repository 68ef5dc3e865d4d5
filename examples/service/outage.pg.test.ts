/**
 * A Postgres outage under the example service: two runner processes
 * (`main.ts start`) over a throwaway Postgres of the test's own, stopped as
 * in a crash (`pg_ctl -m immediate stop`) for seven seconds while every
 * session has a run in flight, then started again. Once the database is
 * back, every run resumes and completes, its answer reaches its client, the
 * event log agrees with the store, and the sessions take prompts again. And a
 * store that refuses one kind of write for a while: the run it suspends is
 * asked again until the write goes through.
 */
import { TempPostgres } from "@agent-kernel/cluster/testing"
import { DurableSessions } from "@agent-kernel/durable"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import { postgresUrl } from "../../packages/cluster/test/postgres.js"
import * as ApiClient from "./ApiClient.js"
import * as RunnerProcess from "./RunnerProcess.js"

/** Model calls of 1 to 3 s: two of three ask for a tool (unknown: an error result), so a run makes several. */
const plan: FaultPlan.FaultPlan = {
  steps: Array.from(
    { length: 500 },
    (_, i): FaultPlan.Step =>
      i % 3 === 2
        ? { kind: "reply", delay_ms: 1_000 + (i % 5) * 500, text: `answer ${i}` }
        : {
            kind: "reply",
            delay_ms: 1_000 + (i % 5) * 500,
            tool_calls: [{ name: "lookup", input: { key: `k${i}` }, id: `toolu_k${i}` }],
            stop: "tool_use"
          }
  ),
  after: "repeat_last"
}

const LoggedEnd = Schema.Struct({ session_id: Schema.String, event: Schema.String })
const RunEnded = Schema.fromJsonString(
  Schema.Struct({ type: Schema.String, run_id: Schema.String, status: Schema.String })
)

/** The last line of an answer, if it is a `run_ended`: its run and status. */
const endOf = (text: string) =>
  Effect.map(Effect.orDie(ApiClient.lines(text)), (lines) => {
    const last = lines[lines.length - 1]
    return last !== undefined && "event" in last && last.event.type === "run_ended"
      ? { run_id: last.event.run_id, status: last.event.status }
      : { run_id: "", status: `no run_ended: ${text.slice(-400)}` }
  })

describe("a Postgres outage under the service", () => {
  it.live(
    "after seven seconds down, every run in flight resumes and completes, its client gets its answer, the log agrees with the store, and the sessions take prompts again",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const postgres = yield* TempPostgres.start()
          const url = yield* RunnerProcess.freshDatabase(postgres.url, `outage_${Date.now()}`)
          const provider = yield* FakeProvider.make(plan)
          const start = RunnerProcess.start({ databaseUrl: url, providerUrl: provider.url })
          const runners = yield* Effect.all([start, start], { concurrency: "unbounded" })
          yield* RunnerProcess.awaitShards(url, 2)

          const ids = Array.from({ length: 8 }, (_, i) => `s${i}`)
          const answers = yield* Effect.forkChild(
            Effect.forEach(
              ids,
              (id, i) =>
                Effect.flatMap(
                  ApiClient.post(runners[i % 2]!.http, id, JSON.stringify({ prompt: `${id} before` })),
                  (answer) => endOf(answer.text)
                ),
              { concurrency: "unbounded" }
            )
          )
          // Every session's run is in flight, some past their first call, when the database goes.
          yield* provider.awaitRequests(ids.length + 4)
          yield* postgres.stop
          yield* Effect.sleep("7 seconds")
          yield* postgres.start
          const back = Date.now()

          // Every client gets its run's answer: the run resumed and completed.
          const ends = yield* Fiber.join(answers).pipe(
            Effect.timeoutOrElse({
              duration: "240 seconds",
              orElse: () => Effect.die(new Error("the clients never got their answers"))
            })
          )
          const answeredAfter = (Date.now() - back) / 1_000
          assert.deepStrictEqual(
            ends,
            ids.map((id) => ({ run_id: `${id}/run-1`, status: "completed" })),
            (yield* Effect.forEach(runners, (runner) => runner.output)).map((o) => o.slice(-3_000)).join("\n")
          )

          const database = yield* Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
          // The store: every run completed.
          const summaries = yield* DurableSessions.summaries.pipe(Effect.provide(database), Effect.orDie)
          for (const id of ids) {
            assert.deepInclude(
              summaries.find((s) => s.id === id),
              { id, status: "completed", runs: 1 }
            )
          }
          // The event log: every run_ended it holds for a session says what the store says.
          const sql = yield* Effect.provide(SqlClient.SqlClient, database)
          const logged =
            yield* sql`SELECT session_id, event FROM agent_service_events WHERE event LIKE '%"run_ended"%'`.pipe(
              Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(LoggedEnd))),
              Effect.flatMap((rows) =>
                Effect.forEach(rows, (row) =>
                  Effect.map(Schema.decodeEffect(RunEnded)(row.event), (event) => ({ id: row.session_id, ...event }))
                )
              ),
              Effect.orDie
            )
          for (const id of ids) {
            const statuses = logged.filter((end) => end.id === id).map((end) => end.status)
            assert.isAbove(statuses.length, 0, `${id}: no run_ended in the log`)
            assert.deepStrictEqual([...new Set(statuses)], ["completed"], `${id}: the log says ${statuses.join(", ")}`)
          }

          // No prompt is refused for ever: each session takes its next prompt (a 409 is asked again).
          const next = (id: string, i: number) =>
            ApiClient.post(runners[(i + 1) % 2]!.http, id, JSON.stringify({ prompt: `${id} after` })).pipe(
              Effect.repeat({ until: (answer) => answer.status !== 409, schedule: Schedule.spaced("1 second") }),
              Effect.flatMap((answer) => endOf(answer.text))
            )
          const after = yield* Effect.forEach(ids, next, { concurrency: "unbounded" }).pipe(
            Effect.timeoutOrElse({
              duration: "120 seconds",
              orElse: () => Effect.die(new Error("a session never took its next prompt"))
            })
          )
          assert.deepStrictEqual(
            after,
            ids.map((id) => ({ run_id: `${id}/run-2`, status: "completed" }))
          )
          console.log(`outage: every client answered ${answeredAfter.toFixed(1)} s after the database came back`)
        })
      ),
    900_000
  )
})

/**
 * Makes the store of `sql` refuse to record a completed run (its end step fails, and the run suspends on the
 * failure) until `restore`; `refused` counts the refusals (a sequence is not rolled back with the statement).
 */
const refuseEnds = (sql: SqlClient.SqlClient) =>
  Effect.as(
    Effect.forEach(
      [
        "CREATE SEQUENCE refused_ends",
        `CREATE FUNCTION refuse_end() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN PERFORM nextval('refused_ends'); RAISE EXCEPTION 'the store is failing'; END $$`,
        `CREATE TRIGGER refuse_end BEFORE UPDATE ON agent_sessions FOR EACH ROW
          WHEN (NEW.status = 'completed') EXECUTE FUNCTION refuse_end()`
      ],
      (statement) => sql.unsafe(statement)
    ),
    {
      /** Waits until the store has refused an end. */
      refused: sql<{ readonly n: number }>`SELECT CASE WHEN is_called THEN last_value ELSE 0 END::int AS n
        FROM refused_ends`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0),
        Effect.repeat({ until: (n) => n > 0, schedule: Schedule.spaced("200 millis") }),
        Effect.timeoutOrElse({ duration: "120 seconds", orElse: () => Effect.die(new Error("no end was refused")) }),
        Effect.orDie
      ),
      restore: Effect.orDie(sql.unsafe("DROP TRIGGER refuse_end ON agent_sessions"))
    }
  ).pipe(Effect.orDie)

/** The session's next prompt to `runner`, asked again while it is refused with a 409, and how its answer ends. */
const nextPrompt = (runner: RunnerProcess.RunnerProcess, id: string) =>
  ApiClient.post(runner.http, id, JSON.stringify({ prompt: "again" })).pipe(
    Effect.repeat({ until: (a) => a.status !== 409, schedule: Schedule.spaced("1 second") }),
    Effect.timeoutOrElse({
      duration: "180 seconds",
      orElse: () => Effect.die(new Error("the session never took its next prompt"))
    }),
    Effect.flatMap((a) => endOf(a.text))
  )

describe("a store failure that suspends a run", () => {
  it.live(
    "the run whose end could not be recorded is asked again until the store takes it: its client gets its answer, and the session takes prompts again",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const url = yield* RunnerProcess.freshDatabase(postgresUrl(), `suspended_${Date.now()}`)
          const provider = yield* FakeProvider.make(
            FaultPlan.make([{ kind: "reply", text: "done" }], { after: "repeat_last" })
          )
          const runner = yield* RunnerProcess.start({ databaseUrl: url, providerUrl: provider.url })
          yield* RunnerProcess.awaitShards(url, 1)
          const database = yield* Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
          const store = yield* refuseEnds(yield* Effect.provide(SqlClient.SqlClient, database))
          const answer = yield* Effect.forkChild(
            Effect.flatMap(ApiClient.post(runner.http, "s", JSON.stringify({ prompt: "hello" })), (a) => endOf(a.text))
          )
          yield* store.refused
          yield* store.restore
          const end = yield* Fiber.join(answer).pipe(
            Effect.timeoutOrElse({
              duration: "120 seconds",
              orElse: () => Effect.die(new Error("the client never got its answer"))
            })
          )
          assert.deepStrictEqual(end, { run_id: "s/run-1", status: "completed" })
          assert.deepStrictEqual(yield* nextPrompt(runner, "s"), { run_id: "s/run-2", status: "completed" })
        })
      ),
    600_000
  )

  it.live(
    "when the runner that took its prompt is gone, the session's next prompt asks the run again, and is taken once it has ended",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const url = yield* RunnerProcess.freshDatabase(postgresUrl(), `suspended_gone_${Date.now()}`)
          const provider = yield* FakeProvider.make(
            FaultPlan.make([{ kind: "reply", text: "done" }], { after: "repeat_last" })
          )
          // The runs of the runner that dies move once its shard locks expire: 10 s, not the default 30 s.
          const start = RunnerProcess.start({
            databaseUrl: url,
            providerUrl: provider.url,
            flags: ["--shard-lock-expiration", "10"]
          })
          const [gone, other] = yield* Effect.all([start, start], { concurrency: "unbounded" })
          yield* RunnerProcess.awaitShards(url, 2)
          const database = yield* Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
          const store = yield* refuseEnds(yield* Effect.provide(SqlClient.SqlClient, database))
          // Sessions enough that some run on the other runner, which outlives the one that took their prompts.
          const ids = Array.from({ length: 8 }, (_, i) => `s${i}`)
          yield* Effect.forkChild(
            Effect.forEach(ids, (id) => ApiClient.post(gone!.http, id, JSON.stringify({ prompt: "hello" })), {
              concurrency: "unbounded"
            })
          )
          yield* store.refused
          // The runner that took the prompts, and would ask their runs again, dies; the store takes writes again.
          yield* gone!.kill("SIGKILL")
          yield* store.restore
          const next = yield* Effect.forEach(ids, (id) => nextPrompt(other!, id), { concurrency: "unbounded" })
          assert.deepStrictEqual(
            next,
            ids.map((id) => ({ run_id: `${id}/run-2`, status: "completed" }))
          )
          // The store records a run's end just after the run publishes it.
          const summaries = yield* DurableSessions.summaries.pipe(
            Effect.provide(database),
            Effect.orDie,
            Effect.repeat({
              until: (all) => all.every((summary) => summary.status !== "running"),
              schedule: Schedule.spaced("200 millis")
            }),
            Effect.timeoutOrElse({ duration: "60 seconds", orElse: () => Effect.die(new Error("a run 2 never ended")) })
          )
          for (const id of ids) {
            assert.deepInclude(
              summaries.find((summary) => summary.id === id),
              { id, status: "completed", runs: 2 }
            )
          }
        })
      ),
    600_000
  )
})
