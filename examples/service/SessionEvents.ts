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
 * After a runner dies, the runner that takes its shard replays the run from
 * the journal, and publishes its events again from `run_started`: a follower
 * then sees the run's first events twice (with the second runner's address).
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
const channel = "agent_service_events"
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
    })
  )
}).pipe(Effect.mapError(logError("cannot create the event log")))

/**
 * The bus observer that appends the events of this process's workflow runs.
 * The kernel's events carry the run id (`<session>/run-<n>`) only on
 * `run_started` and `run_ended`, so the session of the other events is
 * looked up by the workflow execution that publishes them.
 */
const appender = (sql: SqlClient.SqlClient, runner: string): EventBus.Observer => {
  // The session of each execution running here, from its `run_started` to its `run_ended`.
  const sessions = new Map<string, string>()
  const append = (sessionId: string, event: KernelEvent.KernelEvent) =>
    Effect.flatMap(
      encodeEvent(event),
      (json) =>
        sql`WITH appended AS (
          INSERT INTO ${sql(table)} (session_id, runner, event) VALUES (${sessionId}, ${runner}, ${json})
          RETURNING session_id
        ) SELECT pg_notify(${channel}, session_id) FROM appended`
    )
  return {
    onEvent: (event) =>
      // The publishing fiber is the run's own: a workflow body has its `WorkflowInstance` in context.
      Effect.contextWith((context: Context.Context<never>) => {
        const instance = Context.getOption(context, WorkflowEngine.WorkflowInstance)
        if (Option.isNone(instance)) return Effect.void
        const executionId = instance.value.executionId
        if (event.type === "run_started") {
          Option.map(Events.sessionOfRunId(event.run_id), (session) => sessions.set(executionId, session))
        }
        const session = sessions.get(executionId)
        if (event.type === "run_ended") sessions.delete(executionId)
        if (session === undefined) return Effect.logWarning(`event log: no session for execution ${executionId}`)
        // The bus logs an observer's failure too; this one says which log it was.
        return Effect.catch(Effect.asVoid(append(session, event)), (error) =>
          Effect.logWarning(`event log: cannot append an event of ${session}: ${error.message}`)
        )
      })
  }
}

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
    const rowsAfter = (sessionId: string, after: number) =>
      pg`SELECT seq::text AS seq, runner, event FROM ${pg(table)}
        WHERE session_id = ${sessionId} AND seq > ${after} ORDER BY ${pg(table)}.seq LIMIT 500`.pipe(
        Effect.flatMap(decodeRows),
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
    return [service, EventBus.of([appender(pg, options.runner)])] as const
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
