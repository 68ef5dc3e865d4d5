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
  EventBus,
  KernelEvent,
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
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as DurableDeferred from "effect/workflow/DurableDeferred"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import * as AgentRun from "./AgentRun.js"
import * as Engine from "./Engine.js"
import * as EventLog from "./EventLog.js"
import * as SqlEngineInternal from "./internal/sqlEngine.js"
import * as Store from "./internal/store.js"
import { sqlReason } from "./internal/storeFile.js"
import * as EventLogInternal from "./internal/eventLog.js"
import * as Journal from "./internal/journal.js"
import * as LiveSessions from "./internal/liveSessions.js"
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
  /**
   * The session retry budget used, over all its runs: an unfinished run's retries included as they
   * happen (a run whose process was killed after a retry counts it).
   */
  readonly retries_used: number
  /** Messages in the history after the last run that ended. */
  readonly messages: number
  readonly updated_at: number
  /** Whether the session has an unfinished run (its status is `running`, or `paused`). */
  readonly unfinished: boolean
  /**
   * Whether a live process holds the unfinished run now: it runs it, or will resume it (the store's
   * owner: this process, for the service's own list). `false` when there is no unfinished run.
   */
  readonly live: boolean
  /** An unfinished run no live process holds (a crash or a kill left it): `resume` finishes it. Never a paused one. */
  readonly resumable: boolean
  /** How the last run that ended ended; `null` while a run is unfinished, and before any ended. */
  readonly run_status: string | null
  /** The session budget's retries left when its last run ended; `null` when the store cannot tell. */
  readonly retries_left: number | null
  /** The sequence number of the session's last logged event (see `EventLog`); 0 for none. */
  readonly last_seq: number
  /** The time of the session's last logged event or store write, in epoch milliseconds. */
  readonly last_activity: number
  /** Why and since when its unfinished run is paused (status `paused`); `null` when it is not. */
  readonly paused: Paused | null
}

/**
 * A paused run (see `Settings.OnExhausted`), as the store records it: the
 * status it would have ended with, the error, since when, and when a runner
 * resumes it.
 *
 * @since 0.6.0
 * @category models
 */
export interface Paused {
  /** The status the run would have ended with: `retries_exhausted`, `retry_budget_exhausted` or `quota_exceeded`. */
  readonly reason: string
  readonly error: KernelEvent.ErrorSummary | null
  /** When it paused (epoch milliseconds). */
  readonly paused_at: number
  /** When a runner resumes it (epoch milliseconds); `null`: only a caller does (`resume`). */
  readonly resume_at: number | null
}

/**
 * How `resume` continues a paused run.
 *
 * @since 0.6.0
 * @category models
 */
export interface ResumeOptions {
  /**
   * Start the session's retry budget and the paused call's retries again. Default `false`: the
   * retries used stay used, and a run paused on an exhausted budget pauses again at its next failure.
   */
  readonly reset_budget?: boolean | undefined
}

/**
 * Where a session is, as `page` filters sessions: `running` (an unfinished
 * run a live process holds), `resumable` (one none holds), `paused` (an
 * unfinished run paused, see `Paused`), `completed`,
 * `interrupted`, `failed` (its last run ended with another status), `new`
 * (no run has ended yet, or it was imported).
 *
 * @since 0.5.0
 * @category models
 */
export type Activity = Store.Activity

/**
 * A page of sessions to read: newest update first (then by id).
 *
 * @since 0.5.0
 * @category models
 */
export interface PageQuery {
  /** Keeps the sessions whose id contains this text, ignoring case. */
  readonly search?: string | undefined
  /** Keeps the sessions in this state. */
  readonly activity?: Activity | undefined
  /** How many matching sessions to skip. Default 0. */
  readonly offset?: number | undefined
  /** How many to return at most. Default 50. */
  readonly limit?: number | undefined
}

/**
 * A page of sessions, with how many match in all.
 *
 * @since 0.5.0
 * @category models
 */
export interface Page {
  readonly total: number
  readonly sessions: ReadonlyArray<Summary>
}

/**
 * A session's unfinished run, as its journal and log tell it.
 *
 * @since 0.5.0
 * @category models
 */
export interface Unfinished {
  /** The run's number in the session, from 1. */
  readonly run: number
  /** The kernel's run id (`<session>/run-<n>`). */
  readonly run_id: string
  /** The text of the run's input. */
  readonly input: string
  /** When the run began (epoch milliseconds). */
  readonly began_at: number
  /** The turn it is in, as its log says (0 before its first). */
  readonly turn: number
  /** Model attempts and tool calls completed and journaled (on the light engine and the cluster engine with `Engine.clusterSteps`). */
  readonly model_calls: number
  readonly tool_calls: number
  /** The session retry budget used, this run's retries included. */
  readonly retries_used: number
  /** The deadline of the retry wait the run is in (epoch milliseconds); `null` when it is in none. */
  readonly waiting_until: number | null
  /** The run's last logged event; `null` for none. */
  readonly last_event: EventLog.LoggedEvent | null
  /** Whether a live process holds the run now (see `Summary.live`). */
  readonly live: boolean
  /** Why and since when the run is paused; `null` when it is not. */
  readonly paused: Paused | null
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
 * `resume` was asked to reset the retry budget (`ResumeOptions.reset_budget`)
 * of a session whose unfinished run is not paused (a stopped process left
 * it, or a live one runs it), or that has no unfinished run (`run` is then
 * `null`). The budget is reset only for a paused run; nothing was resumed.
 *
 * @since 0.6.0
 * @category errors
 */
export class NotPaused extends Schema.TaggedError<NotPaused>("@agent-kernel/durable/NotPaused")("NotPaused", {
  session_id: Schema.String,
  run: Schema.NullOr(Schema.Number)
}) {
  /** @since 0.6.0 */
  override get message(): string {
    const which =
      this.run === null
        ? `the session "${this.session_id}" has no unfinished run`
        : `run ${this.run} of the session "${this.session_id}" is unfinished but not paused`
    return `${which}: reset_budget resets the retry budget of a paused run only; nothing was resumed`
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
   * the caller ends the run `interrupted` (see `AgentRun.stop`). A run that
   * pauses (`on_exhausted: pause` in this service's settings, which every
   * process of a store shares) gives an outcome of status `paused` within a
   * second of its pause (`AgentRun.pauseOf`), and stays unfinished, for `resume`.
   */
  readonly run: (
    id: string,
    input: string | Content.Message
  ) => Effect.Effect<RunOutcome.RunOutcome, RunPending | Store.StoreError | SqlEngine.JournalError>
  /**
   * Finishes the session's unfinished run, if it has one (waking it when it is suspended on a journal
   * failure); `None` if it has none. A run its caller stopped whose stop's record failed ends now, its
   * stop recorded (`AgentRun.recordStopAgain`). A paused run goes on from its pause (`run_resumed`,
   * then the paused call's next attempt), nothing it completed sent or run again, its retry budget as
   * it was unless `options.reset_budget` says to start it again; a run that pauses again gives an
   * outcome of status `paused`. `options.reset_budget` for a session whose run is not paused (or
   * that has none) fails with `NotPaused`, before anything is resumed.
   */
  readonly resume: (
    id: string,
    options?: ResumeOptions
  ) => Effect.Effect<Option.Option<RunOutcome.RunOutcome>, NotPaused | Store.StoreError | SqlEngine.JournalError>
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
  /** A page of the store's sessions (see `DurableSessions.page`); this process holds their unfinished runs. */
  readonly page: (query?: PageQuery) => Effect.Effect<Page, Store.StoreError>
  /** The session's unfinished run (see `DurableSessions.unfinished`). */
  readonly unfinished: (id: string) => Effect.Effect<Option.Option<Unfinished>, Store.StoreError>
  /**
   * Stops the session's unfinished run as its caller's Ctrl-C does (the run ends `interrupted`, its
   * tool calls in flight answered), and returns once it has ended (5 s at most); a run this process
   * does not run is asked to stop (`DurableSessions.requestStop`). Whether there was a run to stop.
   */
  readonly interrupt: (id: string) => Effect.Effect<boolean, SessionNotFound | Store.StoreError>
  /**
   * The session's history: as its run in this process has it now (after the run's last completed
   * step), else as the store holds it (after its last run that ended). `SessionNotFound` for none.
   */
  readonly history: (id: string) => Effect.Effect<Content.History, SessionNotFound | Store.StoreError>
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

/** A session's summary from its listed row; `held`: whether a live process holds the store's unfinished runs. */
const summaryOf =
  (held: boolean) =>
  (row: Store.Listed): Summary => {
    const unfinished = row.pending !== null
    const paused = pausedOf(row)
    return {
      id: row.id,
      status: row.status,
      runs: row.run_index,
      retries_used: row.retries_used,
      messages: row.state?.history.length ?? 0,
      updated_at: row.updated_at,
      unfinished,
      live: unfinished && held && paused === null,
      resumable: unfinished && !held && paused === null,
      run_status: unfinished || row.status === "new" || row.status === "imported" ? null : row.status,
      retries_left: row.retries_left ?? null,
      last_seq: row.last_seq ?? 0,
      last_activity: Math.max(row.updated_at, row.last_at ?? 0),
      paused
    }
  }

/** A session row's paused run; `null` when its run is not paused. */
const pausedOf = (row: Store.Row): Paused | null =>
  row.pending === null || row.status !== "paused" || row.paused_at === null || row.paused_at === undefined
    ? null
    : {
        reason: row.paused_reason ?? "paused",
        error:
          row.paused_error === null || row.paused_error === undefined ? null : KernelEvent.summarize(row.paused_error),
        paused_at: row.paused_at,
        resume_at: row.resume_at ?? null
      }

/** `query` with its defaults, and whether a live process holds the unfinished runs. */
const pageOf = (query: PageQuery, held: boolean) => ({
  search: query.search,
  activity: query.activity,
  offset: query.offset ?? 0,
  limit: query.limit ?? 50,
  live: held
})

/**
 * The sessions of the store in context, by last update. Needs no engine.
 *
 * @since 0.1.0
 * @category accessors
 */
export const summaries: Effect.Effect<ReadonlyArray<Summary>, Store.StoreError, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const held = yield* Store.heldElsewhere
    return (yield* Store.list).map(summaryOf(held))
  }
)

/**
 * A page of the sessions of the store in context (see `PageQuery`), fast on
 * a store of many (an index on the last update; the sessions' states are
 * read for the page's rows only). Needs no engine.
 *
 * @since 0.5.0
 * @category accessors
 */
export const page = (query: PageQuery = {}): Effect.Effect<Page, Store.StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const held = yield* Store.heldElsewhere
    const found = yield* Store.page(pageOf(query, held))
    return { total: found.total, sessions: found.rows.map(summaryOf(held)) }
  })

/**
 * The unfinished run of the session `id` as its journal and log tell it
 * (which run, its input, the turn it is in, what it completed, a retry wait
 * it is in); `None` when it has none. Needs no engine.
 *
 * @since 0.5.0
 * @category accessors
 */
export const unfinished = (
  id: string
): Effect.Effect<Option.Option<Unfinished>, Store.StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const row = yield* Store.get(id)
    if (Option.isNone(row) || row.value.pending === null) return Option.none()
    const { run_index: run, pending: input, updated_at: began_at, retries_used, life } = row.value
    const payload = { session_id: id, ...lifeOf(life), run, input }
    const progress = yield* Store.progress(id, yield* AgentRun.AgentRun.executionId(payload))
    const turn = yield* EventLogInternal.latest(id, run, ["turn_started"])
    const last = yield* EventLogInternal.latest(id, run)
    return Option.some({
      run,
      run_id: `${id}/run-${run}`,
      input: Content.textOf(input),
      began_at,
      turn: Option.match(turn, { onNone: () => 0, onSome: ({ event }) => ("turn" in event ? event.turn : 0) }),
      model_calls: progress.modelCalls,
      tool_calls: progress.toolCalls,
      retries_used,
      waiting_until: progress.waitingUntil,
      last_event: Option.getOrNull(last),
      live: yield* Store.heldElsewhere,
      paused: pausedOf(row.value)
    })
  })

/**
 * Asks the process that runs the session `id`'s unfinished run (the store's
 * owner, another process included) to stop it as its caller's Ctrl-C does:
 * it sees the request within a second (`DurableSessions.layer` watches for
 * it), and the run ends `interrupted`, its tool calls in flight answered,
 * its `run_ended` in the log. Whether there was an unfinished run to stop;
 * `SessionNotFound` for no session. Needs no engine.
 *
 * @since 0.5.0
 * @category accessors
 */
export const requestStop = (
  id: string
): Effect.Effect<boolean, SessionNotFound | Store.StoreError, SqlClient.SqlClient> =>
  Effect.flatMap(
    Effect.flatMap(Clock.currentTimeMillis, (at) => Store.requestStop(id, at)),
    Option.match({ onNone: () => Effect.fail(new SessionNotFound({ session_id: id })), onSome: Effect.succeed })
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

/** The durable deferred the session row `row` records its run paused at; `undefined` when it is not paused. */
const pausedStep = (row: Store.Row): string | undefined =>
  row.pending !== null && row.status === "paused" && row.paused_step !== null ? row.paused_step : undefined

/**
 * Continues the paused run `payload`, if the session row `row` says it is
 * paused: the pause's durable deferred is completed with the resume
 * (`reset_budget`, and when), which wakes the run on every engine (the
 * first completion wins), then the store records it running again unless it
 * has paused again meanwhile. Whether this call set it running.
 */
const continuePaused = (
  payload: AgentRun.Payload,
  row: Store.Row,
  resetBudget: boolean
): Effect.Effect<boolean, Store.StoreError, SqlClient.SqlClient | WorkflowEngine.WorkflowEngine> =>
  Effect.gen(function* () {
    const step = pausedStep(row)
    if (step === undefined) return false
    const at = yield* Clock.currentTimeMillis
    const deferred = Journal.pauseDeferred(step)
    const executionId = yield* AgentRun.AgentRun.executionId(payload)
    // The deferred first: its first completion wins, and a row said running whose run never woke would
    // wait for ever. The row is then set running only if it is still paused there (not paused again).
    yield* DurableDeferred.done(deferred, {
      token: DurableDeferred.tokenFromExecutionId(deferred, { workflow: AgentRun.AgentRun, executionId }),
      exit: Exit.succeed({ reset_budget: resetBudget, at })
    })
    return yield* Store.resumed(payload, step, at)
  })

/** The payload of the unfinished run the session row `row` records. */
const payloadOf = (row: Store.Row, input: Content.Message): AgentRun.Payload => ({
  session_id: row.id,
  ...lifeOf(row.life),
  run: row.run_index,
  input
})

/**
 * Continues every paused run of the store in context whose `resume_at`
 * (see `Settings.pause_resume_after_ms`) has come, as `resume` would
 * without a reset, and without waiting for them: the engine runs each where
 * it runs its sessions (on a cluster, the runner that holds its shard).
 * Returns the sessions it resumed. A run two callers resume at once is
 * resumed once; one that fails to resume (its row does not read) is logged
 * and left paused. `Runner.layer` of `@agent-kernel/cluster` calls it on a
 * schedule.
 *
 * @example
 * ```ts
 * import { DurableSessions } from "@agent-kernel/durable"
 * import { Effect, Schedule } from "effect"
 *
 * // In a process whose layer has the store's engine: resume what is due, every minute.
 * const resuming = Effect.repeat(Effect.ignore(DurableSessions.resumeDue), Schedule.spaced("1 minute"))
 * ```
 *
 * @since 0.6.0
 * @category accessors
 */
export const resumeDue: Effect.Effect<
  ReadonlyArray<string>,
  Store.StoreError,
  SqlClient.SqlClient | WorkflowEngine.WorkflowEngine
> = Effect.gen(function* () {
  const now = yield* Clock.currentTimeMillis
  const due = yield* Store.resumesDue(now)
  const resumed = yield* Effect.forEach(due, (id) => resumeIfDue(id, now))
  return due.filter((_, i) => resumed[i] === true)
})

/**
 * Continues the paused run of session `id` if its `resume_at` is at or
 * before `now`; whether this call did. A session that fails to (its row
 * does not read) is logged and left paused, so that it holds back no other.
 */
const resumeIfDue = (
  id: string,
  now: number
): Effect.Effect<boolean, never, SqlClient.SqlClient | WorkflowEngine.WorkflowEngine> =>
  Effect.flatMap(Store.get(id), (row) => {
    if (Option.isNone(row) || row.value.pending === null) return Effect.succeed(false)
    const { pending, resume_at } = row.value
    return resume_at === null || resume_at === undefined || resume_at > now
      ? Effect.succeed(false)
      : continuePaused(payloadOf(row.value, pending), row.value, false)
  }).pipe(
    Effect.catch((error) =>
      Effect.as(Effect.logWarning(`the paused run of the session "${id}" was not resumed: ${error.message}`), false)
    )
  )

/** How often the stops other processes ask for are looked for (`requestStop`), in the system's time. */
const stopWatchInterval = 500

/**
 * Stops, for the life of the scope, the runs of this process that another
 * process asked to stop (`requestStop`): looked for while this process runs
 * any, every `stopWatchInterval` of the system's time (a process's request
 * is no decision of a run), its failures left to the next look.
 */
const watchStopRequests = (
  context: Context.Context<WorkflowEngine.WorkflowEngine | SqlClient.SqlClient | AgentRun.Bodies>
) =>
  Effect.forkScoped(
    Effect.forever(
      Effect.andThen(
        Effect.sleep(stopWatchInterval).pipe(Effect.provideService(Clock.Clock, Clock.Clock.defaultValue())),
        Effect.ignore(
          Effect.gen(function* () {
            const bodies = yield* AgentRun.Bodies
            if (bodies.size === 0) return
            const asked = yield* Store.stopsRequested
            yield* Effect.forEach(
              asked,
              (id) =>
                Effect.gen(function* () {
                  const payload = yield* pending(id)
                  if (Option.isNone(payload)) return
                  const executionId = yield* AgentRun.AgentRun.executionId(payload.value)
                  if (bodies.has(executionId)) yield* AgentRun.stop(executionId)
                }),
              { concurrency: "unbounded", discard: true }
            )
          }).pipe(Effect.provideContext(context))
        )
      )
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
  WorkflowEngine.WorkflowEngine | SqlClient.SqlClient | AgentRun.Bodies | AgentRun.RunConfig | Scope.Scope
> = Effect.gen(function* () {
  const config = yield* AgentRun.RunConfig
  const subscriptions = yield* Subscriptions.Subscriptions
  const live = yield* LiveSessions.LiveSessions
  // The engine's services only: the caller's own (its Clock, its tracer) stay the caller's.
  const context = Context.pick(
    WorkflowEngine.WorkflowEngine,
    SqlClient.SqlClient,
    AgentRun.Bodies,
    Store.StoreSql,
    Store.StoreCheck,
    Engine.Journal
  )(yield* Effect.context<WorkflowEngine.WorkflowEngine | SqlClient.SqlClient | AgentRun.Bodies>())
  // This process owns the store and runs its unfinished runs: its own lists say so.
  const ownerContext = Context.add(context, Store.Liveness, Option.some(Effect.succeed(true)))
  // A stop recorded again tells the run's observers and subscribers of its end.
  const stopContext = context.pipe(
    Context.add(EventBus.EventBus, yield* EventBus.EventBus),
    Context.add(Subscriptions.Subscriptions, subscriptions)
  )
  yield* watchStopRequests(context)
  // An interrupted caller (Ctrl-C) ends the run: its body records the interrupted run first. A run whose body
  // suspended on a journal failure (on engines that would journal one as a result, see
  // `AgentRun.journalFailure`; never on the light engine) fails its caller with it, unfinished: that end of
  // the wait is no stop. A caller that was not interrupted but whose run ended interrupted (another caller of
  // it stopped it; the engines answer an interruption or, on a cluster, the stopped body's outcome) learns
  // from the store that the run was stopped, as on every engine: `AgentRun.stoppedOutcome`.
  // Only runs that may pause have their row looked at for a pause: with `on_exhausted: fail` none is.
  const pausing = (config.settings ?? Settings.defaults).on_exhausted === "pause"
  const execute = (payload: AgentRun.Payload) =>
    Effect.provideContext(
      Effect.flatMap(AgentRun.AgentRun.executionId(payload), (executionId) => {
        const outcome = Effect.raceFirst(AgentRun.AgentRun.execute(payload), AgentRun.journalFailure(executionId))
        return (pausing ? Effect.raceFirst(outcome, AgentRun.pauseOf(payload)) : outcome).pipe(
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
      }),
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
        Effect.provideContext(AgentRun.recordStopAgain(payload), stopContext)
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
    resume: (id, options) =>
      Effect.flatMap(
        Effect.provideContext(Store.get(id), context),
        (
          row
        ): Effect.Effect<
          Option.Option<RunOutcome.RunOutcome>,
          NotPaused | Store.StoreError | SqlEngine.JournalError
        > => {
          // A reset asked of no paused run is refused: silently resuming without it would spend a budget kept.
          if (options?.reset_budget === true && (Option.isNone(row) || pausedStep(row.value) === undefined)) {
            const run = Option.isSome(row) && row.value.pending !== null ? row.value.run_index : null
            return Effect.fail(new NotPaused({ session_id: id, run }))
          }
          if (Option.isNone(row) || row.value.pending === null) return Effect.succeedNone
          const payload = payloadOf(row.value, row.value.pending)
          // A paused run goes on once its pause's deferred is completed (the engine wakes it then).
          const unpause = Effect.provideContext(
            continuePaused(payload, row.value, options?.reset_budget === true),
            context
          )
          // A run suspended on a journal failure (see `AgentRun.suspendedOn`) waits to be run again: nothing else
          // wakes it. (The light engine suspends none: it resumes an unfinished run by executing it.)
          const wake = Effect.flatMap(AgentRun.AgentRun.executionId(payload), (executionId) =>
            Effect.flatMap(AgentRun.suspendedNowOn(executionId), (failure) =>
              Option.isSome(failure) ? AgentRun.AgentRun.resume(executionId) : Effect.void
            )
          )
          return unpause.pipe(
            Effect.andThen(Effect.provideContext(wake, context)),
            Effect.andThen(Effect.asSome(execute(payload)))
          )
        }
      ),
    state: (id) => Effect.provideContext(read(id), context),
    list: Effect.provideContext(summaries, ownerContext),
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
    runs: (id) => Effect.provideContext(EventLog.runs(id), context),
    page: (query) => Effect.provideContext(page(query), ownerContext),
    unfinished: (id) => Effect.provideContext(unfinished(id), ownerContext),
    interrupt: (id) =>
      Effect.gen(function* () {
        const payload = yield* Effect.provideContext(pending(id), context)
        if (Option.isNone(payload)) {
          // No unfinished run: SessionNotFound for no session.
          yield* found(id)
          return false
        }
        const executionId = yield* AgentRun.AgentRun.executionId(payload.value)
        const bodies = yield* Effect.provideContext(AgentRun.Bodies, context)
        if (!bodies.has(executionId)) return yield* Effect.provideContext(requestStop(id), context)
        yield* Effect.provideContext(AgentRun.stop(executionId), context)
        return true
      }),
    history: (id) =>
      Effect.gen(function* () {
        const running = live.get(id)
        if (running !== undefined) return (yield* running).history
        const row = yield* found(id)
        return row.state?.history ?? []
      })
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
    Layer.provide(Layer.sync(Subscriptions.Subscriptions, () => Subscriptions.make(config.subscriberCapacity))),
    Layer.provide(Layer.sync(LiveSessions.LiveSessions, () => new Map()))
  )
