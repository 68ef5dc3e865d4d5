/**
 * The service's event log: every kernel event of a durable run, appended to a
 * Postgres table by whichever runner executes the run, and followed from any
 * runner. A prompt reaches the runner that holds its session's shard, not
 * necessarily the one that took the HTTP request; the log is how the events
 * come back to the request.
 *
 * - Writing: the process's `EventBus` has one observer that appends each
 *   event of a workflow run (the `AgentRun` body, recognised by the
 *   `WorkflowInstance` in the publishing fiber) with its session id, its
 *   position, and the address of the runner that ran it, and notifies
 *   `LISTEN`ers in the same statement.
 * - Reading: one `LISTEN` connection per process, of its own (not one of
 *   the pool's, which stay the queries'), wakes the followers of a
 *   session when its events arrive; a follower also re-reads every
 *   `pollInterval`, so a notification lost with a connection costs latency,
 *   never events.
 *
 * After a runner dies or hands its shards over, the runner that takes a
 * shard resumes its runs from the journal: a replay publishes nothing again,
 * so a follower sees a resumed run's events go on, with the second runner's
 * address (see `appender` for how that runner knows the run's session).
 *
 * @since 0.1.0
 */
import { EventBus, KernelEvent } from "@agent-kernel/kernel"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import * as Events from "./internal/events.js"

/**
 * The log could not be read or written.
 *
 * @since 0.1.0
 * @category errors
 */
export class EventLogError extends Schema.TaggedError<EventLogError>()("EventLogError", {
  message: Schema.String
}) {}

/**
 * An event as the log holds it: its position (increasing within a session),
 * the runner that published it, and the event.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LoggedEvent = Schema.Struct({
  seq: Schema.Number,
  runner: Schema.String,
  event: KernelEvent.KernelEvent
})

/**
 * @since 0.1.0
 * @category models
 */
export interface LoggedEvent extends Schema.Schema.Type<typeof LoggedEvent> {}

/**
 * What the log does.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The position of the session's newest event (0 for none): follow from here to see only what comes next. */
  readonly head: (sessionId: string) => Effect.Effect<number, EventLogError>
  /**
   * The session's events after position `after`, in order, as they are
   * appended; the stream ends after the first `run_ended`.
   */
  readonly follow: (sessionId: string, after: number) => Stream.Stream<LoggedEvent, EventLogError>
}

/**
 * The event log.
 *
 * @since 0.1.0
 * @category tags
 */
export class SessionEvents extends Context.Service<SessionEvents, Service>()(
  "@agent-kernel/examples/service/SessionEvents"
) {}

/**
 * Options of the log.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The address of this runner (`host:port`), written with each event it publishes. */
  readonly runner: string
  /** How often a follower re-reads without a notification. Default 1 s. */
  readonly pollInterval?: Duration.Input | undefined
}

const table = "agent_service_events"
/** Each workflow execution's session, recorded with its `run_started`: a runner that resumes the run reads it. */
const executions = "agent_service_executions"
const channel = "agent_service_events"
/** How many failed reads in a row a follower makes again, `pollInterval` apart, before its stream fails. */
const failedReads = 120
/** Serialises the migration of concurrent processes: `CREATE ... IF NOT EXISTS` races in Postgres. */
const migrationLock = 7_340_015

/**
 * The BIGINT position is selected as text, whatever the driver makes of a BIGINT (the order is the
 * column's, not the text's).
 */
const Row = Schema.Struct({
  seq: Schema.NumberFromString,
  runner: Schema.String,
  event: Schema.fromJsonString(KernelEvent.KernelEvent)
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))
const encodeEvent = Schema.encodeEffect(Schema.fromJsonString(KernelEvent.KernelEvent))
const Head = Schema.Array(Schema.Struct({ head: Schema.NumberFromString }))
const decodeSessions = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ session_id: Schema.String })))

const logError =
  (what: string) =>
  (cause: { readonly message: string }): EventLogError =>
    new EventLogError({ message: `${what}: ${cause.message}` })

/**
 * Creates the log's table (once for the database; concurrent callers wait
 * for each other).
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrate: Effect.Effect<void, EventLogError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${migrationLock})`
      yield* sql`CREATE TABLE IF NOT EXISTS ${sql(table)} (
        seq BIGSERIAL PRIMARY KEY,
        session_id TEXT NOT NULL,
        runner TEXT NOT NULL,
        event TEXT NOT NULL
      )`
      yield* sql`CREATE INDEX IF NOT EXISTS agent_service_events_session ON ${sql(table)} (session_id, seq)`
      yield* sql`CREATE TABLE IF NOT EXISTS ${sql(executions)} (
        execution_id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL
      )`
    })
  )
}).pipe(Effect.mapError(logError("cannot create the event log")))

/** A run's `run_ended` with status `interrupted`, which the log holds only once the store says the run is over. */
interface InterruptedEnd {
  readonly session: string
  readonly event: KernelEvent.KernelEvent
}

/**
 * The bus observer that appends the events of this process's workflow runs.
 * The kernel's events carry the run id (`<session>/run-<n>`) only on
 * `run_started` and `run_ended`, so the session of the other events is
 * looked up by the workflow execution that publishes them: known here since
 * its `run_started`, or, for a run resumed here that started elsewhere (its
 * replay publishes no `run_started` again), read from the log's record of
 * the execution, written with its `run_started`.
 *
 * A `run_ended` with status `interrupted` is not appended as it comes: a
 * body interrupted because its runner lost or handed over its shard ends so
 * too, and its run resumes and ends later. It goes to `ends` once the body's
 * fiber has ended, when the store has recorded a stop (`confirmEnd`).
 */
const appender = (sql: SqlClient.SqlClient, runner: string, ends: Queue.Queue<InterruptedEnd>): EventBus.Observer => {
  // The session of each execution running here, from its `run_started` (or its record) to its `run_ended`.
  const sessions = new Map<string, string>()
  const recorded = (executionId: string) =>
    sql`SELECT session_id FROM ${sql(executions)} WHERE execution_id = ${executionId}`.pipe(
      Effect.flatMap(decodeSessions),
      Effect.map((rows) => Option.fromUndefinedOr(rows[0]?.session_id))
    )
  const sessionOf = (executionId: string, event: KernelEvent.KernelEvent) => {
    if (event.type === "run_started") return Effect.succeed(Events.sessionOfRunId(event.run_id))
    const known = sessions.get(executionId)
    return known === undefined ? recorded(executionId) : Effect.succeedSome(known)
  }
  const observe = (executionId: string, event: KernelEvent.KernelEvent) =>
    Effect.gen(function* () {
      const found = yield* sessionOf(executionId, event)
      if (Option.isNone(found)) return yield* Effect.logWarning(`event log: no session for execution ${executionId}`)
      const session = found.value
      if (event.type !== "run_ended") {
        sessions.set(executionId, session)
        return yield* appendOf(sql, runner, session, event, event.type === "run_started" ? executionId : undefined)
      }
      sessions.delete(executionId)
      if (event.status !== "interrupted") return yield* appendOf(sql, runner, session, event, undefined)
      // Offered once the body's fiber ends: its stop, if it was stopped, is recorded by then.
      yield* Effect.withFiber((fiber) =>
        Effect.sync(() => fiber.addObserver(() => Queue.offerUnsafe(ends, { session, event })))
      )
    })
  return {
    onEvent: (event) =>
      // The publishing fiber is the run's own: a workflow body has its `WorkflowInstance` in context.
      Effect.contextWith((context: Context.Context<never>) => {
        const instance = Context.getOption(context, WorkflowEngine.WorkflowInstance)
        if (Option.isNone(instance)) return Effect.void
        // The bus logs an observer's failure too; this one says which log it was.
        return Effect.catch(observe(instance.value.executionId, event), (error) =>
          Effect.logWarning(
            `event log: cannot append an event of execution ${instance.value.executionId}: ${error.message}`
          )
        )
      })
  }
}

/**
 * Appends `event` of `session` and notifies the followers, in one
 * statement; with the record of the execution that publishes it, for a
 * `run_started` (`executionId`).
 */
const appendOf = (
  sql: SqlClient.SqlClient,
  runner: string,
  session: string,
  event: KernelEvent.KernelEvent,
  executionId: string | undefined
) =>
  Effect.flatMap(encodeEvent(event), (json) => {
    const appended = sql`INSERT INTO ${sql(table)} (session_id, runner, event) VALUES (${session}, ${runner}, ${json})
      RETURNING session_id`
    return Effect.asVoid(
      executionId === undefined
        ? sql`WITH appended AS (${appended}) SELECT pg_notify(${channel}, session_id) FROM appended`
        : sql`WITH recorded AS (
            INSERT INTO ${sql(executions)} (execution_id, session_id) VALUES (${executionId}, ${session})
            ON CONFLICT (execution_id) DO NOTHING
          ), appended AS (${appended}) SELECT pg_notify(${channel}, session_id) FROM appended`
    )
  })

/**
 * Appends an interrupted run's `run_ended` if the store recorded its stop
 * (the session's row ended the run `interrupted`); otherwise the run was cut
 * off, not stopped, and goes on here or on another runner, which logs its
 * end: nothing is appended.
 */
const confirmEnd = (sql: SqlClient.SqlClient, runner: string, end: InterruptedEnd) =>
  Effect.gen(function* () {
    if (end.event.type !== "run_ended") return
    const run = Events.runOfRunId(end.event.run_id)
    if (Option.isNone(run)) return
    const stopped = yield* sql`SELECT 1 AS stopped FROM agent_sessions WHERE id = ${end.session}
      AND run_index = ${run.value} AND pending IS NULL AND status = 'interrupted'`
    if (stopped.length > 0) yield* appendOf(sql, runner, end.session, end.event, undefined)
  }).pipe(
    Effect.catch((error) =>
      Effect.logWarning(`event log: cannot tell whether ${end.session}'s interrupted run was stopped: ${error.message}`)
    )
  )

/**
 * The log over the Postgres in context, and the `EventBus` that writes it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<readonly [Service, EventBus.Service], EventLogError, PgClient.PgClient | Scope.Scope> =>
  Effect.gen(function* () {
    const pg = yield* PgClient.PgClient
    yield* Effect.provideService(migrate, SqlClient.SqlClient, pg)
    const pollInterval = Duration.fromInputUnsafe(options.pollInterval ?? Duration.seconds(1))
    // Every notification of this process's one LISTEN, to every follower: the payload is a session id.
    const notified = yield* Effect.acquireRelease(PubSub.unbounded<string>(), PubSub.shutdown)
    // The LISTEN holds a connection for as long as it lasts: one of its own, outside the pool of the queries.
    yield* Effect.flatMap(PgClient.makeClient(pg.config), (listener) => listener.listen(channel)).pipe(
      Effect.flatMap((notifications) =>
        Stream.runForEach(Stream.fromQueue(notifications), (notification) =>
          PubSub.publish(notified, notification.payload)
        )
      ),
      Effect.scoped,
      Effect.provide(Reactivity.layer),
      // A lost connection is listened to again; followers poll meanwhile.
      Effect.catchCause((cause) => Effect.logWarning("event log: LISTEN failed", cause)),
      Effect.repeat(Schedule.spaced("1 second")),
      Effect.forkScoped
    )
    // The interrupted runs' ends, appended once the store has recorded their stop (see `appender`).
    const ends = yield* Effect.acquireRelease(Queue.unbounded<InterruptedEnd>(), Queue.shutdown)
    yield* Effect.forkScoped(Stream.runForEach(Stream.fromQueue(ends), (end) => confirmEnd(pg, options.runner, end)))
    // A read that fails (the database down a moment) is made again: the run goes on, and so does its follower.
    const rowsAfter = (sessionId: string, after: number) =>
      pg`SELECT seq::text AS seq, runner, event FROM ${pg(table)}
        WHERE session_id = ${sessionId} AND seq > ${after} ORDER BY ${pg(table)}.seq LIMIT 500`.pipe(
        Effect.flatMap(decodeRows),
        Effect.retry({ schedule: Schedule.spaced(pollInterval), times: failedReads }),
        Effect.mapError(logError("cannot read the event log"))
      )
    const service: Service = {
      head: (sessionId) =>
        pg`SELECT COALESCE(MAX(seq), 0)::text AS head FROM ${pg(table)} WHERE session_id = ${sessionId}`.pipe(
          Effect.flatMap(Schema.decodeUnknownEffect(Head)),
          Effect.map((rows) => rows[0]?.head ?? 0),
          Effect.mapError(logError("cannot read the event log"))
        ),
      follow: (sessionId, after) =>
        Stream.unwrap(
          Effect.gen(function* () {
            // Subscribed before the first read: an event appended after that read wakes the follower.
            const wakeups = yield* PubSub.subscribe(notified)
            const woken = Effect.raceFirst(
              Effect.repeat(PubSub.take(wakeups), { until: (id) => id === sessionId }),
              Effect.sleep(pollInterval)
            )
            const next = (cursor: number): Effect.Effect<ReadonlyArray<LoggedEvent>, EventLogError> =>
              Effect.flatMap(rowsAfter(sessionId, cursor), (rows) =>
                rows.length > 0 ? Effect.succeed(rows) : Effect.andThen(woken, next(cursor))
              )
            return Stream.paginate(after, (cursor) =>
              Effect.map(next(cursor), (rows) => {
                const end = rows.findIndex((row) => Events.endsRun(row.event.type))
                const last = rows[rows.length - 1]
                return end >= 0 || last === undefined
                  ? ([rows.slice(0, end + 1), Option.none<number>()] as const)
                  : ([rows, Option.some(last.seq)] as const)
              })
            )
          })
        )
    }
    return [service, EventBus.of([appender(pg, options.runner, ends)])] as const
  })

/**
 * The log and the `EventBus` that writes it, over the Postgres in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<SessionEvents | EventBus.EventBus, EventLogError, PgClient.PgClient> =>
  Layer.effectContext(
    Effect.map(make(options), ([service, bus]) =>
      Context.make(SessionEvents, service).pipe(Context.add(EventBus.EventBus, bus))
    )
  )
