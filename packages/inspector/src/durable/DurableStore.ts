/**
 * The inspector over the durable session store (`@agent-kernel/durable`):
 * an `InspectorStore` for the embedded SQLite store and for Postgres.
 *
 * - `layerSqlite(file)` reads a store file beside the process that owns it
 *   (a running `agent --session FILE`), taking no lock of the owner's: it
 *   sees that process's new events as they are logged, and asks it to stop
 *   a run (`DurableSessions.requestStop`). A missing file, a file that is no
 *   session store, or one deleted under it is `StoreUnavailable` with the
 *   store's own one-line message.
 * - `layer` reads the store of the `SqlClient` in context (Postgres: any pool
 *   of the cluster's database), the same way.
 * - `layerSessions` is the inspector inside the process that runs the
 *   sessions (the service's mount): it reads and acts through its
 *   `DurableSessions` service, so a running session's history is the one its
 *   run has now, and `resume` finishes a run here.
 *
 * A reader without the sessions' service runs no model unless given how
 * (`Options.resume`: `agent ui` with a provider takes the store's ownership,
 * which resumes every unfinished run of the store, and keeps it until they
 * have all ended); without it, its `resume` is refused, saying how to finish
 * the run (`Options.cannotResume`). On a cluster's store (effect/cluster's
 * `cluster_runners` beside the sessions') the runners hold every unfinished
 * run and resume a dead runner's themselves: a reader refuses every resume.
 *
 * @example
 * ```ts
 * import { ActionToken, Secrets } from "@agent-kernel/inspector"
 * import { DurableStore } from "@agent-kernel/inspector/durable"
 * import { InspectorServer } from "@agent-kernel/inspector/node"
 * import { Effect, Layer } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const token = yield* ActionToken.make
 *   const server = InspectorServer.layer({ token, secrets: Secrets.fromEnvironment(process.env) })
 *   yield* Layer.launch(server.pipe(Layer.provide(DurableStore.layerSqlite("agent.db"))))
 * })
 * ```
 *
 * @since 0.1.0
 */
import { DurableSessions, Engine, EventLog } from "@agent-kernel/durable"
import { type Content, KernelEvent } from "@agent-kernel/kernel"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as InspectorStore from "../InspectorStore.js"

/**
 * How the adapter reads and waits.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * How often a live view reads the log again when nothing new came: the
   * writes of another process are seen within it. Default 200 ms.
   */
  readonly pollInterval?: Duration.Input | undefined
  /**
   * How long `interrupt` waits for the stopped run's `run_ended` in the log
   * (the process that runs it looks for the request twice a second). Default
   * 10 seconds.
   */
  readonly stopTimeout?: Duration.Input | undefined
  /**
   * How long `resume` waits for the resumed run's first new event before it
   * returns anyway (the run goes on). Default 5 seconds.
   */
  readonly resumeWait?: Duration.Input | undefined
  /**
   * How a reader (`make`, `layer`, `layerSqlite`) finishes a session's
   * unfinished run itself, when a live process holds none: it takes the
   * store's ownership (the owner's lock and engine), which resumes every
   * unfinished run of the store, and lets go once they have all ended
   * (`agent ui` with a provider). `runs` are those runs, read before the
   * store is taken, `id`'s first. A failure before the run logs anything
   * (another process took the store meanwhile, say) refuses the resume with
   * its message. One batch at a time: while it runs, a resume is refused,
   * naming its runs (this process holds the store). Default: none, and
   * `resume` is refused, saying `cannotResume`.
   */
  readonly resume?: ((id: string, runs: ReadonlyArray<string>) => Effect.Effect<unknown, unknown>) | undefined
  /**
   * Why a reader without `resume` refuses to resume a run, and how to finish
   * it instead. Default: finish it with `agent --session FILE --resume`, or
   * in the process that owns the store.
   */
  readonly cannotResume?: string | undefined
}

/** Why a reader that cannot run a model refuses a resume, unless told otherwise. */
const readerCannotResume =
  "this inspector only reads the store: finish the run with `agent --session FILE --resume`, or in the process that owns the store"

/** What the adapter needs of the durable store: the engine-less reads, or the sessions' service. */
interface Durable {
  readonly page: (query: DurableSessions.PageQuery) => Effect.Effect<DurableSessions.Page, Engine.StoreError>
  readonly runs: (id: string) => Effect.Effect<ReadonlyArray<EventLog.RunSummary>, Engine.StoreError>
  readonly events: (
    id: string,
    query: EventLog.Query
  ) => Effect.Effect<ReadonlyArray<EventLog.LoggedEvent>, Engine.StoreError>
  readonly follow: (
    id: string,
    options: EventLog.FollowOptions
  ) => Stream.Stream<EventLog.LoggedEvent, Engine.StoreError>
  /** The stored history; `None` for a session with no state yet (or none). */
  readonly history: (
    id: string
  ) => Effect.Effect<Option.Option<Content.History>, DurableSessions.SessionNotFound | Engine.StoreError>
  /** Stops (or asks the owner to stop) the unfinished run; whether there was one. */
  readonly stop: (id: string) => Effect.Effect<boolean, DurableSessions.SessionNotFound | Engine.StoreError>
  /** Finishes the unfinished run in this process; `None` where this process cannot run one. */
  readonly resume: Option.Option<(id: string) => Effect.Effect<unknown, unknown>>
  /** Whether the sessions' runs are this process's own: a reader leaves a run another process holds to it. */
  readonly runsHere: boolean
  /** The runs this process is resuming now, if any: it resumes one batch at a time. */
  readonly resuming: Effect.Effect<Option.Option<ReadonlyArray<string>>>
  /** Whether the store is a cluster's, whose runners resume its runs (a dead runner's on a live one). */
  readonly clusterStore: Effect.Effect<boolean, InspectorStore.StoreUnavailable>
}

/** A failure's one line. */
const messageOf = (error: unknown): string =>
  Predicate.hasProperty(error, "message") ? String(error.message) : String(error)

const unavailable = (error: Engine.StoreError) => new InspectorStore.StoreUnavailable({ message: error.message })

/** Why a reader does not resume a run of a cluster's store. */
const clusterResumes = "runs of a cluster store are resumed by its runners: none runs here"

/** Why a reader does not resume a paused run of a cluster's store, and who does. */
const clusterResumesPaused =
  "a paused run of a cluster store is resumed by its runners at its resume_at, or by DurableSessions.resume in a process of the cluster: none runs here"

/** Whether the store of `sql` is a cluster's: effect/cluster's runners' table beside the sessions'. */
const isClusterStore = (sql: SqlClient.SqlClient) =>
  sql
    .onDialectOrElse({
      pg: () => sql`SELECT 1 AS found WHERE to_regclass('cluster_runners') IS NOT NULL`,
      orElse: () => sql`SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'cluster_runners'`
    })
    .pipe(
      Effect.map((rows) => rows.length > 0),
      Effect.mapError(
        (error) =>
          new InspectorStore.StoreUnavailable({
            message: `cannot tell whether the store is a cluster's: ${error.message}`
          })
      )
    )

/** A resume asked while this reader resumes another run (or the same one). */
class ResumeInProgress extends Data.TaggedError("ResumeInProgress")<{ readonly message: string }> {}

/** Why a resume is refused while this reader resumes `runs`. */
const resumeInProgressMessage = (runs: ReadonlyArray<string>): string =>
  runs.length === 1
    ? `this inspector is resuming the run of ${runs[0]}: it resumes one run at a time; try again when that one ends`
    : `this inspector is resuming the runs of ${runs.join(", ")} (taking the store resumes all its unfinished runs): try again when they end`

const resumeInProgress = (runs: ReadonlyArray<string>) =>
  new ResumeInProgress({ message: resumeInProgressMessage(runs) })

/**
 * A reader's resumes, one batch at a time: each takes the store's ownership for its runs, which a
 * second would find taken by this very process. `run` runs a resume if none is running, else fails
 * with `ResumeInProgress`; `resuming` is the runs being resumed.
 */
const oneAtATime = Effect.gen(function* () {
  const permit = yield* Semaphore.make(1)
  const current = yield* Ref.make(Option.none<ReadonlyArray<string>>())
  const run = <A, E>(
    runs: ReadonlyArray<string>,
    resume: Effect.Effect<A, E>
  ): Effect.Effect<A, E | ResumeInProgress> =>
    permit
      .withPermitsIfAvailable(1)(
        Effect.ensuring(Effect.andThen(Ref.set(current, Option.some(runs)), resume), Ref.set(current, Option.none()))
      )
      .pipe(
        Effect.flatMap(
          Option.match({
            onSome: Effect.succeed,
            onNone: () =>
              Effect.flatMap(Ref.get(current), (others) =>
                Effect.fail(resumeInProgress(Option.getOrElse(others, () => runs)))
              )
          })
        )
      )
  return { run, resuming: Ref.get(current) }
})

/** The batch a resume of `id` runs: `id`, then every other unfinished run of the store. */
const batchOf = (id: string, unfinished: ReadonlyArray<string>): ReadonlyArray<string> => [
  id,
  ...unfinished.filter((other) => other !== id)
]

/** `detect`'s first success, kept: a failure is tried again on the next call. */
const once = <A, E>(detect: Effect.Effect<A, E>) =>
  Effect.map(Ref.make(Option.none<A>()), (known) =>
    Effect.flatMap(
      Ref.get(known),
      Option.match({
        onSome: Effect.succeed,
        onNone: () => Effect.tap(detect, (found) => Ref.set(known, Option.some(found)))
      })
    )
  )

const notFound = (id: string) => new InspectorStore.SessionNotFound({ session_id: id })

const refused = (id: string, action: "resume" | "interrupt", reason: string) =>
  new InspectorStore.ActionRefused({ session_id: id, action, reason })

/** The store's errors as the inspector's. */
const inspectorError =
  (id: string) =>
  (
    error: DurableSessions.SessionNotFound | Engine.StoreError
  ): InspectorStore.SessionNotFound | InspectorStore.StoreUnavailable =>
    error._tag === "SessionNotFound" ? notFound(id) : unavailable(error)

const decodeRunStatus = Schema.decodeUnknownOption(KernelEvent.RunStatus)

/**
 * A session's status as the inspector shows it, from the store's summary: a
 * paused run is `paused`, a live unfinished run `running`, one no live
 * process holds `resumable`, else its last run's end (`new` before any).
 *
 * @since 0.1.0
 * @category mapping
 */
export const statusOf = (
  summary: DurableSessions.Summary
): { readonly status: InspectorStore.SessionStatus; readonly run_status: KernelEvent.RunStatus | null } => {
  if (summary.unfinished)
    return { status: summary.paused !== null ? "paused" : summary.live ? "running" : "resumable", run_status: null }
  const ended = Option.getOrNull(decodeRunStatus(summary.run_status))
  if (ended === null) return { status: "new", run_status: null }
  switch (ended) {
    case "completed":
      return { status: "completed", run_status: ended }
    case "interrupted":
      return { status: "interrupted", run_status: ended }
    default:
      return { status: "failed", run_status: ended }
  }
}

/**
 * The store's summary of a session as the sessions page lists it.
 *
 * @since 0.1.0
 * @category mapping
 */
export const summaryOf = (summary: DurableSessions.Summary): InspectorStore.SessionSummary => ({
  id: summary.id,
  ...statusOf(summary),
  runs: summary.runs,
  retries_used: summary.retries_used,
  retries_left: summary.retries_left,
  messages: summary.messages,
  last_activity: summary.last_activity,
  paused: summary.paused
})

/**
 * A run as the log tells it, as the inspector shows it.
 *
 * @since 0.1.0
 * @category mapping
 */
export const runOf = (run: EventLog.RunSummary): InspectorStore.RunSummary => ({
  run_id: run.run_id,
  index: run.run,
  model: run.model,
  input: run.input,
  status: run.status,
  started_at: run.started_at,
  ended_at: run.ended_at,
  first_seq: run.first_seq,
  last_seq: run.last_seq
})

const loggedOf = (logged: EventLog.LoggedEvent): InspectorStore.LoggedEvent => ({
  seq: logged.seq,
  event: logged.event
})

/** Sessions a lookup by id reads at a time (the page's search matches ids that contain it). */
const lookupPage = 200

/** The store's summary of the session `id`, searched by its id; `None` for no session. */
const findSummary = (durable: Durable, id: string) =>
  Effect.gen(function* () {
    for (let offset = 0; ; offset += lookupPage) {
      const page = yield* durable.page({ search: id, offset, limit: lookupPage })
      const found = page.sessions.find((summary) => summary.id === id)
      if (found !== undefined) return Option.some(found)
      if (offset + lookupPage >= page.total) return Option.none<DurableSessions.Summary>()
    }
  })

/** The ids of the store's unfinished runs that no live process holds. */
const resumableIds = (page: Durable["page"]) =>
  Effect.gen(function* () {
    const ids: Array<string> = []
    for (let offset = 0; ; offset += lookupPage) {
      const found = yield* page({ activity: "resumable", offset, limit: lookupPage })
      ids.push(...found.sessions.map((summary) => summary.id))
      if (offset + lookupPage >= found.total) return ids
    }
  })

/** Waits until the session's log holds a `run_ended` after `after`; `false` past `timeout`. */
const awaitRunEnd = (
  durable: Durable,
  id: string,
  after: number,
  interval: Duration.Duration,
  timeout: Duration.Duration
) =>
  durable.follow(id, { after, pollInterval: interval, omitDeltas: true }).pipe(
    Stream.filter((logged) => logged.event.type === "run_ended"),
    Stream.runHead,
    Effect.map(Option.isSome),
    Effect.timeoutOrElse({ duration: timeout, orElse: () => Effect.succeed(false) })
  )

/** The inspector's store over `durable`. */
const service = (durable: Durable, options: Options, scope: Scope.Scope): InspectorStore.Service => {
  const interval = Duration.fromInputUnsafe(options.pollInterval ?? "200 millis")
  const stopTimeout = Duration.fromInputUnsafe(options.stopTimeout ?? "10 seconds")
  const resumeWait = Duration.fromInputUnsafe(options.resumeWait ?? "5 seconds")
  const cannotResume = options.cannotResume ?? readerCannotResume
  const summary = (id: string) =>
    Effect.flatMap(
      Effect.mapError(findSummary(durable, id), unavailable),
      Option.match({
        onNone: () => Effect.fail(notFound(id)),
        onSome: Effect.succeed
      })
    )
  return {
    sessions: (query) =>
      durable.page({ search: query.search, activity: query.status, offset: query.offset, limit: query.limit }).pipe(
        Effect.map((page) => ({ total: page.total, sessions: page.sessions.map(summaryOf) })),
        Effect.mapError(unavailable)
      ),
    session: (id) =>
      Effect.gen(function* () {
        const found = yield* summary(id)
        const runs = yield* Effect.mapError(durable.runs(id), unavailable)
        // The unfinished run, the last, is the one a paused session's pause is of.
        return {
          summary: summaryOf(found),
          runs: runs.map((run, i) =>
            i === runs.length - 1 && run.status === null ? { ...runOf(run), paused: found.paused } : runOf(run)
          )
        }
      }),
    history: (id) =>
      Effect.flatMap(
        Effect.mapError(durable.history(id), inspectorError(id)),
        Option.match({
          // No state yet: an empty history, if the session is there.
          onNone: () => Effect.as(summary(id), []),
          onSome: Effect.succeed
        })
      ),
    events: (id, query) =>
      Effect.gen(function* () {
        const events = yield* Effect.mapError(
          durable.events(id, {
            after: query.after,
            until: query.until,
            limit: query.limit,
            omitDeltas: query.omitDeltas
          }),
          unavailable
        )
        // The log has no row for a session that is not there: only then is it looked for.
        if (events.length === 0) yield* summary(id)
        return events.map(loggedOf)
      }),
    follow: (id, after) =>
      Stream.unwrap(
        Effect.as(
          summary(id),
          durable.follow(id, { after, pollInterval: interval }).pipe(Stream.map(loggedOf), Stream.mapError(unavailable))
        )
      ),
    resume: (id) =>
      Effect.gen(function* () {
        const found = yield* summary(id)
        const { status } = statusOf(found)
        if (!found.unfinished) return yield* refused(id, "resume", `it has no unfinished run (it is ${status})`)
        if (yield* durable.clusterStore)
          return yield* refused(id, "resume", found.paused === null ? clusterResumes : clusterResumesPaused)
        // This process's own resume holds the store: it, not another process, is the one in the way.
        const resuming = yield* durable.resuming
        if (Option.isSome(resuming)) return yield* refused(id, "resume", resumeInProgress(resuming.value).message)
        if (found.live && !durable.runsHere) {
          return yield* refused(id, "resume", "the process that owns the store is running it")
        }
        if (Option.isNone(durable.resume)) return yield* refused(id, "resume", cannotResume)
        const run = yield* Effect.forkIn(Effect.exit(durable.resume.value(id)), scope)
        // Back once the run moves (or ends at once, or the wait is over): its events follow in the log.
        const moved = durable.follow(id, { after: found.last_seq, pollInterval: interval }).pipe(Stream.runHead)
        const ended = yield* Effect.raceFirst(
          Effect.as(Effect.ignore(moved), Option.none<Exit.Exit<unknown, unknown>>()),
          Effect.map(Fiber.join(run), Option.some)
        ).pipe(Effect.timeoutOrElse({ duration: resumeWait, orElse: () => Effect.succeedNone }))
        const failure = Option.flatMap(ended, Exit.findErrorOption)
        if (Option.isSome(failure)) return yield* refused(id, "resume", messageOf(failure.value))
      }),
    interrupt: (id) =>
      Effect.gen(function* () {
        const found = yield* summary(id)
        if (!found.unfinished || !found.live) {
          const { status } = statusOf(found)
          return yield* refused(id, "interrupt", `it has no run in progress (it is ${status})`)
        }
        const stopped = yield* Effect.mapError(durable.stop(id), inspectorError(id))
        if (!stopped) return yield* refused(id, "interrupt", "its run ended meanwhile")
        const ended = yield* Effect.mapError(
          awaitRunEnd(durable, id, found.last_seq, interval, stopTimeout),
          unavailable
        )
        if (!ended) {
          return yield* refused(
            id,
            "interrupt",
            `its run was asked to stop but has not ended within ${Duration.format(stopTimeout)}: is the process that runs it still alive?`
          )
        }
      })
  }
}

/**
 * The inspector's store over the durable store of the `SqlClient` in context,
 * as a reader: no engine, no owner's lock. Reads the sessions, their runs and
 * events (following them live), their stored history; `interrupt` asks the
 * process that runs the session to stop it (`DurableSessions.requestStop`)
 * and waits for its `run_ended`; `resume` finishes a run no live process
 * holds through `options.resume`, and is refused without it (a reader runs
 * no model of its own) and on a cluster's store (its runners resume its runs).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<InspectorStore.Service, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function* () {
    const context = yield* Effect.context<SqlClient.SqlClient>()
    const scope = yield* Effect.scope
    const clusterStore = yield* once(isClusterStore(Context.get(context, SqlClient.SqlClient)))
    const resumes = yield* oneAtATime
    const page: Durable["page"] = (query) => Effect.provideContext(DurableSessions.page(query), context)
    // Taking the store resumes every unfinished run of it: the resume is given them all, the guard names them all.
    const resumeBatch = (resume: NonNullable<Options["resume"]>) => (id: string) =>
      Effect.flatMap(resumableIds(page), (unfinished) => {
        const runs = batchOf(id, unfinished)
        return resumes.run(runs, resume(id, runs))
      })
    const durable: Durable = {
      page,
      runs: (id) => Effect.provideContext(EventLog.runs(id), context),
      events: (id, query) => Effect.provideContext(EventLog.events(id, query), context),
      follow: (id, follow) => Stream.provideContext(EventLog.follow(id, follow), context),
      history: (id) =>
        Effect.provideContext(
          Effect.map(
            DurableSessions.read(id),
            Option.map((state) => state.history)
          ),
          context
        ),
      stop: (id) => Effect.provideContext(DurableSessions.requestStop(id), context),
      resume: Option.map(Option.fromNullishOr(options.resume), resumeBatch),
      resuming: resumes.resuming,
      runsHere: false,
      clusterStore
    }
    return service(durable, options, scope)
  })

/**
 * The inspector's store over the `DurableSessions` service in context, in
 * the process that runs the sessions: a running session's history as its run
 * has it now, `interrupt` as the service's (Ctrl-C's stop, or a request to
 * the process that runs it), and `resume` finishing the run here, on a fiber
 * of the layer's scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSessions = (
  options: Options = {}
): Effect.Effect<InspectorStore.Service, never, DurableSessions.DurableSessions | Scope.Scope> =>
  Effect.gen(function* () {
    const sessions = yield* DurableSessions.DurableSessions
    const scope = yield* Effect.scope
    const durable: Durable = {
      page: sessions.page,
      runs: sessions.runs,
      events: sessions.events,
      follow: sessions.follow,
      history: (id) => Effect.map(sessions.history(id), Option.some),
      stop: sessions.interrupt,
      resume: Option.some(sessions.resume),
      // The service runs each session's runs itself, several at once.
      resuming: Effect.succeedNone,
      runsHere: true,
      // The process that runs the sessions resumes its own runs, on a runner too.
      clusterStore: Effect.succeed(false)
    }
    return service(durable, options, scope)
  })

/**
 * `make` as a layer: the durable store of the `SqlClient` in context (such as
 * a Postgres pool of the cluster's database), read beside its owner.
 *
 * @example
 * ```ts
 * import { DurableStore } from "@agent-kernel/inspector/durable"
 * import { PgClient } from "@effect/sql-pg"
 * import { Layer, Redacted } from "effect"
 *
 * const store = DurableStore.layer().pipe(
 *   Layer.provide(PgClient.layer({ url: Redacted.make(process.env.DATABASE_URL ?? "") }))
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<InspectorStore.InspectorStore, never, SqlClient.SqlClient> =>
  Layer.effect(InspectorStore.InspectorStore, make(options))

/**
 * `fromSessions` as a layer: the inspector inside the process that runs the
 * sessions.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSessions = (
  options: Options = {}
): Layer.Layer<InspectorStore.InspectorStore, never, DurableSessions.DurableSessions> =>
  Layer.effect(InspectorStore.InspectorStore, fromSessions(options))

/**
 * The embedded store's file `filename`, read beside the process that owns it
 * (`Engine.layerSqliteReader`): a missing file, one that is no session store
 * (or of another version) or one that cannot be read fails the layer with
 * `StoreUnavailable`, whose message is the store's one line.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (
  filename: string,
  options: Options = {}
): Layer.Layer<InspectorStore.InspectorStore, InspectorStore.StoreUnavailable> =>
  layer(options).pipe(
    Layer.provide(Engine.layerSqliteReader(filename)),
    Layer.catchTag("StoreError", (error) => Layer.effectContext(Effect.fail(unavailable(error))))
  )
