/**
 * A run's end written with its events (`EventLog.Writer.transaction`) while another fiber's write of
 * the same log waits for the store's connection: on a client of one connection (the owner's on
 * Postgres, SQLite's) the end's transaction holds the connection, and a write that took the writer
 * first would wait on it while the transaction waits on the writer, for ever.
 */
import { Content, type KernelEvent } from "@agent-kernel/kernel"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as EventLog from "../src/internal/eventLog.js"
import * as Store from "../src/internal/store.js"

const delta = (text: string): KernelEvent.KernelEvent => ({
  type: "text_delta",
  at: 1,
  turn: 1,
  model: "m",
  attempt: 1,
  text
})

const Logged = Schema.Array(
  Schema.Struct({ seq: Schema.Number, event: Schema.fromJsonString(Schema.Struct({ text: Schema.String })) })
)

/** A guard against a hang: the effect, or a failure after 10 s of real time (the writes answer in milliseconds). */
const within = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutOrElse(effect, {
    duration: "10 seconds",
    orElse: () => Effect.fail("hung: no answer in 10 s" as const)
  })

/**
 * On the store's client `sql`: the end's transaction begins, a delta is taken and another fiber
 * flushes it (it waits), then the transaction takes a second delta, writes what is taken and the
 * session's end. Returns the log's rows (seq, text) once both are done.
 */
export const endBesideAFlush = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const store = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
      Effect.provideService(effect, SqlClient.SqlClient, sql)
    const { life } = yield* store(Store.begin("s", 1, Content.userText("go"), 0))
    const writer: EventLog.Writer = yield* EventLog.writer(sql, { session_id: "s", run: 1, life: life ?? undefined })
    const began = yield* Deferred.make<void>()
    const go = yield* Deferred.make<void>()
    const end = yield* Effect.forkChild(
      writer.transaction((flush) =>
        Effect.gen(function* () {
          yield* Deferred.succeed(began, undefined)
          yield* Deferred.await(go)
          writer.log(delta(" world"))
          yield* flush
          yield* sql`UPDATE agent_sessions SET status = 'completed', pending = NULL WHERE id = 's'`
        })
      )
    )
    yield* Deferred.await(began)
    writer.log(delta("hello"))
    // Started at once: it runs until it waits (for the writer, or for the connection the transaction holds).
    const flushing = yield* Effect.forkChild(writer.flush, { startImmediately: true })
    yield* Deferred.succeed(go, undefined)
    yield* within(Fiber.join(end))
    yield* within(Fiber.join(flushing))
    return yield* Schema.decodeUnknownEffect(Logged)(
      yield* sql`SELECT CAST(seq AS INTEGER) AS seq, event FROM agent_events WHERE session_id = 's' ORDER BY seq`
    )
  }) satisfies Effect.Effect<unknown, unknown, Scope.Scope>

/** A delta of its own model attempt `attempt` (so that the log keeps it as one row). */
const deltaOf = (attempt: number, text: string): KernelEvent.KernelEvent => ({
  type: "text_delta",
  at: 1,
  turn: 1,
  model: "m",
  attempt,
  text
})

/**
 * On the store's client `sql`: a delta is written; a transaction writes a second one and then ends with
 * `ending` (a failure, or an interruption), which rolls it back; a third delta is taken and the log
 * flushed. Returns the log's rows (seq, text) and how the transaction ended.
 */
export const flushThenRollBack = (sql: SqlClient.SqlClient, ending: Effect.Effect<never, string>) =>
  Effect.gen(function* () {
    const store = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
      Effect.provideService(effect, SqlClient.SqlClient, sql)
    const { life } = yield* store(Store.begin("s", 1, Content.userText("go"), 0))
    const writer: EventLog.Writer = yield* EventLog.writer(sql, { session_id: "s", run: 1, life: life ?? undefined })
    writer.log(deltaOf(1, "first"))
    yield* writer.flush
    writer.log(deltaOf(2, "rolled back"))
    const exit = yield* Effect.exit(writer.transaction((flush) => Effect.andThen(flush, ending)))
    writer.log(deltaOf(3, "after"))
    yield* within(writer.flush)
    const rows = yield* Schema.decodeUnknownEffect(Logged)(
      yield* sql`SELECT CAST(seq AS INTEGER) AS seq, event FROM agent_events WHERE session_id = 's' ORDER BY seq`
    )
    return { rows, exit }
  }) satisfies Effect.Effect<unknown, unknown, Scope.Scope>

/** The run's end as the loop publishes it, here the end a crash's interruption makes. */
const runEnded: KernelEvent.KernelEvent = {
  type: "run_ended",
  at: 2,
  run_id: "s/run-1",
  status: "interrupted",
  turns: 1,
  retries: { max_per_call: 0, session_total: 0 },
  usage: { input_tokens: 0, output_tokens: 0 },
  cost_usd: null,
  wall_ms: 1,
  error: null,
  final_text: ""
}

const Types = Schema.Array(Schema.Struct({ seq: Schema.Number, type: Schema.String }))

/**
 * On the store's client `sql`: a delta and the run's `run_ended` are taken; the log is flushed outside
 * any transaction (as the writer's own fiber, a step's start, or a write a crash's interruption finds on
 * its way does); an end's transaction flushes and rolls back; the log is flushed outside again; then an
 * end's transaction flushes and records the session's end. Returns the log's rows (seq, type) after each.
 */
export const endOnlyWithItsRecord = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const store = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
      Effect.provideService(effect, SqlClient.SqlClient, sql)
    const { life } = yield* store(Store.begin("s", 1, Content.userText("go"), 0))
    const writer: EventLog.Writer = yield* EventLog.writer(sql, { session_id: "s", run: 1, life: life ?? undefined })
    const rows = Effect.flatMap(
      sql`SELECT CAST(seq AS INTEGER) AS seq, type FROM agent_events WHERE session_id = 's' ORDER BY seq`,
      Schema.decodeUnknownEffect(Types)
    )
    writer.log(deltaOf(1, "last words"))
    writer.log(runEnded)
    yield* within(writer.flush)
    const flushed = yield* rows
    const rolledBack = yield* Effect.exit(
      writer.transaction((flush) => Effect.andThen(flush, Effect.fail("the end's record failed")))
    )
    yield* within(writer.flush)
    const flushedAgain = yield* rows
    yield* within(
      writer.transaction((flush) =>
        Effect.andThen(flush, sql`UPDATE agent_sessions SET status = 'completed', pending = NULL WHERE id = 's'`)
      )
    )
    return { flushed, rolledBack, flushedAgain, recorded: yield* rows }
  }) satisfies Effect.Effect<unknown, unknown, Scope.Scope>
