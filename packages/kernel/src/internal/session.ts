import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as MutableRef from "effect/MutableRef"
import type * as Scope from "effect/Scope"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as Content from "../Content.js"
import * as ContextProvider from "../ContextProvider.js"
import * as Decision from "../Decision.js"
import * as EventBus from "../EventBus.js"
import * as KernelEvent from "../KernelEvent.js"
import * as ModelError from "../ModelError.js"
import * as ModelProvider from "../ModelProvider.js"
import * as RetryBudget from "../RetryBudget.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as RetryQuota from "../RetryQuota.js"
import type * as RunOutcome from "../RunOutcome.js"
import type * as SessionApi from "../Session.js"
import * as Settings from "../Settings.js"
import * as Toolbox from "../Toolbox.js"
import * as Effects from "./effects.js"
import * as Log from "./log.js"
import * as Loop from "./loop.js"
import * as Meter from "./meter.js"
import * as SessionState from "./sessionState.js"
import * as Telemetry from "./telemetry.js"

/**
 * The default capacity of a session's event stream (`Session.defaultSubscriberCapacity`).
 *
 * @internal
 */
export const defaultSubscriberCapacity = 1_024

/**
 * Makes a session. `effects` may wrap the effects seam of every run: a
 * durable runtime journals a session there, without touching the loop.
 *
 * @internal
 */
export const make = (
  options: SessionApi.Options,
  effects: (live: Effects.Effects) => Effects.Effects = identity
): Effect.Effect<SessionApi.Service, never, ModelProvider.ModelProvider> =>
  // The services are read from the context in one step, not one effect each.
  Effect.contextWith((services: Context.Context<ModelProvider.ModelProvider>) => {
    const settings = options.settings ?? Settings.defaults
    const budget = Context.get(services, RetryBudget.RetryBudget).budgetFor(settings)
    const provider = Context.get(services, ModelProvider.ModelProvider)
    // What only a run needs is made at the first run: an idle session holds none of it (its lock
    // and its runs' bus, a fraction of what an idle session may hold).
    let lock: RunLock | undefined
    let bus: EventBus.Service | undefined
    const env = new SessionEnv(options, settings, budget, provider.name, services)
    const capacity: number = options.subscriberCapacity ?? defaultSubscriberCapacity
    // The accessors are built when read: an idle session holds its state and nothing else.
    return {
      id: env.id,
      settings,
      // Made when the first run is asked for, before any run starts: runs are still serialised.
      run: (input) => {
        if (lock === undefined) lock = { busy: false, waiting: undefined }
        if (bus === undefined) bus = runBus(env)
        return runOnce(env, lock, bus, provider, effects, input)
      },
      get history() {
        return Effect.sync(() => Log.toArray(MutableRef.get(env.state).history))
      },
      get context() {
        return Effect.sync(() => Log.toArray(MutableRef.get(env.state).context))
      },
      get state() {
        return Effect.sync(() => SessionState.toPublic(MutableRef.get(env.state)))
      },
      get events() {
        return Stream.unwrapScoped(subscribe(env, capacity))
      },
      get subscribe() {
        return subscribe(env, capacity)
      },
      get retryBudget() {
        return Effect.sync(() => budget.snapshot(MutableRef.get(env.state).budget))
      }
    } satisfies SessionApi.Service
  })

/**
 * What a session holds that does not change between runs (`Loop.Env`). A
 * class, so that its two lazy fields are getters of the prototype: an object
 * literal with getters is made in dictionary mode, which cost a session half
 * a kilobyte and a few microseconds, and every read of its fields in the loop
 * a slow property lookup.
 */
class SessionEnv implements Loop.Env {
  readonly id: string
  readonly model: string
  readonly models: ReadonlyArray<string>
  readonly policy: RetryPolicy.RetryPolicy | undefined
  readonly system: string | undefined
  readonly maxOutputTokens: number | undefined
  readonly request: ModelProvider.RequestOptions | undefined
  readonly toolConcurrency: number
  readonly metrics: boolean
  readonly toolbox: Toolbox.Service
  readonly contextProvider: ContextProvider.Service
  readonly bus: EventBus.Service
  readonly state: MutableRef.MutableRef<SessionState.State>
  readonly listeners: Loop.Listeners = { hub: undefined, subscribers: 0 }
  private lazyMeter: Meter.Meter | undefined = undefined
  private lazyCallTimeouts: ModelProvider.CallTimeouts | undefined = undefined

  readonly settings: Settings.Settings
  readonly budget: RetryBudget.Budget
  private readonly providerName: string

  constructor(
    options: SessionApi.Options,
    settings: Settings.Settings,
    budget: RetryBudget.Budget,
    providerName: string,
    services: Context.Context<never>
  ) {
    this.settings = settings
    this.budget = budget
    this.providerName = providerName
    this.id = options.id ?? `session-${crypto.randomUUID()}`
    this.model = options.model
    this.models =
      settings.fallback_models.length === 0
        ? [options.model]
        : [options.model, ...settings.fallback_models.filter((model) => model !== options.model)]
    this.policy = options.policy
    this.system = options.system
    this.maxOutputTokens = options.maxOutputTokens
    this.request = options.request
    this.toolConcurrency = options.toolConcurrency ?? 1
    this.metrics = options.metrics ?? true
    this.toolbox = Context.get(services, Toolbox.Toolbox)
    this.contextProvider = Context.get(services, ContextProvider.ContextProvider)
    this.bus = Context.get(services, EventBus.EventBus)
    this.state = MutableRef.make(SessionState.initial(options, budget))
  }

  /** Looked up at the first run: a session that never runs, or runs without metrics, adds no entry. */
  get meter(): Meter.Meter {
    if (this.lazyMeter === undefined) this.lazyMeter = Meter.forProvider(this.providerName)
    return this.lazyMeter
  }

  /** Made at the first run: an idle session holds none. */
  get callTimeouts(): ModelProvider.CallTimeouts {
    if (this.lazyCallTimeouts === undefined) this.lazyCallTimeouts = ModelProvider.callTimeoutsFrom(this.settings)
    return this.lazyCallTimeouts
  }
}

/**
 * The session's PubSub, made at the first subscription. It is bounded with
 * the back-pressure strategy: a publisher waits while the slowest subscriber
 * has `capacity` events unread, so memory stays bounded and no event is lost.
 */
const hubOf = (env: Loop.Env, capacity: number): Effect.Effect<PubSub.PubSub<KernelEvent.KernelEvent>> =>
  Effect.suspend(() => {
    const { listeners } = env
    return listeners.hub !== undefined
      ? Effect.succeed(listeners.hub)
      : Effect.map(PubSub.bounded<KernelEvent.KernelEvent>(capacity), (hub) => (listeners.hub ??= hub))
  })

/** A subscription to the session's events for the life of the scope; while it lasts, the loop builds events. */
const subscribe = (
  env: Loop.Env,
  capacity: number
): Effect.Effect<Stream.Stream<KernelEvent.KernelEvent>, never, Scope.Scope> =>
  Effect.flatMap(hubOf(env, capacity), (hub) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        env.listeners.subscribers++
      }),
      () =>
        Effect.sync(() => {
          env.listeners.subscribers--
        })
    ).pipe(Effect.zipRight(Stream.fromPubSub(hub, { scoped: true })))
  )

/** The bus the runs' services publish to (a plugin's breaker): the session's stream and its observers. */
const runBus = (env: Loop.Env): EventBus.Service => ({
  observed: true,
  responseObserved: env.bus.responseObserved,
  publish: (event) =>
    Effect.flatMap(Effect.clock, (clock) =>
      Effect.suspend(() => {
        const stamped = [KernelEvent.stamp(event, clock.unsafeCurrentTimeMillis())]
        return Effect.zipRight(Loop.offer(env, stamped), env.bus.deliver(stamped))
      })
    ),
  deliver: (events) => Effect.suspend(() => Effect.zipRight(Loop.offer(env, events), env.bus.deliver(events))),
  modelResponded: env.bus.modelResponded
})

/**
 * What serialises a session's runs: whether one holds the session, and the
 * wake-ups of the runs that wait for it. A run that finds the session free
 * takes it at once, on its own stack. Effect's semaphore takes even a free
 * permit through an async callback, which sent every run through the
 * scheduler (a task, a microtask and a fiber message) before its first step.
 *
 * @internal
 */
export interface RunLock {
  busy: boolean
  /** Made when a run first waits: most sessions never run two at once. */
  waiting: Set<() => void> | undefined
}

/**
 * Takes the lock: a free one at once (`Effect.void`), in the caller's uninterruptible region, where
 * this is called (an interruption between taking it and the exit handler's region would leave it
 * held); a held one after waiting, interruptibly, for a release, then trying again.
 */
const enter = (
  lock: RunLock,
  restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
): Effect.Effect<void> => {
  if (!lock.busy) {
    lock.busy = true
    return Effect.void
  }
  const released = Effect.async<void>((resume) => {
    // Checked again where the waiter registers, in one synchronous step: the fiber may have yielded
    // between the check above and here (Effect does every 2,048 operations, even where it cannot be
    // interrupted), and a release in between woke only the runs already waiting.
    if (!lock.busy) return resume(Effect.void)
    if (lock.waiting === undefined) lock.waiting = new Set()
    const waiting = lock.waiting
    const wake = () => {
      waiting.delete(wake)
      resume(Effect.void)
    }
    waiting.add(wake)
    return Effect.sync(() => {
      waiting.delete(wake)
    })
  })
  return Effect.flatMap(restore(released), () => enter(lock, restore))
}

/**
 * Frees the lock and wakes every waiting run, as Effect's semaphore does:
 * the first to run takes it, the others wait again, and one interrupted
 * before it ran takes nothing and holds up none of the others.
 */
const leave = (lock: RunLock): void => {
  lock.busy = false
  if (lock.waiting !== undefined) for (const wake of lock.waiting) wake()
}

/**
 * One run, serialised with the session's other runs. Its services are set
 * in the fiber's context for the run and restored after it, and its lock
 * released, in one exit handler: `withPermits` and a provided context would
 * each wrap the run in an acquire-use-release of its own, which cost a run
 * more than a step. What the run reads from its fiber (its clock, context
 * and tracer) is read in one step.
 */
const runOnce = (
  env: Loop.Env,
  lock: RunLock,
  bus: EventBus.Service,
  provider: ModelProvider.Service,
  wrap: (live: Effects.Effects) => Effects.Effects,
  input: string | Content.Message
): Effect.Effect<RunOutcome.RunOutcome> =>
  Effect.uninterruptibleMask((restore) => {
    // Called in the mask's region, as the run starts: a free lock is taken with no effect of its own.
    const entered = enter(lock, restore)
    return entered === Effect.void
      ? locked(env, lock, bus, provider, wrap, input, restore)
      : Effect.flatMap(entered, () => locked(env, lock, bus, provider, wrap, input, restore))
  })

/**
 * The run, once it holds the lock, in the caller's uninterruptible region
 * (`restore` makes its loop interruptible), and its exit handler.
 */
const locked = (
  env: Loop.Env,
  lock: RunLock,
  bus: EventBus.Service,
  provider: ModelProvider.Service,
  wrap: (live: Effects.Effects) => Effects.Effects,
  input: string | Content.Message,
  restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
): Effect.Effect<RunOutcome.RunOutcome> => {
  // Set as the run's services go into the fiber's context: the context to put back.
  let outer: Context.Context<never> | undefined
  // Set once the run has started: what closing an interrupted run answers and ends.
  let started: { readonly live: Loop.Run; readonly cursor: Loop.Cursor } | undefined
  // The caller's runtime is read first, where the run is interruptible (the calls' fibers take its
  // flags): an interruption there comes before the run has started anything it must close.
  const run = Effect.flatMap(restore(Effect.runtime<never>()), (caller) =>
    Effect.withFiberRuntime<RunOutcome.RunOutcome>((fiber) => {
      const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
      const message = typeof input === "string" ? Content.userText(input) : input
      const state = SessionState.startRun(MutableRef.get(env.state), env.id, clock.unsafeCurrentTimeMillis(), message)
      const runId = SessionState.figures(state).run_id
      const spans = Effects.spansOf(fiber)
      const runSpan = spans.enabled
        ? Telemetry.run(spans, { session: env.id, runId, provider: provider.name, model: env.model })
        : undefined
      const cursor: Loop.Cursor = {
        state,
        events: Loop.noEvents,
        turnSpan: undefined,
        tools: undefined,
        running: undefined
      }
      // The run's services: its span as the parent of every span in it, the bus that carries a
      // plugin's events to the session's stream and observers, and the settings' call timeouts.
      const context = fiber.getFiberRef(FiberRef.currentContext)
      outer = context
      // One copy of the context's map, where a `Context.add` each made one of its own.
      const map = new Map(context.unsafeMap)
      if (runSpan !== undefined) map.set(Tracer.ParentSpan.key, runSpan)
      map.set(EventBus.EventBus.key, bus)
      map.set(ModelProvider.CurrentCallTimeouts.key, env.callTimeouts)
      const services = Context.unsafeMake<never>(map)
      // The calls' runtime: the caller's flags and refs, the run's services.
      const runtime = Runtime.make({
        context: services,
        fiberRefs: caller.fiberRefs,
        runtimeFlags: caller.runtimeFlags
      })
      return Effect.flatMap(FiberRef.set(FiberRef.currentContext, services), () => {
        const live: Loop.Run = {
          env,
          runId,
          runNumber: state.runs,
          clock,
          spans,
          runSpan,
          effects: wrap(
            Effects.make({
              provider,
              toolbox: env.toolbox,
              // The settings' own attempt timeout, made once a session with the other call timeouts.
              attemptTimeout: env.callTimeouts.attempt,
              runtime,
              spans
            })
          ),
          quota: Context.get(services, RetryQuota.RetryQuota)
        }
        started = { live, cursor }
        if (Loop.listening(env))
          Loop.note(cursor, {
            type: "run_started",
            at: clock.unsafeCurrentTimeMillis(),
            run_id: runId,
            model: env.model,
            input: typeof input === "string" ? input : Content.textOf(message)
          })
        // The loop only ever ends on its error channel: its end and the run's in one handler.
        const ended = Effect.catchAllCause(restore(Loop.turns(live, cursor)), (cause) => {
          const ending = endingOf(env, cause)
          // An interrupted run is closed by the exit handler.
          return ending === undefined ? Effect.interrupt : finish(live, cursor, ending)
        })
        const delivered = Loop.commit(env, cursor)
        return delivered === Effect.void ? ended : Effect.flatMap(delivered, () => ended)
      })
    })
  )
  // `Effect.onExit`'s handling, without its own uninterruptible region: this one is already.
  return Effect.matchCauseEffect(run, {
    onFailure: (cause) => {
      // Restores the caller's context and frees the lock, whatever closing an interrupted run does (a
      // toolbox's onRunInterrupted may die).
      const released = release(lock, outer, undefined)
      const closed =
        started !== undefined && Cause.isInterrupted(cause) ? Effect.ensuring(interrupted(started), released) : released
      return Effect.matchCauseEffect(closed, {
        onFailure: (closing) => Effect.failCause(Cause.sequential(cause, closing)),
        onSuccess: () => Effect.failCause(cause)
      })
    },
    onSuccess: (outcome) => release(lock, outer, outcome)
  })
}

/**
 * Puts the caller's context back (if the run set its own), frees the lock
 * and returns `value`, in one step: the context's update frees the lock.
 */
const release = <A>(lock: RunLock, outer: Context.Context<never> | undefined, value: A): Effect.Effect<A> =>
  outer === undefined
    ? Effect.sync(() => {
        leave(lock)
        return value
      })
    : FiberRef.modify(FiberRef.currentContext, () => {
        leave(lock)
        return [value, outer]
      })

/**
 * Closes an interrupted run: the toolbox first releases what the run may
 * have left running (plugin processes), then every tool_use gets a
 * tool_result, so the history stays valid.
 */
const interrupted = (started: { readonly live: Loop.Run; readonly cursor: Loop.Cursor }): Effect.Effect<unknown> =>
  Effect.flatMap(started.live.env.toolbox.onRunInterrupted ?? Effect.void, () =>
    finish(started.live, started.cursor, Decision.End({ status: "interrupted" }))
  )

/** How the loop's end reads as a run's ending; `undefined` when the run was interrupted. */
const endingOf = (env: Loop.Env, cause: Cause.Cause<Loop.Ended>): Decision.End | undefined => {
  // How every run that is not interrupted ends, read without the search `Cause.failureOption` makes.
  if (Cause.isFailType(cause)) return cause.error.ending
  const ended = Cause.failureOption(cause)
  if (Option.isSome(ended)) return ended.value.ending
  if (Cause.isInterruptedOnly(cause)) return undefined
  // A defect in a plugged-in service (a toolbox's definitions, a context provider) still
  // ends the run with a status, a run_ended event and a valid history.
  return Decision.End({
    status: "failed",
    error: new ModelError.Unknown({
      provider: "agent-kernel",
      model: env.model,
      message: `the run failed unexpectedly: ${Effects.describeDefect(Cause.squash(cause))}`
    })
  })
}

/**
 * Ends a run: answers pending tool calls, publishes run_ended, and builds the
 * outcome. Called where the run ends: it commits the run's last state at once
 * and returns the rest (the delivery, then the metrics and the spans' end).
 */
const finish = (run: Loop.Run, cursor: Loop.Cursor, ending: Decision.End): Effect.Effect<RunOutcome.RunOutcome> => {
  const { env } = run
  // A result that came back before the run ended is kept; only the calls still out are answered.
  const state = SessionState.answerPending(cursor.state, Loop.pendingReason(ending.status), cursor.running?.results)
  const figures = SessionState.figures(state)
  const wall = run.clock.unsafeCurrentTimeMillis() - figures.started_at
  const retries = { max_per_call: figures.max_per_call, session_total: env.budget.snapshot(state.budget).used }
  // The history as the run left it, made when read: the log is append-only, so a later run never
  // changes what this one's outcome shows, and a session of many runs never copies its history
  // once a run for an outcome nobody reads.
  let history: Content.History | undefined
  const outcome: RunOutcome.RunOutcome = {
    run_id: figures.run_id,
    status: ending.status,
    ...(ending.error !== undefined ? { error: ending.error } : {}),
    turns: figures.turns,
    retries,
    usage: figures.usage,
    cost_usd: figures.cost_usd,
    wall_ms: wall,
    context_reductions: figures.reductions,
    final_text: figures.final_text,
    get history() {
      if (history === undefined) history = Log.toArray(state.history)
      return history
    }
  }
  cursor.state = state
  if (Loop.listening(env))
    Loop.note(cursor, {
      type: "run_ended",
      at: run.clock.unsafeCurrentTimeMillis(),
      run_id: figures.run_id,
      status: ending.status,
      turns: figures.turns,
      retries,
      usage: figures.usage,
      cost_usd: figures.cost_usd,
      wall_ms: wall,
      error: ending.error === undefined ? null : KernelEvent.summarize(ending.error),
      final_text: figures.final_text
    })
  const delivered = Loop.commit(env, cursor)
  const ended = Effect.withFiberRuntime<RunOutcome.RunOutcome>((fiber) => {
    // Turns are counted once a run, not once a turn: the counter reads the same, for less work a step.
    if (env.metrics) Meter.runEnded(ending.status, figures.turns, fiber.getFiberRef(FiberRef.currentMetricLabels))
    const exit = ending.status === "interrupted" ? Exit.interrupt(FiberId.none) : Exit.succeed(outcome)
    run.spans.end(cursor.turnSpan, exit)
    run.spans.end(
      run.runSpan,
      exit,
      run.runSpan === undefined ? undefined : Telemetry.runEnded(ending.status, ending.error)
    )
    return Effect.succeed(outcome)
  })
  return delivered === Effect.void ? ended : Effect.flatMap(delivered, () => ended)
}
