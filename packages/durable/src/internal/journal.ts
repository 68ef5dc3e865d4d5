import { Content, type EventBus, KernelEvent, ModelError, ModelProvider, type Session } from "@agent-kernel/kernel"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as SqlClient from "effect/sql/SqlClient"
import * as DurableClock from "effect/workflow/DurableClock"
import * as DurableDeferred from "effect/workflow/DurableDeferred"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import { asJournalError, fail, type JournalError } from "./sqlEngine.js"
import * as Steps from "./steps.js"
import * as Store from "./store.js"

/**
 * The clock a journaled run reads.
 *
 * A decision of the loop reads the clock (a retry that would outlast
 * `max_wall_clock_ms`, the time left for a call), so a replay must read the
 * instants the first execution read, or a decision journaled as a retry could
 * come out as `wall_clock_exceeded` after a restart. Every journaled step
 * records the instant it completed; between steps the clock reads the latest
 * such instant, in the first execution and in every replay alike; while a
 * step executes for real, it reads the real clock (its timeouts and spans
 * need it). So the loop's decisions, which run between steps, see the same
 * instants on every execution.
 *
 * @internal
 */
export interface JournalClock extends Clock.Clock {
  /** The clock it reads while a step executes. */
  readonly real: Clock.Clock
  /** A step completed (journaled or replayed) at `at`. */
  readonly completed: (at: number) => void
  /** Marks a step executing for real until the returned effect's end. */
  readonly live: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Whether the run is replaying its journal: it is a re-execution and no step has executed for
   * real yet. What it publishes meanwhile was published by the execution that journaled it.
   */
  readonly replaying: () => boolean
  /** How many steps the replay has answered from the journal so far. */
  readonly replayed: () => number
}

const isJournalClock = (clock: Clock.Clock): clock is JournalClock => "real" in clock && "completed" in clock

/**
 * A journal clock over `clock`. An engine may resume an execution from a
 * fiber of an earlier one (the memory engine does, from the fiber that ended
 * a durable clock), so the clock in context can be an earlier execution's
 * journal clock: its real clock is taken.
 *
 * @internal
 */
export const makeClock = (clock: Clock.Clock, startedAt: number, fresh: boolean): JournalClock => {
  const real = isJournalClock(clock) ? clock.real : clock
  let pinned = startedAt
  let executing = 0
  let replaying = !fresh
  let replayed = 0
  const millis = () => (executing > 0 ? real.currentTimeMillisUnsafe() : pinned)
  const nanos = () => BigInt(Math.round(millis() * 1_000_000))
  return {
    real,
    currentTimeMillisUnsafe: millis,
    currentTimeNanosUnsafe: nanos,
    currentTimeMillis: Effect.sync(millis),
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanosUnsafe: () => real.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: real.monotonicTimeNanos,
    sleep: (duration) => real.sleep(duration),
    completed: (at) => {
      if (replaying) replayed++
      if (at > pinned) pinned = at
    },
    replaying: () => replaying,
    replayed: () => replayed,
    live: (effect) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          replaying = false
          executing++
        }),
        () => effect,
        () => Effect.sync(() => executing--)
      )
  }
}

/**
 * The bus a journaled run publishes on: while the run replays its journal
 * (see `JournalClock.replaying`), events and model responses are not
 * delivered again, so an observer (the CLI) does not show replayed steps as
 * new; `run_ended` is (the run ends in this execution). While the execution
 * suspends (a durable wait: the engine interrupts it, to replay it after the
 * wait), or once its journal failed (the loop then ends it `failed`, but it
 * is unfinished, to be resumed), nothing is (`withheld`): the run has not
 * ended.
 *
 * @internal
 */
export const replayAware = (bus: EventBus.Service, clock: JournalClock, withheld: () => boolean): EventBus.Service => {
  // A resume from a pause publishes its run_resumed as the replay reaches it: it is this execution's when the
  // next step executes for real, or when the run ends with no step after it (a resume past a bound), and is
  // delivered before what follows; an earlier execution's when a journaled step answers first (it is dropped).
  let resumed: { readonly event: KernelEvent.KernelEvent; readonly replayed: number } | undefined
  const shown = (event: { readonly type: string }) => !withheld() && (!clock.replaying() || event.type === "run_ended")
  const withResumed = (events: ReadonlyArray<KernelEvent.KernelEvent>): ReadonlyArray<KernelEvent.KernelEvent> => {
    if (clock.replaying())
      for (const event of events) if (event.type === "run_resumed") resumed = { event, replayed: clock.replayed() }
    const now = events.filter(shown)
    if (clock.replaying() && !now.some((event) => event.type === "run_ended")) return now
    const held = resumed
    resumed = undefined
    return held !== undefined && held.replayed === clock.replayed() && now.length > 0 ? [held.event, ...now] : now
  }
  return {
    observed: bus.observed,
    responseObserved: bus.responseObserved,
    publish: (event) =>
      Effect.suspend(() =>
        event.type !== "run_resumed" && resumed === undefined
          ? shown(event)
            ? bus.publish(event)
            : Effect.void
          : Effect.flatMap(Clock.currentTimeMillis, (at) => {
              const events = withResumed([KernelEvent.stamp(event, at)])
              return events.length === 0 ? Effect.void : bus.deliver(events)
            })
      ),
    deliver: (events) => Effect.suspend(() => bus.deliver(withResumed(events))),
    modelResponded: (response, info) =>
      clock.replaying() || withheld() ? Effect.void : bus.modelResponded(response, info)
  }
}

/** A journaled model attempt: what the seam returned, and when. */
const ModelStep = Steps.codec(
  Schema.Struct({
    result: Schema.Result(ModelProvider.ModelResponse, ModelError.ModelError),
    at: Schema.Number
  })
)

/** A journaled tool call: its result, and when it came. */
const ToolStep = Steps.codec(Schema.Struct({ result: Content.ToolResultBlock, at: Schema.Number }))

/** A journaled instant. */
const Instant = Steps.codec(Schema.Struct({ at: Schema.Number }))

/**
 * How a paused run is resumed: whether its retry budget starts again, and
 * when (epoch milliseconds). The value its resume completes the pause's
 * durable deferred with.
 *
 * @internal
 */
export const Resume = Schema.Struct({ reset_budget: Schema.Boolean, at: Schema.Number })

/**
 * The durable deferred a run paused at `step` waits on (`pause/<turn>/<attempt>`).
 *
 * @internal
 */
export const pauseDeferred = (step: string) => DurableDeferred.make(step, { success: Resume })

/**
 * The result a tool call gets when the process stopped while it ran: the
 * journal cannot tell whether the tool finished, so it is not run again.
 *
 * @internal
 */
export const unknownOutcome = (call: Content.ToolUseBlock): Content.ToolResultBlock =>
  Content.toolResult(
    call.id,
    `The agent process stopped while the tool "${call.name}" was running; it is unknown whether the tool finished. ` +
      "It was not run again: check its effects before calling it again.",
    true
  )

/**
 * What a journaled step needs: the engine and the execution it belongs to, and
 * the database of the tool-call claims.
 *
 * @internal
 */
export type Journal = Steps.StepContext | SqlClient.SqlClient

/** @internal */
export interface Options {
  readonly executionId: string
  readonly clock: JournalClock
  readonly idempotent: (tool: string) => boolean
  /**
   * Whether the run's caller stopped it: the run ends (interrupted) at a wait
   * it had not woken from rather than wait. (It executes no step either: the
   * body refuses one where the engine executes it, see `AgentRun.body`.)
   */
  readonly stopping: () => boolean
  /** Told of a journal failure in a step (which then fails the loop), before the loop sees it. */
  readonly failed: (error: JournalError) => void
  /** Writes the events published so far to the session's log: before a durable wait. */
  readonly flush: Effect.Effect<void>
  /**
   * Before a step executes for real: the events published before it are to be written to the log
   * (see `EventLog.Writer.beforeStep`), so that a reader sees what the run is waiting on.
   */
  readonly beforeStep: Effect.Effect<void>
  /**
   * Records the run as paused at `pause` in the store, with the events published so far, where its
   * resume finds the durable deferred `step`.
   */
  readonly paused: (pause: Session.Pause, step: string) => Effect.Effect<void>
  /**
   * Records the run, paused at the durable deferred `step` and answered, as going on (`running`) if the
   * store still has it paused there: a process stopped between a resume's completion and its row.
   */
  readonly resumed: (step: string, at: number) => Effect.Effect<void>
  /** Whether the store holds the run paused at the durable deferred `step` now. */
  readonly pausedAt: (step: string) => Effect.Effect<boolean>
}

/**
 * Wraps the effects seam so that every effect is a journaled step of the
 * current workflow execution:
 * - a model attempt is the activity `model/<turn>/<attempt>`;
 * - a tool call is the activity `tool/<turn>/<n>/<id>` (`n` numbers the
 *   run's tool calls in the order the model gave them: the calls of earlier
 *   turns, plus the call's `ToolInfo.index`, plus one; never in the order
 *   concurrent calls start, which a replay need not repeat), which claims the call in
 *   `agent_tool_calls` before invoking it: a second execution of the body
 *   finds the claim and answers `unknownOutcome`, unless the tool is
 *   idempotent, which runs again;
 * - a retry's wait is the durable clock `retry/<turn>/<attempt>` (its
 *   deadline is journaled as a wall-clock time, so a restart finishes the same
 *   wait), then the activity `woke/<turn>/<attempt>` journals when it ended;
 * - a pause is the activity `paused/<turn>/<attempt>`, which records the run
 *   as paused in the store, then the durable deferred `pause/<turn>/<attempt>`,
 *   which its resume completes (`Resume`): a replay after the resume answers
 *   the pause from the journal and goes on; one before it suspends again.
 *
 * A step whose journal fails (a `JournalError` defect) is reported to
 * `failed` before the loop sees the defect.
 *
 * @internal
 */
export const wrap =
  (options: Options, context: Context.Context<Journal>) =>
  (live: Session.Effects): Session.Effects => {
    const { clock, executionId } = options
    const step = Steps.stepOf(context, executionId)
    // The store's own client when the engine's layer has one (on Postgres, the owner lock's connection).
    const sql = Store.storeSqlIn(context)
    // The tool calls of the turns before `toolTurn`, and those of `toolTurn` so far: every call of a
    // turn is made before the next turn's first, in every execution alike.
    let toolTurn = 0
    let earlierTools = 0
    let turnTools = 0
    let lastCall = "0/0"
    const now = () => Effect.sync(() => clock.currentTimeMillisUnsafe())
    const journaled = <A, R>(step: Effect.Effect<A, never, R>): Effect.Effect<A, never, R> =>
      Effect.tapCause(step, (cause) =>
        Effect.sync(() => {
          for (const reason of cause.reasons)
            if (Cause.isDieReason(reason)) Option.map(asJournalError(reason.defect), options.failed)
        })
      )
    return {
      model: (request, info) => {
        lastCall = `${info.turn}/${info.attempt}`
        return step(
          `model/${lastCall}`,
          ModelStep,
          Effect.andThen(
            options.beforeStep,
            clock.live(
              Effect.flatMap(live.model(request, info), (result) => Effect.map(now(), (at) => ({ result, at })))
            )
          )
        ).pipe(
          Effect.map((step) => {
            clock.completed(step.at)
            return step.result
          }),
          journaled
        )
      },
      tool: (call, info) => {
        if (info.turn !== toolTurn) {
          earlierTools += turnTools
          turnTools = 0
          toolTurn = info.turn
        }
        turnTools++
        // For calls made one after the other this is the count of calls so far, the count a journal
        // without call indexes holds, so such a journal still replays.
        const n = earlierTools + info.index + 1
        const invoke = clock.live(
          Effect.flatMap(live.tool(call, info), (result) => Effect.map(now(), (at) => ({ result, at })))
        )
        const claimed = Effect.suspend(
          () => sql<{ readonly call_id: string }>`INSERT INTO agent_tool_calls (execution_id, call_id, started_at)
            VALUES (${executionId}, ${`${info.turn}/${n}/${call.id}`}, ${clock.currentTimeMillisUnsafe()})
            ON CONFLICT DO NOTHING RETURNING call_id`
        ).pipe(
          Effect.map((rows) => rows.length > 0),
          // A claim that cannot be written leaves the call unclaimed: it must not run, and the
          // failure is the journal's (the run stops unfinished), not the tool's result.
          Effect.catch(fail(`cannot claim the tool call ${call.id}`, executionId))
        )
        return step(
          `tool/${info.turn}/${n}/${call.id}`,
          ToolStep,
          Effect.andThen(
            options.beforeStep,
            options.idempotent(call.name)
              ? invoke
              : Effect.flatMap(claimed, (fresh) =>
                  fresh ? invoke : clock.live(Effect.map(now(), (at) => ({ result: unknownOutcome(call), at })))
                )
          )
        ).pipe(
          Effect.map((step) => {
            clock.completed(step.at)
            return step.result
          }),
          journaled
        )
      },
      sleep: (delay) => {
        const name = lastCall
        const durable = {
          name: `retry/${name}`,
          // Whole milliseconds, rounded up (never sooner than decided): a jittered delay is fractional, and
          // the cluster engine stores the wake-up in a BIGINT column that Postgres refuses a fraction for.
          duration: Duration.millis(Math.ceil(Duration.toMillis(delay))),
          // A wait of any length is a journaled deadline: the default keeps waits under a minute in memory.
          inMemoryThreshold: Duration.zero
        }
        const wait = Effect.andThen(options.flush, DurableClock.sleep(durable)).pipe(
          Effect.andThen(step(`woke/${name}`, Instant, clock.live(Effect.map(now(), (at) => ({ at }))))),
          Effect.map((step) => clock.completed(step.at))
        )
        // Whether this wait's wake-up is journaled: it ended in an earlier execution, which went on past it.
        const woken = Effect.flatMap(WorkflowEngine.WorkflowEngine, (engine) =>
          engine.deferredResult(DurableClock.make(durable).deferred)
        ).pipe(Effect.map(Option.isSome))
        return Effect.suspend(() =>
          // A run stopped while suspended on a wait replays up to that wait and ends there: it does not
          // wait again. A wait it had woken from is replayed, so what the run did after it is kept.
          options.stopping() ? Effect.flatMap(woken, (woke) => (woke ? wait : Effect.interrupt)) : wait
        ).pipe(Effect.provide(context), journaled)
      },
      // Paused there before: the store still holds the pause, or its resume is journaled (then the row may be running).
      pausedBefore: (where) => {
        const deferred = pauseDeferred(`pause/${where.turn}/${where.attempt}`)
        const resumed = Effect.flatMap(WorkflowEngine.WorkflowEngine, (engine) => engine.deferredResult(deferred)).pipe(
          Effect.map(Option.isSome)
        )
        return Effect.flatMap(options.pausedAt(deferred.name), (paused) =>
          paused ? Effect.succeed(true) : resumed
        ).pipe(Effect.provide(context), journaled)
      },
      pause: (pause) => {
        const name = `${pause.turn}/${pause.attempt}`
        const deferred = pauseDeferred(`pause/${name}`)
        // Whether the pause's resume is journaled: an earlier execution went on past it.
        const done = Effect.flatMap(WorkflowEngine.WorkflowEngine, (engine) => engine.deferredResult(deferred)).pipe(
          Effect.map(Option.isSome)
        )
        // A pause its resume already answered (the process stopped before the step was journaled) is not
        // recorded again: the row would say paused while the run goes on.
        const record = Effect.flatMap(done, (answered) =>
          step(
            `paused/${name}`,
            Instant,
            clock.live(
              Effect.andThen(
                answered ? Effect.void : options.paused(pause, deferred.name),
                Effect.map(now(), (at) => ({ at }))
              )
            )
          )
        )
        const resumed = Effect.flatMap(DurableDeferred.await(deferred), (resume) => {
          clock.completed(resume.at)
          return Effect.as(options.resumed(deferred.name, resume.at), {
            resetBudget: resume.reset_budget,
            at: resume.at
          })
        })
        return Effect.andThen(
          record,
          Effect.suspend(() =>
            // A run stopped while paused replays up to its pause and ends there, as at a wait.
            options.stopping() ? Effect.flatMap(done, (woke) => (woke ? resumed : Effect.interrupt)) : resumed
          )
        ).pipe(Effect.provide(context), journaled)
      }
    }
  }
