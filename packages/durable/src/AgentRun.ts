/**
 * A run of a session as a durable workflow: the `AgentRun` workflow of
 * effect/workflow, whose body is the kernel's own turn loop with its effects
 * seam journaled (see `Session.Options.effects`).
 *
 * - Each model attempt and each tool call is a journaled step: its result is
 *   journaled (by the light engine, and by the cluster engine with
 *   `Engine.clusterSteps`, in the store's own table; as an `Activity` on the
 *   memory engine), and a replay answers it from the journal.
 * - A retry's wait is a durable clock: its deadline is journaled as a
 *   wall-clock time, so a restart finishes the same wait.
 * - The session's state at the start of the run is read in a journaled step,
 *   so a replay starts from the same budget, history and figures.
 *
 * The execution id is derived from the session id, the session's life (a
 * random id its store row gets when it is created or imported, so a deleted
 * and recreated session never meets a journal of its previous life) and the
 * run's number, so executing the same run again attaches to it. The engine is a Layer:
 * `Engine.layerSqlite` (the embedded file), `Engine.layerSql` (any
 * `SqlClient`, such as Postgres) or `Engine.layerMemory`; the code here is the
 * same for all of them.
 *
 * @since 0.1.0
 */
import {
  Content,
  EventBus,
  KernelEvent,
  ModelProvider,
  type RetryPolicy,
  RunOutcome,
  Session,
  type Settings,
  Toolbox
} from "@agent-kernel/kernel"
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Workflow from "effect/workflow/Workflow"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import * as EventLog from "./internal/eventLog.js"
import * as Journal from "./internal/journal.js"
import * as LiveSessions from "./internal/liveSessions.js"
import * as SqlEngineInternal from "./internal/sqlEngine.js"
import * as Steps from "./internal/steps.js"
import { sqlReason } from "./internal/storeFile.js"
import * as Store from "./internal/store.js"
import * as Subscriptions from "./internal/subscriptions.js"

/**
 * The payload of a run: which session, which life of it (see
 * `executionKey`), which of its runs (from 1), and the input.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Payload = Schema.Struct({
  session_id: Schema.String,
  /** The session's life: absent for a session a store made before lives existed. */
  life: Schema.optional(Schema.String),
  run: Schema.Number,
  input: Content.Message
})

/**
 * @since 0.1.0
 * @category models
 */
export interface Payload extends Readonly<typeof Payload.Type> {}

/**
 * The workflow's idempotency key: `session_id/run/life` (`session_id/run` for
 * a session without a life). A session deleted and created again, or
 * imported over another, has a new life, so its run 1 is a new execution,
 * never the journaled outcome of an earlier life's run 1.
 *
 * @since 0.2.0
 * @category workflows
 */
export const executionKey = (payload: Pick<Payload, "session_id" | "life" | "run">): string =>
  payload.life === undefined
    ? `${payload.session_id}/${payload.run}`
    : `${payload.session_id}/${payload.run}/${payload.life}`

/**
 * The workflow. Its result is the run's `RunOutcome`; a run never fails.
 *
 * @since 0.1.0
 * @category workflows
 */
export const AgentRun: Workflow.Workflow<
  // Annotated so that the declaration names RunOutcome through the kernel's entry, not its source files.
  "AgentRun",
  typeof Payload,
  typeof RunOutcome.RunOutcome,
  Schema.Never
> = Workflow.make("AgentRun", {
  payload: Payload,
  success: RunOutcome.RunOutcome,
  idempotencyKey: executionKey,
  // A caller waiting on a suspended run (a long retry wait) learns of its end within a second.
  suspendedRetrySchedule: Schedule.spaced("1 second")
})

/**
 * What the current process supplies to the runs it executes: what
 * `Session.make` takes, with the same meaning and defaults (the journal
 * supplies the conversation, the budgets and the pending deadlines), and
 * which tools may run again after a crash.
 *
 * `Session.Options` and a durable session:
 * - `model`, `system`, `settings`, `policy`, `toolConcurrency`,
 *   `maxOutputTokens`, `request`, `metrics`: here, for every run this
 *   process executes, a resumed one included;
 * - `subscriberCapacity`: here, for `DurableSessions.subscribe`;
 * - `effects`: here: it wraps the live effects, inside the journal (a
 *   journaled step is answered from the journal, and the wrapper is not
 *   called for it again on a replay);
 * - `id`: the session's id, given to `DurableSessions.run`;
 * - `history` and `state`: given to `DurableSessions.create`.
 *
 * `policy` and `effects` are code, not data: nothing of them is stored. A
 * run resumed by another process gets that process's: give every process of
 * a store the same (as its `model` and `settings`). A replay steps the
 * policy again through the journaled errors, with the journal's clock and a
 * `Random` seeded by the execution id, so a policy that decides from its
 * inputs alone (as `RetryPolicy`'s building blocks do) decides as the first
 * execution did, and a journaled wait ends at its journaled deadline
 * whatever the policy says now.
 *
 * @since 0.1.0
 * @category models
 */
export interface Config {
  readonly model: string
  readonly system?: string | undefined
  readonly settings?: Settings.Settings | undefined
  /** As `Session.Options.policy`. Default: `RetryPolicy.fromSettings(settings)`. */
  readonly policy?: RetryPolicy.RetryPolicy | undefined
  readonly toolConcurrency?: number | undefined
  readonly maxOutputTokens?: number | undefined
  /** As `Session.Options.request`: request options applied to every model call. */
  readonly request?: ModelProvider.RequestOptions | undefined
  /**
   * As `Session.Options.subscriberCapacity`, for `DurableSessions.subscribe`.
   * Default: `Session.defaultSubscriberCapacity`.
   */
  readonly subscriberCapacity?: Session.SubscriberCapacity | undefined
  /**
   * As `Session.Options.effects`: wraps the live effects of every run, inside
   * the journal (what the wrapped effects return is what is journaled).
   */
  readonly effects?: ((live: Session.Effects) => Session.Effects) | undefined
  /**
   * Tools that may run again when the process stopped while they ran: a read,
   * or a write keyed so that a second call changes nothing. Any other tool
   * in flight at a crash gets an error result saying that it is unknown
   * whether it finished. Default: none.
   */
  readonly idempotentTools?: ReadonlyArray<string> | undefined
  /** Update the kernel's global metrics. Default true. */
  readonly metrics?: boolean | undefined
}

/**
 * The run configuration of this process.
 *
 * @since 0.1.0
 * @category tags
 */
export class RunConfig extends Context.Service<RunConfig, Config>()("@agent-kernel/durable/RunConfig") {}

/**
 * A run's body in this process, and whether its caller stopped it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Body {
  /**
   * The body's fiber; `undefined` for a run this process suspended on a
   * durable wait (its body ended; the engine starts another after the wait).
   */
  readonly fiber: Fiber.Fiber<unknown, unknown> | undefined
  stopped: boolean
  /** Done when the body has ended (its interrupted state recorded, if it was stopped). */
  readonly ended: Deferred.Deferred<void>
}

/**
 * The bodies of this process's runs (and its runs suspended on a durable
 * wait), by execution id. An interrupted caller
 * (Ctrl-C) stops the body it waits for (see `stop`): the run ends
 * `interrupted`, with its state recorded in the session row, the stop's one
 * record (a body of a run it records ends at once, whatever started it). A body interrupted any other way
 * (its engine shutting down, the process stopping) is left unfinished in the
 * journal, to be resumed: that is a crash, not a decision to end the run.
 *
 * @since 0.1.0
 * @category tags
 */
export class Bodies extends Context.Service<Bodies, Map<string, Body>>()("@agent-kernel/durable/Bodies") {}

/**
 * What every step of a run passes through in this process: `step` is the
 * whole step (the start, a model attempt, a tool call, a retry's wake-up,
 * the end), from its journal's read to its journaled result, on every engine
 * (a step the engine journals itself, as the light engine and the cluster
 * engine with `Engine.clusterSteps` do, and an `Activity`, as on the memory
 * engine). A replayed step passes it too. The gate may wait before it lets a
 * step start, or refuse it for good (never run it): a runner's drain waits for
 * the steps in flight and starts no more (`Runner.layer` of
 * `@agent-kernel/cluster` provides its own).
 *
 * @example
 * ```ts
 * import { AgentRun } from "@agent-kernel/durable"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 *
 * // Counts the steps this process starts (provide it where `AgentRun.layer` is built).
 * let steps = 0
 * export const counted = Layer.succeed(AgentRun.StepGate, (step) =>
 *   Effect.andThen(
 *     Effect.sync(() => steps++),
 *     step
 *   )
 * )
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export type StepGate = <A, E, R>(step: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/**
 * The `StepGate` of the runs this process executes, read when a run's body
 * starts. Default: none (every step runs at once).
 *
 * @since 0.5.0
 * @category tags
 */
export const StepGate: Context.Reference<StepGate> = Context.Reference<StepGate>("@agent-kernel/durable/StepGate", {
  defaultValue: () => (step) => step
})

/**
 * Stops the run `executionId` as its caller's interruption (Ctrl-C) asks,
 * and waits (at most `timeout`) for its body to end, its state recorded:
 * - a body running in this process is interrupted;
 * - a run this process suspended on a durable wait has no body: the engine
 *   starts its body again, stopped from the start, and it replays its journal
 *   up to the wait and ends there, `interrupted`, as a run interrupted in a
 *   live wait would.
 *
 * A run this process has no body of (another runner's) is left to its
 * process.
 *
 * @since 0.1.0
 * @category workflows
 */
export const stop = (
  executionId: string,
  timeout: Duration.Input = "5 seconds"
): Effect.Effect<void, never, Bodies | WorkflowEngine.WorkflowEngine> =>
  Effect.gen(function* () {
    const bodies = yield* Bodies
    const body = bodies.get(executionId)
    if (body === undefined) return
    body.stopped = true
    if (body.fiber !== undefined) return yield* Effect.ignore(Effect.timeout(Fiber.interrupt(body.fiber), timeout))
    yield* Effect.ignore(
      Effect.timeout(Effect.andThen(AgentRun.resume(executionId), Deferred.await(body.ended)), timeout)
    )
    // No body took the stop (the run had ended meanwhile): nothing is left to stop.
    if (bodies.get(executionId) === body) bodies.delete(executionId)
  })

/**
 * The result of an execution of a run that is over for the store when its
 * body starts: its caller stopped it (Ctrl-C) and the stop is recorded, or the
 * session moved past it (a later run began, or it was deleted or imported
 * over). The body does nothing and ends with this outcome, never with an
 * interrupt (which the cluster engine would deliver again, for ever), so a
 * caller still waiting on the execution learns that the run was stopped:
 * - `status`: `interrupted`;
 * - `history`: what the store holds for the session's life, `recorded` (the
 *   stop's record of the run, and what later runs added); empty for a session
 *   deleted or imported over;
 * - `retries.session_total`: the session's retry budget used as `recorded`
 *   says, so the later runs' retries too when the session moved on (the
 *   budget is the session's, not a run's);
 * - the run's own figures (turns, `retries.max_per_call`, usage, cost, final
 *   text) as its stop recorded them while `recorded` is still that run's,
 *   with `wall_ms` up to `at` (when the store last wrote the session);
 *   otherwise none (zero, `null` cost, empty text).
 *
 * @since 0.3.0
 * @category workflows
 */
export const stoppedOutcome = (
  payload: Pick<Payload, "session_id" | "run">,
  recorded: Session.State | null,
  at: number
): RunOutcome.RunOutcome => {
  const runId = `${payload.session_id}/run-${payload.run}`
  // The record's figures are this run's when the stop recorded them (the kernel numbers a session's runs
  // from its state, so a run stopped before its session was made leaves an earlier run's figures, or none).
  const figures = recorded?.run?.run_id === runId ? recorded.run : null
  return {
    run_id: runId,
    status: "interrupted",
    turns: figures?.turns ?? 0,
    retries: { max_per_call: figures?.max_per_call ?? 0, session_total: recorded?.budget.used ?? 0 },
    usage: figures?.usage ?? ModelProvider.emptyUsage,
    cost_usd: figures?.cost_usd ?? null,
    wall_ms: figures === null ? 0 : Math.max(0, at - figures.started_at),
    context_reductions: figures?.reductions ?? 0,
    final_text: figures?.final_text ?? "",
    history: recorded?.history ?? []
  }
}

/**
 * The outcome a caller of run `payload` gets while the run is paused (see
 * `Settings.OnExhausted`): status `paused`, the error that paused it, and the
 * run's figures and history as the pause recorded them (`row`). The run is
 * unfinished: `DurableSessions.resume` continues it.
 *
 * @since 0.6.0
 * @category workflows
 */
export const pausedOutcome = (payload: Pick<Payload, "session_id" | "run">, row: Store.Row): RunOutcome.RunOutcome => {
  const pausedAt = row.paused_at ?? row.updated_at
  const outcome = stoppedOutcome(payload, row.state, pausedAt)
  return {
    ...outcome,
    status: "paused",
    ...(row.paused_error === null || row.paused_error === undefined ? {} : { error: row.paused_error })
  }
}

/** Whether the session row `row` records run `payload` as paused now. */
const pausedNow = (row: Store.Row, payload: Payload): boolean =>
  row.status === "paused" &&
  row.pending !== null &&
  row.run_index === payload.run &&
  row.life === (payload.life ?? null)

/**
 * The outcome of run `payload` once the store records it paused
 * (`pausedOutcome`): the store is read each second, the cadence at which a
 * caller of a suspended run polls it, from a second after the start (a run
 * just resumed is not read as still paused). A read that fails is read as no
 * pause: the run's caller learns of a store that fails from the run.
 *
 * @since 0.6.0
 * @category workflows
 */
export const pauseOf = (payload: Payload): Effect.Effect<RunOutcome.RunOutcome, never, SqlClient.SqlClient> => {
  const check: Effect.Effect<RunOutcome.RunOutcome, never, SqlClient.SqlClient> = Effect.andThen(
    Effect.sleep("1 second"),
    Effect.flatMap(
      Effect.orElseSucceed(Store.get(payload.session_id), () => Option.none<Store.Row>()),
      (row) =>
        Option.isSome(row) && pausedNow(row.value, payload) ? Effect.succeed(pausedOutcome(payload, row.value)) : check
    )
  )
  return check
}

/** `stoppedOutcome` of run `payload` if the session row `row` says it is over (`Store.over`). */
const overOutcome = (row: Option.Option<Store.Row>, payload: Payload): Option.Option<RunOutcome.RunOutcome> =>
  Store.over(row, payload)
    ? Option.some(
        stoppedOutcome(
          payload,
          Store.lifeState(row, payload),
          Option.match(row, { onNone: () => 0, onSome: (row) => row.updated_at })
        )
      )
    : Option.none()

/**
 * The outcome of run `payload` if it is over for the store (its stop
 * recorded, or the session moved past it): `stoppedOutcome`, what a body of
 * it started now would end with; `None` while the run is not over.
 *
 * @since 0.3.0
 * @category workflows
 */
export const outcomeIfOver = (
  payload: Payload
): Effect.Effect<Option.Option<RunOutcome.RunOutcome>, Store.StoreError, SqlClient.SqlClient> =>
  Effect.map(Store.get(payload.session_id), (row) => overOutcome(row, payload))

/**
 * Ends run `payload` as stopped once its caller's stop could not be recorded
 * (its body ended with a `JournalError` of reason `stop-not-recorded`, which
 * the memory and cluster engines keep as the run's result): the stop is
 * recorded now (`Store.interrupted`; the state the body held is gone, so the
 * session keeps the state last written), and the outcome is `stoppedOutcome`.
 * Its `run_ended` (`interrupted`) is logged with the record, and the run's
 * observers and subscribers (`EventBus`, `Subscriptions` in context) get it
 * once the record is committed. The session takes input again. A store still failing fails with its
 * `StoreError`, the run still unfinished.
 *
 * @since 0.3.0
 * @category workflows
 */
export const recordStopAgain = (
  payload: Payload
): Effect.Effect<RunOutcome.RunOutcome, Store.StoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const at = yield* Clock.currentTimeMillis
    // The stop's record and its run_ended in one transaction, as the body's stop records them.
    const log = yield* EventLog.writer(yield* Store.storeSql, payload)
    const ended = yield* Effect.andThen(
      log.resume,
      log.transaction((flush) =>
        Effect.gen(function* () {
          // Records nothing when the run is over for the store already (another caller recorded it meanwhile).
          if (!(yield* Store.interrupted(payload, null, at))) return Option.none<KernelEvent.KernelEvent>()
          const row = yield* Store.get(payload.session_id)
          const event = runEndedOf(stoppedOutcome(payload, Store.lifeState(row, payload), at), at)
          log.log(event)
          yield* flush
          return Option.some(event)
        })
      )
    ).pipe(
      Effect.mapError((error) =>
        error._tag === "StoreError"
          ? error
          : Store.makeStoreError(
              sqlReason(error),
              `cannot record the interruption of a run of the session "${payload.session_id}": ${error.message}`
            )
      )
    )
    // Its observers and subscribers, told of no end by the body whose record failed, are told of this one.
    if (Option.isSome(ended)) {
      const bus = yield* EventBus.EventBus
      yield* Subscriptions.offering(bus, yield* Subscriptions.Subscriptions, payload.session_id).deliver([ended.value])
    }
    const row = yield* Store.get(payload.session_id)
    return Option.getOrElse(overOutcome(row, payload), () => stoppedOutcome(payload, Store.lifeState(row, payload), at))
  }).pipe(Effect.scoped)

/** The `run_ended` that tells of the run's end `outcome`, at `at`. */
const runEndedOf = (outcome: RunOutcome.RunOutcome, at: number): KernelEvent.KernelEvent => ({
  type: "run_ended",
  at,
  run_id: outcome.run_id,
  status: outcome.status,
  turns: outcome.turns,
  retries: outcome.retries,
  usage: outcome.usage,
  cost_usd: outcome.cost_usd,
  wall_ms: outcome.wall_ms,
  error: null,
  final_text: outcome.final_text
})

/**
 * The `JournalError` a result says the run is suspended on, if it does. On an
 * engine that journals whatever a step or a body ends with (the memory and
 * cluster engines), a body suspends on a journal failure, with the failure as
 * the suspension's cause, rather than end with it, which the engine would
 * journal as the step's or the run's result, answered again on every resume:
 * the run stays unfinished, its caller fails with the failure (see
 * `journalFailure`), and `DurableSessions.resume` runs it again. (The light
 * engine journals no `JournalError`: its body fails with it, and the caller
 * with the body.)
 *
 * @since 0.3.0
 * @category workflows
 */
export const suspendedOn = (
  result: Option.Option<Workflow.Result<unknown, unknown>>
): Option.Option<SqlEngineInternal.JournalError> =>
  Option.flatMap(result, (result) =>
    result._tag === "Suspended" && result.cause !== undefined ? journalErrorIn(result.cause) : Option.none()
  )

/** The first `JournalError` a cause died with. */
const journalErrorIn = (cause: Cause.Cause<unknown>): Option.Option<SqlEngineInternal.JournalError> =>
  Arr.findFirst(cause.reasons, (reason) =>
    Cause.isDieReason(reason) ? SqlEngineInternal.asJournalError(reason.defect) : Option.none()
  )

/**
 * The `JournalError` the run `executionId` is suspended on now, if it is (see
 * `suspendedOn`), as the engine's result of it says. A poll that fails is
 * read as no such suspension: the memory engine's poll of a run that ended
 * with a failure (an interruption: another caller stopped it) fails with it,
 * which the run's caller gets from the run itself.
 *
 * @since 0.3.0
 * @category workflows
 */
export const suspendedNowOn = (
  executionId: string
): Effect.Effect<Option.Option<SqlEngineInternal.JournalError>, never, WorkflowEngine.WorkflowEngine> =>
  AgentRun.poll(executionId).pipe(
    Effect.map(suspendedOn),
    Effect.catchCause(() => Effect.succeedNone)
  )

/**
 * Fails with the `JournalError` the run `executionId` is suspended on (see
 * `suspendedNowOn`), once it is: the engine's result of it is read each
 * second, the cadence at which a caller of a suspended run polls it, from a
 * second after the start (a run that ends sooner costs no read, and a run
 * just woken from such a suspension is not read as still suspended on it).
 *
 * @since 0.3.0
 * @category workflows
 */
export const journalFailure = (
  executionId: string
): Effect.Effect<never, SqlEngineInternal.JournalError, WorkflowEngine.WorkflowEngine> => {
  const check: Effect.Effect<never, SqlEngineInternal.JournalError, WorkflowEngine.WorkflowEngine> = Effect.andThen(
    Effect.sleep("1 second"),
    Effect.flatMap(suspendedNowOn(executionId), Option.match({ onNone: () => check, onSome: Effect.fail }))
  )
  return check
}

const isRunStatus = Schema.is(KernelEvent.RunStatus)

/** The status the session row `row` records run `payload` ended with; `None` while it runs, or once the session moved on. */
const recordedEnd = (row: Option.Option<Store.Row>, payload: Payload): Option.Option<KernelEvent.RunStatus> =>
  Option.flatMap(
    Option.filter(
      row,
      (row) => row.run_index === payload.run && row.life === (payload.life ?? null) && row.pending === null
    ),
    (row) => (isRunStatus(row.status) ? Option.some(row.status) : Option.none())
  )

/** The journaled start of a run: the session's state before it, and the instant it started. */
const Start = Steps.codec(Schema.Struct({ state: Schema.NullOr(Session.State), at: Schema.Number }))

/** The journaled end of a run (its state written to the store). */
const End = Steps.codec(Schema.Void)

/**
 * The body of a run: the kernel's session, made from the journaled state,
 * running the input with its effects journaled. Decisions read the journal's
 * clock and a `Random` seeded with the execution id, so a replay decides as
 * the first execution did.
 *
 * The run's events reach its observers (the `EventBus` in context) and
 * `DurableSessions.subscribe` as a plain session's do, but for its
 * `run_ended`, which they get once the store records the end it tells: after
 * the `end` step has written the outcome (the session's row says the status),
 * or after the caller's stop is recorded (`interrupted`, whatever end the loop
 * made). A stop that lands once the `end` step has recorded the run's end
 * records nothing, and that end is published. An end whose record
 * fails is not published (the run is unfinished; its resume publishes the
 * end it records), and a body interrupted without its caller's stop (its
 * engine shutting down, its shard moving in a rebalance or a drain) publishes
 * no `run_ended`: the run resumes elsewhere, and that body publishes its end.
 *
 * @since 0.1.0
 * @category workflows
 */
export const body = (
  payload: Payload,
  executionId: string
): Effect.Effect<
  RunOutcome.RunOutcome,
  never,
  RunConfig | Bodies | ModelProvider.ModelProvider | SqlClient.SqlClient | Journal.Journal | Scope.Scope
> =>
  Effect.gen(function* () {
    const config = yield* RunConfig
    const bodies = yield* Bodies
    const fiber = yield* Effect.withFiber<Fiber.Fiber<unknown, unknown>>((fiber) => Effect.succeed(fiber))
    const instance = yield* WorkflowEngine.WorkflowInstance
    const engine = yield* WorkflowEngine.WorkflowEngine
    // The light engine journals no JournalError: the body fails with it, and the run stays unfinished. The
    // others (the memory and cluster engines, `Steps.journalsFailures`) journal whatever a step or a body ends with, so a journal failure would be the run's result, answered again on
    // every resume: there the body suspends on it instead, the failure as the suspension's cause
    // (`suspendedOn`), leaving the run unfinished for a resume; its caller fails with it (`journalFailure`).
    const steps = yield* Steps.Steps
    const suspending = Option.match(steps, { onNone: () => true, onSome: (steps) => steps.journalsFailures })
    const suspendOnFailure = <A, E, R>(
      effect: Effect.Effect<A, E, R>
    ): Effect.Effect<A, E, R | WorkflowEngine.WorkflowInstance> =>
      suspending
        ? Effect.catchCause(effect, (cause) =>
            Option.match(journalErrorIn(cause), {
              onNone: () => Effect.failCause(cause),
              onSome: (error) =>
                Effect.flatMap(WorkflowEngine.WorkflowInstance, (suspended) => {
                  // The suspension's cause: an activity's reaches the run's, and the run's result carries it.
                  suspended.cause = Cause.die(error)
                  return Workflow.suspend(suspended)
                })
            })
          )
        : effect
    // The session as this body finds it, outside the journal: a stop is recorded after what it journaled.
    const found = yield* suspendOnFailure(
      Effect.catch(Store.get(payload.session_id), SqlEngineInternal.fail("read", executionId))
    )
    // Its caller stopped the run and the stop is recorded (`Store.interrupted`), or the session moved past it
    // (a later run began, it was deleted or imported over): whatever starts its body again (a restart before
    // the engine marked it `stopped`, the end of a wait it was stopped in, the cluster engine delivering again
    // the run whose body the stop interrupted) ends it at once, doing nothing. With a result, not an interrupt:
    // the cluster engine delivers an interrupted run again at once, for ever.
    const over = overOutcome(found, payload)
    if (Option.isSome(over)) return over.value
    // A stop of the run while it was suspended here is taken over: this body stops at its wait.
    const previous = bodies.get(executionId)
    const running: Body = {
      fiber,
      stopped: previous?.fiber === undefined && previous?.stopped === true,
      ended: previous?.ended ?? (yield* Deferred.make<void>())
    }
    bodies.set(executionId, running)
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        if (bodies.get(executionId) === running) {
          // Suspended on a durable wait: the run is still this process's to stop (see `stop`).
          if (instance.suspended && !running.stopped)
            bodies.set(executionId, { fiber: undefined, stopped: false, ended: yield* Deferred.make<void>() })
          else bodies.delete(executionId)
        }
        yield* Deferred.succeed(running.ended, undefined)
      })
    )
    // The session once made: a stop before that (in the start step) leaves the state before the run.
    let session: Session.Service | undefined
    // Publishes the run's end held back from its observers until the store records it (see `EventLog.logging`).
    let publishEnd: Effect.Effect<void> = Effect.void
    // Makes the held end (and the one the log has yet to write) say the end the store recorded.
    let endedAs: (status: KernelEvent.RunStatus) => void = () => {}
    // The run was stopped (Ctrl-C, see `Bodies`): it ends `interrupted`, and the history as it left it
    // (every tool_use answered) goes to the store, in one write that is the stop's record. A record that
    // fails is no stop: the body fails with a JournalError, and the run stays unfinished, for `resume`.
    // The session's event log, written as the run publishes (see `EventLog`), on the store's client.
    const storeSql = yield* Store.storeSql
    const log = yield* EventLog.writer(storeSql, payload)
    const flushLog = Effect.catch(log.flush, SqlEngineInternal.fail("log the events", executionId))
    const beforeStep = Effect.catch(log.beforeStep, SqlEngineInternal.fail("log the events", executionId))
    // The stop's record and the events that tell it (its run_ended) in one transaction: the log and the
    // store agree. Events of a run over for the store already are not logged.
    // Its observers get that run_ended once the transaction has recorded the stop; it says `interrupted`
    // whatever end the loop made (a stop after the loop ended, or in the end's transaction, which rolled back).
    // A stop that records nothing came after the end step recorded the run's end: that end is published.
    const recordStop = Effect.gen(function* () {
      const state = session === undefined ? null : yield* session.state
      const left = session === undefined ? null : (yield* session.retryBudget).remaining
      const recorded = yield* Effect.catch(
        log.transaction((flush) =>
          Effect.flatMap(Clock.currentTimeMillis, (at) =>
            Effect.flatMap(Store.interrupted(payload, state, at, left), (recorded) =>
              recorded
                ? Effect.as(
                    Effect.andThen(
                      Effect.sync(() => endedAs("interrupted")),
                      flush
                    ),
                    true
                  )
                : Effect.succeed(false)
            )
          )
        ),
        SqlEngineInternal.fail("record the stop", executionId, "stop-not-recorded")
      )
      if (recorded) return yield* publishEnd
      // A store that cannot be read now publishes nothing: the run is over either way.
      const row = yield* Effect.orElseSucceed(Store.get(payload.session_id), () => Option.none<Store.Row>())
      const ended = recordedEnd(row, payload)
      if (Option.isNone(ended)) return
      endedAs(ended.value)
      yield* publishEnd
    })
    // A stopped run (see `Bodies`) executes no step: a step of its journal replays, but one that would execute
    // ends the body instead, as its stop at a wait does. Such a body is one started again after the stop (the
    // end of a wait it was stopped in, or the wake-up of a run suspended on a journal failure that was stopped
    // before its caller saw the failure): its replay reaches the step it was stopped before (a tool call whose
    // claim failed, say), which must not run. The check sits where an engine executes a step that is not
    // journaled: the wrapped `execute` of the light engine's `Steps` and the memory and cluster engines'
    // `activityExecute`. (An interruption raised by the step itself would be retried as an activity's.)
    const unlessStopped = <A, E, R, R2>(
      execute: Effect.Effect<A, E, R>,
      end: Effect.Effect<never, never, R2>
    ): Effect.Effect<A, E, R | R2> =>
      Effect.suspend((): Effect.Effect<A, E, R | R2> => (running.stopped ? end : execute))
    // Every step passes the process's gate (a runner's drain), whichever engine journals it.
    const gate = yield* StepGate
    // On the light engine a step executes in the body's fiber (or one of its children, a tool call among
    // several): the body's fiber is interrupted, as by its caller's stop.
    const stepsOf = Option.map(
      steps,
      (steps): Steps.Service => ({
        journalsFailures: steps.journalsFailures,
        run: (executionId, name, codec, execute) =>
          gate(
            steps.run(
              executionId,
              name,
              codec,
              unlessStopped(
                execute,
                Effect.andThen(
                  Effect.sync(() => fiber.interruptUnsafe()),
                  Effect.never
                )
              )
            )
          )
      })
    )
    // On the other engines an activity runs in a fiber of the engine's: it suspends (an interruption would be
    // retried, a result or a defect journaled as the step's), and the body, told so, ends with an interruption
    // where it called the step, as at a wait (a suspension would leave the run suspended, and a caller still
    // attached to it waiting for ever).
    const stepEngine: WorkflowEngine.WorkflowEngine["Service"] = {
      ...engine,
      activityExecute: (activity, attempt) =>
        Effect.suspend(() => {
          let refused = false
          const refuse = Effect.flatMap(WorkflowEngine.WorkflowInstance, (suspended) => {
            refused = true
            return Workflow.suspend(suspended)
          })
          // The gate around the call, not the activity's execution, which the cluster engine runs uninterruptibly.
          return Effect.flatMap(
            gate(
              engine.activityExecute(
                { ...activity, executeEncoded: unlessStopped(suspendOnFailure(activity.executeEncoded), refuse) },
                attempt
              )
            ),
            (result) => (refused ? Effect.interrupt : Effect.succeed(result))
          )
        })
    }
    return yield* Effect.onExit(
      Effect.gen(function* () {
        const context = yield* Effect.context<Journal.Journal>()
        const step = Steps.stepOf(context, executionId)
        // Whether this execution starts the run (the start step executes) or replays a journal.
        let fresh = false
        const start = yield* step(
          "start",
          Start,
          Effect.gen(function* () {
            fresh = true
            // A store that fails is the journal's failure (the run stops unfinished), not the step's result.
            const row = yield* Effect.catch(Store.get(payload.session_id), SqlEngineInternal.fail("start", executionId))
            return {
              state: Option.match(row, { onNone: () => null, onSome: (row) => row.state }),
              at: yield* Clock.currentTimeMillis
            }
          }).pipe(Effect.provideContext(context))
        )
        const clock = Journal.makeClock(yield* Clock.Clock, start.at, fresh)
        // A replay publishes the journaled steps' events again: those the log holds are not logged again.
        if (!fresh) yield* Effect.catch(log.resume, SqlEngineInternal.fail("read the event log", executionId))
        // A journal write that failed in the loop: the loop ends the run `failed`, which it is not (it is
        // unfinished, to be resumed), so that end is neither published nor recorded.
        let loopFailure: SqlEngineInternal.JournalError | undefined
        // Replayed steps were published by the execution that journaled them: not again.
        // The run has not ended while it suspends on a durable wait or after its journal failed: what it
        // publishes then (the interrupted or failed end the loop makes of it) is neither shown nor logged.
        const withheld = () => instance.suspended || loopFailure !== undefined
        // The run's end is published once the store records it (its end step, or its caller's stop): a body
        // interrupted otherwise (its engine stopping, its shard moving) has not ended the run, which goes on
        // where it is resumed.
        const logging = EventLog.logging(
          Journal.replayAware(
            Subscriptions.offering(yield* EventBus.EventBus, yield* Subscriptions.Subscriptions, payload.session_id),
            clock,
            withheld
          ),
          log,
          withheld
        )
        const bus = logging.bus
        publishEnd = logging.recorded
        endedAs = logging.endedAs
        const idempotent = new Set(config.idempotentTools ?? [])
        // The engine interrupts a run that suspends on a durable wait, or whose shard moves: neither ends the
        // run, and the toolbox's plugins may be shared by every session of the process. Only a run its caller
        // stopped releases what it left running.
        const toolbox = yield* Toolbox.Toolbox
        const release = toolbox.onRunInterrupted
        const ownToolbox: Toolbox.Service =
          release === undefined
            ? toolbox
            : {
                definitions: toolbox.definitions,
                invoke: toolbox.invoke,
                onRunInterrupted: Effect.suspend(() => (running.stopped ? release : Effect.void))
              }
        const journaled = Journal.wrap(
          {
            executionId,
            clock,
            idempotent: (tool) => idempotent.has(tool),
            stopping: () => running.stopped,
            flush: flushLog,
            beforeStep,
            failed: (error) => {
              loopFailure ??= error
            },
            // The pause and the events that tell it (its run_paused) in one transaction, as a run's end.
            paused: (pause, step) =>
              log
                .transaction((flush) =>
                  Effect.andThen(
                    flush,
                    Effect.gen(function* () {
                      if (session === undefined) return
                      const state = yield* session.state
                      const left = (yield* session.retryBudget).remaining
                      yield* Store.paused(
                        payload,
                        state,
                        { reason: pause.status, error: pause.error, at: pause.at, resumeAt: pause.resumeAt, step },
                        left
                      )
                    })
                  )
                )
                .pipe(
                  Effect.catch(SqlEngineInternal.fail("record the pause", executionId)),
                  Effect.provideContext(context)
                ),
            // A set only while the row is still paused at that step, so a replay past the pause may write it again.
            resumed: (step, at) =>
              Store.resumed(payload, step, at).pipe(
                Effect.asVoid,
                Effect.catch(SqlEngineInternal.fail("record the resume", executionId)),
                Effect.provideContext(context)
              ),
            pausedAt: (step) =>
              Store.get(payload.session_id).pipe(
                Effect.map(Option.exists((row) => pausedNow(row, payload) && row.paused_step === step)),
                Effect.catch(SqlEngineInternal.fail("read the pause", executionId)),
                Effect.provideContext(context)
              )
          },
          context
        )
        const own = config.effects
        const made = yield* Session.make({
          id: payload.session_id,
          model: config.model,
          system: config.system,
          settings: config.settings,
          policy: config.policy,
          toolConcurrency: config.toolConcurrency,
          maxOutputTokens: config.maxOutputTokens,
          request: config.request,
          metrics: config.metrics,
          ...(start.state === null ? {} : { state: start.state }),
          // The process's own wrapper over the live effects, journaled as a whole.
          effects: own === undefined ? journaled : (live) => journaled(own(live))
        }).pipe(Effect.provideService(EventBus.EventBus, bus), Effect.provideService(Toolbox.Toolbox, ownToolbox))
        session = made
        // This process's readers see the session's history as the run has it (see `DurableSessions.history`).
        const live = yield* LiveSessions.LiveSessions
        live.set(payload.session_id, made.state)
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            if (live.get(payload.session_id) === made.state) live.delete(payload.session_id)
          })
        )
        const outcome = yield* made
          .run(payload.input)
          .pipe(
            Effect.provideService(EventBus.EventBus, bus),
            Effect.provideService(Clock.Clock, clock),
            Random.withSeed(executionId)
          )
        if (loopFailure !== undefined) return yield* Effect.die(loopFailure)
        const state = yield* made.state
        const left = (yield* made.retryBudget).remaining
        // The run's end and the events that tell it (its run_ended) in one transaction: the log and the store
        // agree. Its observers get the run_ended once that is recorded.
        yield* step(
          "end",
          End,
          log
            .transaction((flush) =>
              Effect.andThen(
                flush,
                Effect.flatMap(Clock.currentTimeMillis, (at) => Store.finish(payload, state, outcome.status, at, left))
              )
            )
            .pipe(Effect.catch(SqlEngineInternal.fail("end", executionId)), Effect.provideContext(context))
        )
        yield* publishEnd
        return outcome
      }).pipe(
        // A journal failure the loop met (a step of it failed) suspends the run too, on such an engine.
        suspendOnFailure,
        Effect.provideService(WorkflowEngine.WorkflowEngine, stepEngine),
        Effect.provideService(Steps.Steps, stepsOf)
      ),
      (exit) => (Exit.hasInterrupts(exit) && running.stopped ? recordStop : Effect.void)
    )
  })

/**
 * Registers the workflow with the engine, for the runs of this process.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<
  never,
  never,
  WorkflowEngine.WorkflowEngine | RunConfig | Bodies | ModelProvider.ModelProvider | SqlClient.SqlClient
> = AgentRun.toLayer(body)
