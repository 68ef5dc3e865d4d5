/**
 * Durable sessions: sessions kept in a store by id, whose runs are `AgentRun`
 * workflows. A process killed in the middle of a run resumes it from the
 * journal: no completed model call is sent again, no completed tool call is
 * run again, a tool call in flight gets an error result (unless the tool is
 * idempotent), a retry wait ends at its journaled deadline, and the session's
 * retry budget carries on where it was.
 *
 * @example
 * ```ts
 * import { DurableSessions, Engine } from "@agent-kernel/durable"
 * import { ModelProvider } from "@agent-kernel/kernel"
 * import { Effect, Layer } from "effect"
 *
 * declare const provider: ModelProvider.Service
 *
 * const program = Effect.gen(function* () {
 *   const sessions = yield* DurableSessions.DurableSessions
 *   // Finish a run a crash interrupted, then take the next input.
 *   yield* sessions.resume("support-42")
 *   const outcome = yield* sessions.run("support-42", "What changed since yesterday?")
 *   console.log(outcome.status, outcome.final_text)
 * })
 *
 * const live = DurableSessions.layer({ model: "claude-sonnet-4-5" }).pipe(
 *   Layer.provideMerge(Engine.layerSqlite("agent.db")),
 *   Layer.provide(Layer.succeed(ModelProvider.ModelProvider, provider))
 * )
 * Effect.runPromise(Effect.provide(program, live))
 * ```
 *
 * @since 0.1.0
 */
import {
  Content,
  type KernelEvent,
  type ModelProvider,
  RetryBudget,
  type RunOutcome,
  Session,
  Settings
} from "@agent-kernel/kernel"
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import * as AgentRun from "./AgentRun.js"
import * as Engine from "./Engine.js"
import * as EventLog from "./EventLog.js"
import * as SqlEngineInternal from "./internal/sqlEngine.js"
import * as Store from "./internal/store.js"
import { sqlReason } from "./internal/storeFile.js"
import * as Subscriptions from "./internal/subscriptions.js"
import type * as SqlEngine from "./SqlEngine.js"

/**
 * A session as the store lists it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly id: string
  /** `running` while a run is in progress (or was, when its process stopped), else the last run's status. */
  readonly status: string
  /** Runs started. */
  readonly runs: number
  /** The session retry budget used, over all its runs. */
  readonly retries_used: number
  /** Messages in the history after the last run that ended. */
  readonly messages: number
  readonly updated_at: number
}

/**
 * The portable form of a session: its id and its whole state. Export one
 * store's session and import it into another.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Export = Schema.Struct({
  format: Schema.Literal("agent-kernel/session@1"),
  id: Schema.String,
  state: Session.State
})

/**
 * @since 0.1.0
 * @category models
 */
export interface Export extends Readonly<typeof Export.Type> {}

const ExportJson = Schema.fromJsonString(Schema.toCodecJson(Export))

/**
 * The session has a run in progress (or one a stopped process left): resume
 * it before sending a new input.
 *
 * @since 0.1.0
 * @category errors
 */
export class RunPending extends Schema.TaggedError<RunPending>("@agent-kernel/durable/RunPending")("RunPending", {
  session_id: Schema.String,
  run: Schema.Number
}) {
  /** @since 0.1.0 */
  override get message(): string {
    return `the session "${this.session_id}" has an unfinished run (run ${this.run}): resume it first`
  }
}

/**
 * No session has this id.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionNotFound extends Schema.TaggedError<SessionNotFound>("@agent-kernel/durable/SessionNotFound")(
  "SessionNotFound",
  { session_id: Schema.String }
) {
  /** @since 0.1.0 */
  override get message(): string {
    return `no session "${this.session_id}" in the store`
  }
}

/**
 * The store already has a session of this id (`DurableSessions.create`).
 *
 * @since 0.5.0
 * @category errors
 */
export class SessionExists extends Schema.TaggedError<SessionExists>("@agent-kernel/durable/SessionExists")(
  "SessionExists",
  { session_id: Schema.String }
) {
  /** @since 0.5.0 */
  override get message(): string {
    return `the store already has a session "${this.session_id}"`
  }
}

/**
 * An exported session that does not decode.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidExport extends Schema.TaggedError<InvalidExport>("@agent-kernel/durable/InvalidExport")(
  "InvalidExport",
  { message: Schema.String }
) {}

/**
 * The durable sessions of a store.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * Runs one input through the session `id` (created when new), as the next
   * run of the session's workflow. Fails with `RunPending` if a run of it is
   * unfinished (or another caller's input began it meanwhile), and with `JournalError` if the store or the journal fails
   * under the run, which is then left unfinished, for `resume` (on the memory
   * and cluster engines the run is suspended on the failure, see
   * `AgentRun.suspendedOn`). Interrupting
   * the caller ends the run `interrupted` (see `AgentRun.stop`).
   */
  readonly run: (
    id: string,
    input: string | Content.Message
  ) => Effect.Effect<RunOutcome.RunOutcome, RunPending | Store.StoreError | SqlEngine.JournalError>
  /**
   * Finishes the session's unfinished run, if it has one (waking it when it is suspended on a journal
   * failure); `None` if it has none. A run its caller stopped whose stop's record failed ends now, its
   * stop recorded (`AgentRun.recordStopAgain`).
   */
  readonly resume: (
    id: string
  ) => Effect.Effect<Option.Option<RunOutcome.RunOutcome>, Store.StoreError | SqlEngine.JournalError>
  /** The session's state after its last finished run; `None` for no session, or none finished. */
  readonly state: (id: string) => Effect.Effect<Option.Option<Session.State>, Store.StoreError>
  readonly list: Effect.Effect<ReadonlyArray<Summary>, Store.StoreError>
  /** Deletes the session from the store, with the engine's journal of its runs. */
  readonly delete: (id: string) => Effect.Effect<void, Store.StoreError>
  /** The session as `Export`, Schema-encoded JSON. */
  readonly exportJson: (id: string) => Effect.Effect<string, SessionNotFound | Store.StoreError>
  /**
   * Imports an exported session, replacing one of the same id (and deleting
   * that one's journal); returns its id. Its runs go on from the exported
   * run count as new executions.
   */
  readonly importJson: (json: string) => Effect.Effect<string, InvalidExport | Store.StoreError>
  /**
   * Creates the session `id` as `Session.make` does from `history` or a whole
   * `state` (`state` first): its first run goes on from there. Fails with
   * `SessionExists` when the store has a session of that id.
   */
  readonly create: (
    id: string,
    from: { readonly history?: Content.History | undefined; readonly state?: Session.State | undefined }
  ) => Effect.Effect<void, SessionExists | Store.StoreError>
  /**
   * The session's events as its runs in this process publish them, from
   * now on, for the life of the scope: as `Session.subscribe`, across its
   * runs and their resumes (a resume's replayed steps are not published
   * again). A subscriber `AgentRun.Config.subscriberCapacity` events behind
   * holds the run up until it reads: read it on another fiber.
   */
  readonly subscribe: (id: string) => Effect.Effect<Stream.Stream<KernelEvent.KernelEvent>, never, Scope.Scope>
  /** The session's logged events that `query` asks for (see `EventLog.events`). */
  readonly events: (
    id: string,
    query?: EventLog.Query
  ) => Effect.Effect<ReadonlyArray<EventLog.LoggedEvent>, Store.StoreError>
  /** The session's logged events after `options.after`, then each new one as it is logged (see `EventLog.follow`). */
  readonly follow: (
    id: string,
    options?: EventLog.FollowOptions
  ) => Stream.Stream<EventLog.LoggedEvent, Store.StoreError>
  /** The session's runs as its log tells them (see `EventLog.runs`). */
  readonly runs: (id: string) => Effect.Effect<ReadonlyArray<EventLog.RunSummary>, Store.StoreError>
}

/**
 * The durable sessions service.
 *
 * @since 0.1.0
 * @category tags
 */
export class DurableSessions extends Context.Service<DurableSessions, Service>()(
  "@agent-kernel/durable/DurableSessions"
) {}

/** The first `JournalError` a cause died with. */
const journalErrorOf = (cause: Cause.Cause<unknown>) =>
  Arr.findFirst(cause.reasons, (reason) =>
    Cause.isDieReason(reason) ? SqlEngineInternal.asJournalError(reason.defect) : Option.none()
  )

/** The payload's life: none for a session made before lives existed. */
const lifeOf = (life: string | null): { readonly life?: string } => (life === null ? {} : { life })

const summaryOf = (row: Store.Row): Summary => ({
  id: row.id,
  status: row.status,
  runs: row.run_index,
  retries_used: row.retries_used,
  messages: row.state?.history.length ?? 0,
  updated_at: row.updated_at
})

/**
 * The sessions of the store in context, by last update. Needs no engine.
 *
 * @since 0.1.0
 * @category accessors
 */
export const summaries: Effect.Effect<ReadonlyArray<Summary>, Store.StoreError, SqlClient.SqlClient> = Effect.map(
  Store.list,
  (rows) => rows.map(summaryOf)
)

/**
 * The state of the session `id` in the store in context, after its last
 * finished (or interrupted) run; `None` for no session, or none yet. Needs no
 * engine.
 *
 * @since 0.1.0
 * @category accessors
 */
export const read = (id: string): Effect.Effect<Option.Option<Session.State>, Store.StoreError, SqlClient.SqlClient> =>
  Effect.map(
    Store.get(id),
    Option.flatMap((row) => Option.fromNullOr(row.state))
  )

/**
 * The unfinished run of the session `id` as the store holds it (the
 * workflow's payload: the session, its life, the run's number and input);
 * `None` when it has none. Needs no engine: read it before an engine's
 * layer is built, since registering the workflow resumes every unfinished
 * run of the store (the light engine does so at once).
 *
 * @since 0.5.0
 * @category accessors
 */
export const pending = (
  id: string
): Effect.Effect<Option.Option<AgentRun.Payload>, Store.StoreError, SqlClient.SqlClient> =>
  Effect.map(
    Store.get(id),
    Option.flatMap((row) =>
      row.pending === null
        ? Option.none()
        : Option.some({ session_id: id, ...lifeOf(row.life), run: row.run_index, input: row.pending })
    )
  )

/**
 * The service over the engine and store in context. Runs execute in the
 * `AgentRun` workflow registered by `layer`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<
  Service,
  never,
  WorkflowEngine.WorkflowEngine | SqlClient.SqlClient | AgentRun.Bodies | AgentRun.RunConfig
> = Effect.gen(function* () {
  const config = yield* AgentRun.RunConfig
  const subscriptions = yield* Subscriptions.Subscriptions
  // The engine's services only: the caller's own (its Clock, its tracer) stay the caller's.
  const context = Context.pick(
    WorkflowEngine.WorkflowEngine,
    SqlClient.SqlClient,
    AgentRun.Bodies,
    Store.StoreSql,
    Store.StoreCheck,
    Engine.Journal
  )(yield* Effect.context<WorkflowEngine.WorkflowEngine | SqlClient.SqlClient | AgentRun.Bodies>())
  // An interrupted caller (Ctrl-C) ends the run: its body records the interrupted run first. A run whose body
  // suspended on a journal failure (on engines that would journal one as a result, see
  // `AgentRun.journalFailure`; never on the light engine) fails its caller with it, unfinished: that end of
  // the wait is no stop. A caller that was not interrupted but whose run ended interrupted (another caller of
  // it stopped it; the engines answer an interruption or, on a cluster, the stopped body's outcome) learns
  // from the store that the run was stopped, as on every engine: `AgentRun.stoppedOutcome`.
  const execute = (payload: AgentRun.Payload) =>
    Effect.provideContext(
      Effect.flatMap(AgentRun.AgentRun.executionId(payload), (executionId) =>
        Effect.raceFirst(AgentRun.AgentRun.execute(payload), AgentRun.journalFailure(executionId)).pipe(
          Effect.onInterrupt(() => AgentRun.stop(executionId)),
          // Not run once this caller is interrupted (an interrupted fiber recovers from nothing).
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.flatMap(
                  AgentRun.outcomeIfOver(payload),
                  Option.match({ onNone: () => Effect.failCause(cause), onSome: Effect.succeed })
                )
              : Effect.failCause(cause)
          )
        )
      ),
      context
    ).pipe(
      // The engine's interface has no error channel: a journal failure reaches here as a defect.
      Effect.catchCause((cause) =>
        Option.match(journalErrorOf(cause), { onNone: () => Effect.failCause(cause), onSome: Effect.fail })
      ),
      // The run's caller stopped it but the stop's record failed: the memory and cluster engines keep that
      // failure as the run's result, answered to every later caller, and the session (its run unfinished)
      // would take no input again. The user did ask to stop: the stop is recorded now, and the run ends so.
      Effect.catchIf(SqlEngineInternal.isStopNotRecorded, () =>
        Effect.provideContext(AgentRun.recordStopAgain(payload), context)
      )
    )
  // The executions of a life's runs 1..runs (the id derives from the session, its life and the run alone).
  const executionsOf = (id: string, life: string | null, runs: number) =>
    Effect.forEach(Arr.range(1, runs), (run) =>
      AgentRun.AgentRun.executionId({ session_id: id, ...lifeOf(life), run, input: Content.userText("") })
    )
  // Deletes the session with the journal of its runs (the engine's rows and the tool-call claims). A
  // session from before lives that got one with a later run journaled its earlier runs without it: both.
  const remove = (id: string): Effect.Effect<void, Store.StoreError> =>
    Effect.gen(function* () {
      const row = yield* Effect.provideContext(Store.get(id), context)
      const ids =
        Option.isSome(row) && row.value.run_index > 0
          ? Arr.dedupe([
              ...(yield* executionsOf(id, row.value.life, row.value.run_index)),
              ...(yield* executionsOf(id, null, row.value.run_index))
            ])
          : []
      const journal = yield* Engine.Journal
      yield* Effect.provideContext(journal.purge(ids), context).pipe(
        Effect.mapError((error) =>
          Store.makeStoreError(sqlReason(error), `cannot delete the journal of the session "${id}": ${error.message}`)
        )
      )
      yield* Effect.provideContext(Store.remove(id, ids), context)
    })
  const found = (id: string) =>
    Effect.flatMap(
      Effect.provideContext(Store.get(id), context),
      Option.match({
        onNone: () => Effect.fail(new SessionNotFound({ session_id: id })),
        onSome: Effect.succeed
      })
    )
  return {
    run: (id, input) =>
      Effect.gen(function* () {
        const message = typeof input === "string" ? Content.userText(input) : input
        const row = yield* Effect.provideContext(Store.get(id), context)
        if (Option.isSome(row) && row.value.pending !== null) {
          return yield* new RunPending({ session_id: id, run: row.value.run_index })
        }
        const run = Option.match(row, { onNone: () => 1, onSome: (row) => row.run_index + 1 })
        const begun = yield* Effect.provideContext(
          Store.begin(id, run, message, yield* Clock.currentTimeMillis),
          context
        )
        // Another caller began this run first (two inputs at once): this input is not run.
        if (!begun.began) return yield* new RunPending({ session_id: id, run })
        return yield* execute({ session_id: id, ...lifeOf(begun.life), run, input: message })
      }),
    resume: (id) =>
      Effect.flatMap(Effect.provideContext(Store.get(id), context), (row) => {
        if (Option.isNone(row) || row.value.pending === null) return Effect.succeedNone
        const payload = {
          session_id: id,
          ...lifeOf(row.value.life),
          run: row.value.run_index,
          input: row.value.pending
        }
        // A run suspended on a journal failure (see `AgentRun.suspendedOn`) waits to be run again: nothing else
        // wakes it. (The light engine suspends none: it resumes an unfinished run by executing it.)
        const wake = Effect.flatMap(AgentRun.AgentRun.executionId(payload), (executionId) =>
          Effect.flatMap(AgentRun.suspendedNowOn(executionId), (failure) =>
            Option.isSome(failure) ? AgentRun.AgentRun.resume(executionId) : Effect.void
          )
        )
        return Effect.andThen(Effect.provideContext(wake, context), Effect.asSome(execute(payload)))
      }),
    state: (id) => Effect.provideContext(read(id), context),
    list: Effect.provideContext(summaries, context),
    delete: remove,
    exportJson: (id) =>
      Effect.flatMap(found(id), (row) =>
        row.state === null
          ? Effect.fail(new SessionNotFound({ session_id: id }))
          : Effect.orDie(Schema.encodeEffect(ExportJson)({ format: "agent-kernel/session@1", id, state: row.state }))
      ),
    importJson: (json) =>
      Schema.decodeUnknownEffect(ExportJson)(json).pipe(
        Effect.mapError((error) => new InvalidExport({ message: error.message })),
        Effect.flatMap((exported) =>
          Effect.gen(function* () {
            // The session it replaces goes with its journal, as on delete.
            yield* remove(exported.id)
            yield* Effect.provideContext(
              Store.put(exported.id, exported.state, yield* Clock.currentTimeMillis),
              context
            )
            return exported.id
          })
        )
      ),
    create: (id, from) =>
      Effect.gen(function* () {
        const history = from.history ?? []
        const budget = (yield* RetryBudget.RetryBudget).budgetFor(config.settings ?? Settings.defaults)
        const state: Session.State = from.state ?? {
          history,
          context: history,
          budget: budget.initial,
          runs: 0,
          run: null
        }
        const created = yield* Effect.provideContext(Store.create(id, state, yield* Clock.currentTimeMillis), context)
        if (!created) return yield* new SessionExists({ session_id: id })
      }),
    subscribe: (id) => Subscriptions.subscribe(subscriptions, id),
    events: (id, query) => Effect.provideContext(EventLog.events(id, query), context),
    follow: (id, options) => Stream.provideContext(EventLog.follow(id, options), context),
    runs: (id) => Effect.provideContext(EventLog.runs(id), context)
  } satisfies Service
})

/**
 * The service, with the `AgentRun` workflow registered for the runs of this
 * process. Provide an engine (`Engine.layerSqlite`, `Engine.layerSql`,
 * `Engine.layerMemory`) and a `ModelProvider`; `Toolbox`, `EventBus`,
 * `ContextProvider` and `RetryBudget` come from context as for any session.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  config: AgentRun.Config
): Layer.Layer<
  DurableSessions,
  never,
  WorkflowEngine.WorkflowEngine | SqlClient.SqlClient | ModelProvider.ModelProvider
> =>
  Layer.effect(DurableSessions, make).pipe(
    Layer.provideMerge(AgentRun.layer),
    Layer.provide(Layer.succeed(AgentRun.RunConfig, config)),
    Layer.provide(Layer.sync(AgentRun.Bodies, () => new Map())),
    Layer.provide(Layer.sync(Subscriptions.Subscriptions, () => Subscriptions.make(config.subscriberCapacity)))
  )
