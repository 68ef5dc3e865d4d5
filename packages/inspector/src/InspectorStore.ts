/**
 * What the inspector reads and does: the sessions of a store, a session's
 * runs and its history, a run's kernel events by their sequence number, a live
 * subscription to a session's events, and the two actions, resume and
 * interrupt. The inspector's pages and API are built on this service alone,
 * so any store can be inspected by implementing it: the in-memory store of
 * `@agent-kernel/inspector/testing`, or an adapter over the durable session
 * store (embedded or Postgres).
 *
 * Every event a store holds has a sequence number: a positive integer,
 * increasing by one from the session's first event (1) to its newest, never
 * reused and never skipped, across runs and across a resume. The live view's
 * reconnection relies on it: a client that saw `seq` asks for what comes
 * after, and gets every later event once.
 *
 * @since 0.1.0
 */
import { type Content, KernelEvent } from "@agent-kernel/kernel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

/**
 * Where a session is:
 *
 * - `running`: a run is in progress, in a live process;
 * - `resumable`: a run was left unfinished (its process stopped): `resume`
 *   finishes it;
 * - `paused`: a run paused instead of ending (`on_exhausted: "pause"`):
 *   `paused` says why and since when, and `resume` continues it;
 * - `completed`: its last run completed;
 * - `interrupted`: its last run was stopped by its caller (Ctrl-C, or the
 *   inspector's interrupt) and ended;
 * - `failed`: its last run ended with another status (`run_status` says which);
 * - `new`: no run has started yet.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionStatus = Schema.Literals([
  "running",
  "resumable",
  "paused",
  "completed",
  "interrupted",
  "failed",
  "new"
])

/**
 * A paused run: the status it would have ended with, the error, since when
 * (epoch milliseconds), and when a runner resumes it (`null`: only a caller
 * does).
 *
 * @since 0.6.0
 * @category schemas
 */
export const Paused = Schema.Struct({
  reason: Schema.String,
  error: Schema.NullOr(KernelEvent.ErrorSummary),
  paused_at: Schema.Number,
  resume_at: Schema.NullOr(Schema.Number)
})

/**
 * @since 0.6.0
 * @category models
 */
export interface Paused extends Schema.Schema.Type<typeof Paused> {}

/**
 * @since 0.1.0
 * @category models
 */
export type SessionStatus = typeof SessionStatus.Type

/**
 * A session as the sessions page lists it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionSummary = Schema.Struct({
  id: Schema.String,
  status: SessionStatus,
  /** How the last run that ended ended; `null` before any did. */
  run_status: Schema.NullOr(KernelEvent.RunStatus),
  /** Runs started. */
  runs: Schema.Number,
  /** The session retry budget used, over all its runs. */
  retries_used: Schema.Number,
  /** The retries the session budget has left now; `null` when the store cannot tell. */
  retries_left: Schema.NullOr(Schema.Number),
  /** Messages in the history. */
  messages: Schema.Number,
  /** The time of the session's last event or write, in epoch milliseconds. */
  last_activity: Schema.Number,
  /** Why and since when its run is paused (status `paused`); absent or `null` when it is not. */
  paused: Schema.optionalKey(Schema.NullOr(Paused))
})

/**
 * @since 0.1.0
 * @category models
 */
export interface SessionSummary extends Schema.Schema.Type<typeof SessionSummary> {}

/**
 * A page of the sessions list: newest activity first (ties by id).
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionQuery {
  /** Keeps the sessions whose id contains this text, ignoring case. */
  readonly search?: string | undefined
  /** Keeps the sessions in this status. */
  readonly status?: SessionStatus | undefined
  /** How many matching sessions to skip. */
  readonly offset: number
  /** How many to return at most. */
  readonly limit: number
}

/**
 * A page of sessions, with how many match in all.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionPage = Schema.Struct({
  total: Schema.Number,
  sessions: Schema.Array(SessionSummary)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface SessionPage extends Schema.Schema.Type<typeof SessionPage> {}

/**
 * A run of a session, located in the session's event sequence.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RunSummary = Schema.Struct({
  /** The kernel's run id (`<session>/run-<n>`). */
  run_id: Schema.String,
  /** The run's number in the session, from 1. */
  index: Schema.Number,
  model: Schema.String,
  /** The run's input, as `run_started` carries it. */
  input: Schema.String,
  /** `null` while the run has not ended (running, paused, or left unfinished). */
  status: Schema.NullOr(KernelEvent.RunStatus),
  /** Why and since when the run is paused, as its last `run_paused` says; absent or `null` when it is not. */
  paused: Schema.optionalKey(Schema.NullOr(Paused)),
  started_at: Schema.Number,
  ended_at: Schema.NullOr(Schema.Number),
  /** The sequence number of the run's `run_started`. */
  first_seq: Schema.Number,
  /** The sequence number of the run's last event so far (its `run_ended` once it ended). */
  last_seq: Schema.Number
})

/**
 * @since 0.1.0
 * @category models
 */
export interface RunSummary extends Schema.Schema.Type<typeof RunSummary> {}

/**
 * A session: its summary and its runs.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionDetail = Schema.Struct({
  summary: SessionSummary,
  runs: Schema.Array(RunSummary)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface SessionDetail extends Schema.Schema.Type<typeof SessionDetail> {}

/**
 * A kernel event with its sequence number in the session.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LoggedEvent = Schema.Struct({
  seq: Schema.Number,
  event: KernelEvent.KernelEvent
})

/**
 * @since 0.1.0
 * @category models
 */
export interface LoggedEvent extends Schema.Schema.Type<typeof LoggedEvent> {}

/**
 * Which events of a session to read: those with `after < seq <= until`, in
 * order, at most `limit` of them.
 *
 * @since 0.1.0
 * @category models
 */
export interface EventQuery {
  readonly after: number
  /** Default: no upper bound. */
  readonly until?: number | undefined
  readonly limit: number
  /**
   * Leave out `text_delta` and `thinking_delta` events (a timeline does not
   * draw them; they are most of a streamed run's events).
   */
  readonly omitDeltas?: boolean | undefined
}

/**
 * No session has this id.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionNotFound extends Schema.TaggedError<SessionNotFound>("@agent-kernel/inspector/SessionNotFound")(
  "SessionNotFound",
  { session_id: Schema.String }
) {
  /** @since 0.1.0 */
  override get message(): string {
    return `no session "${this.session_id}" in the store`
  }
}

/**
 * The store cannot be read or written: it is corrupt, of another kind, or
 * gone. `message` says which, for a person.
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>("@agent-kernel/inspector/StoreUnavailable")(
  "StoreUnavailable",
  { message: Schema.String }
) {}

/**
 * An action that does not apply to the session as it is: resuming a session
 * with no unfinished run, interrupting one with no run in progress.
 *
 * @since 0.1.0
 * @category errors
 */
export class ActionRefused extends Schema.TaggedError<ActionRefused>("@agent-kernel/inspector/ActionRefused")(
  "ActionRefused",
  { session_id: Schema.String, action: Schema.Literals(["resume", "interrupt"]), reason: Schema.String }
) {
  /** @since 0.1.0 */
  override get message(): string {
    return `cannot ${this.action} the session "${this.session_id}": ${this.reason}`
  }
}

/**
 * What the inspector needs from a store.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** A page of the sessions that match. */
  readonly sessions: (query: SessionQuery) => Effect.Effect<SessionPage, StoreUnavailable>
  /** The session and its runs. */
  readonly session: (id: string) => Effect.Effect<SessionDetail, SessionNotFound | StoreUnavailable>
  /**
   * The session's full history, never reduced: as of the last step the store
   * recorded (a run in progress included, where the store can tell).
   */
  readonly history: (id: string) => Effect.Effect<Content.History, SessionNotFound | StoreUnavailable>
  /** Events of the session, by sequence number (see `EventQuery`). */
  readonly events: (
    id: string,
    query: EventQuery
  ) => Effect.Effect<ReadonlyArray<LoggedEvent>, SessionNotFound | StoreUnavailable>
  /**
   * The session's events with a sequence number above `after`, in order:
   * those already stored, then each new one as it is stored, for as long as
   * the stream is read. Each once, none skipped.
   */
  readonly follow: (id: string, after: number) => Stream.Stream<LoggedEvent, SessionNotFound | StoreUnavailable>
  /**
   * Starts finishing the session's unfinished run (`resumable`), and returns
   * once it has started; its events follow in the session's sequence.
   */
  readonly resume: (id: string) => Effect.Effect<void, SessionNotFound | ActionRefused | StoreUnavailable>
  /**
   * Stops the session's run in progress as its caller's Ctrl-C does (its
   * tool calls in flight answered with error results, the run ended
   * `interrupted`), and returns once it has ended.
   */
  readonly interrupt: (id: string) => Effect.Effect<void, SessionNotFound | ActionRefused | StoreUnavailable>
}

/**
 * The store the inspector shows.
 *
 * @since 0.1.0
 * @category tags
 */
export class InspectorStore extends Context.Service<InspectorStore, Service>()(
  "@agent-kernel/inspector/InspectorStore"
) {}

/**
 * A store that cannot be read: every read and action fails with
 * `StoreUnavailable(message)`. For a store that cannot be opened (a corrupt
 * file, a file of another kind): the inspector still starts, and each page
 * says why.
 *
 * @example
 * ```ts
 * import { InspectorStore } from "@agent-kernel/inspector"
 *
 * const store = InspectorStore.unavailable("agent.db is not an agent-kernel session store")
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const unavailable = (message: string): Service => {
  const fail = Effect.fail(new StoreUnavailable({ message }))
  return {
    sessions: () => fail,
    session: () => fail,
    history: () => fail,
    events: () => fail,
    follow: () => Stream.fail(new StoreUnavailable({ message })),
    resume: () => fail,
    interrupt: () => fail
  }
}
