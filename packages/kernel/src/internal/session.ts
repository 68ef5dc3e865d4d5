import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { identity } from "effect/Function"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import * as Content from "../Content.js"
import * as ContextProvider from "../ContextProvider.js"
import * as Decision from "../Decision.js"
import * as EventBus from "../EventBus.js"
import * as KernelEvent from "../KernelEvent.js"
import * as ModelError from "../ModelError.js"
import * as ModelProvider from "../ModelProvider.js"
import * as RetryBudget from "../RetryBudget.js"
import * as RetryPolicy from "../RetryPolicy.js"
import * as RetryQuota from "../RetryQuota.js"
import type * as RunOutcome from "../RunOutcome.js"
import type * as SessionApi from "../Session.js"
import * as Settings from "../Settings.js"
import * as Toolbox from "../Toolbox.js"
import * as Effects from "./effects.js"
import * as Log from "./log.js"
import * as Loop from "./loop.js"
import * as Meter from "./meter.js"
import * as Run from "./run.js"
import * as SessionState from "./sessionState.js"
import * as Telemetry from "./telemetry.js"
import * as Tools from "./tools.js"

/**
 * The default capacity of a session's event stream (`Session.defaultSubscriberCapacity`).
 *
 * @internal
 */
export const defaultSubscriberCapacity = 1_024

/**
 * The session's own event stream: a bounded PubSub with back-pressure, made
 * at the first subscription (an idle session, or one nobody subscribes to,
 * holds none), and how many subscribers read it.
 */
interface Events {
  readonly hub: Effect.Effect<PubSub.PubSub<KernelEvent.KernelEvent>>
  subscribers: number
  current: PubSub.PubSub<KernelEvent.KernelEvent> | undefined
}

/**
 * Makes a session. `effects` may wrap the effects seam of every run: a
 * durable runtime journals a session there, without touching the loop.
 *
 * @internal
 */
export const make = Effect.fnUntraced(function* (
  options: SessionApi.Options,
  effects: (live: Effects.Effects) => Effects.Effects = identity
) {
  const provider = yield* ModelProvider.ModelProvider
  const settings = options.settings ?? Settings.defaults
  const budget = (yield* RetryBudget.RetryBudget).budgetFor(settings)
  const env: Run.Env = {
    id: options.id ?? `session-${crypto.randomUUID()}`,
    model: options.model,
    models: [options.model, ...settings.fallback_models.filter((model) => model !== options.model)],
    settings,
    policy: policyOf(options.policy, settings),
    system: options.system,
    maxOutputTokens: options.maxOutputTokens,
    request: options.request,
    toolConcurrency: options.toolConcurrency ?? 1,
    metrics: options.metrics ?? true,
    meter: Meter.forProvider(provider.name),
    toolbox: yield* Toolbox.Toolbox,
    contextProvider: yield* ContextProvider.ContextProvider,
    bus: yield* EventBus.EventBus,
    budget
  }
  const state = yield* Ref.make(SessionState.initial(options, budget))
  const lock = yield* Semaphore.make(1)
  const events: Events = {
    hub: yield* Effect.cached(
      Effect.tap(
        PubSub.bounded<KernelEvent.KernelEvent>(options.subscriberCapacity ?? defaultSubscriberCapacity),
        (hub) => Effect.sync(() => (events.current = hub))
      )
    ),
    subscribers: 0,
    current: undefined
  }
  const timeouts = ModelProvider.callTimeoutsFrom(settings)
  const live = Effects.make({ provider, toolbox: env.toolbox, attemptTimeout: timeouts.attempt })
  const subscribe = subscribeTo(events)
  const runs: Runs = { env, state, events, provider: provider.name, timeouts, effects: () => effects(live) }
  return {
    id: env.id,
    settings,
    run: (input) => lock.withPermit(runOnce(runs, input)),
    history: Effect.map(Ref.get(state), (state) => Log.toArray(state.history)),
    context: Effect.map(Ref.get(state), (state) => Log.toArray(state.context)),
    state: Effect.map(Ref.get(state), SessionState.toPublic),
    events: Stream.unwrap(subscribe),
    subscribe,
    retryBudget: Effect.map(Ref.get(state), (state) => budget.snapshot(state.budget))
  } satisfies SessionApi.Service
})

/** The session's retry policy: the one given, or the settings' own, made at the first retryable error. */
const policyOf = (
  given: RetryPolicy.RetryPolicy | undefined,
  settings: Settings.Settings
): (() => RetryPolicy.RetryPolicy) => {
  let policy = given
  return () => (policy ??= RetryPolicy.fromSettings(settings))
}

/** A subscription to the session's events for the life of the scope; while it lasts, the loop builds events. */
const subscribeTo = (events: Events): Effect.Effect<Stream.Stream<KernelEvent.KernelEvent>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const subscription = yield* PubSub.subscribe(yield* events.hub)
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        events.subscribers++
      }),
      () =>
        Effect.sync(() => {
          events.subscribers--
        })
    )
    return Stream.fromSubscription(subscription)
  })

/**
 * Offers events to the session's stream, if anyone subscribes, in order.
 * Uninterruptible: the session's state already holds what they describe,
 * so an interrupted offer would leave a subscriber short of an event. A
 * subscriber that goes away releases the wait.
 */
const offerTo =
  (events: Events) =>
  (published: ReadonlyArray<KernelEvent.KernelEvent>): Effect.Effect<void> =>
    Effect.suspend(() =>
      events.subscribers === 0 || events.current === undefined
        ? Effect.void
        : Effect.uninterruptible(Effect.asVoid(PubSub.publishAll(events.current, published)))
    )

/** What every run of a session starts from. */
interface Runs {
  readonly env: Run.Env
  readonly state: Ref.Ref<SessionState.State>
  readonly events: Events
  readonly provider: string
  /** The call timeouts of the settings, given to every call of every run. */
  readonly timeouts: ModelProvider.CallTimeouts
  /** The run's effects: the live ones, as `Options.effects` wraps them for each run. */
  readonly effects: () => Effects.Effects
}

/**
 * One run, holding the session's lock: it starts, runs its turns
 * interruptibly, and ends (answering what is pending, publishing
 * `run_ended`) however the turns end, in the invoke_agent span.
 */
const runOnce = (runs: Runs, input: string | Content.Message): Effect.Effect<RunOutcome.RunOutcome> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function* () {
      const { env, state, events } = runs
      const clock = yield* Clock.Clock
      const message = typeof input === "string" ? Content.userText(input) : input
      const started = yield* Ref.updateAndGet(state, (current) =>
        SessionState.startRun(current, env.id, clock.currentTimeMillisUnsafe(), message)
      )
      const runId = SessionState.figures(started).run_id
      const offer = offerTo(events)
      const run: Run.Run = {
        env,
        state,
        runId,
        runNumber: started.runs,
        startedAt: SessionState.figures(started).started_at,
        clock,
        effects: runs.effects(),
        quota: yield* RetryQuota.RetryQuota,
        listening: () => env.bus.observed || events.subscribers > 0,
        subscribed: () => events.subscribers > 0,
        offer,
        notify: (published) => env.bus.deliver(published),
        overhead: undefined
      }
      // The bus the run's services publish to (a plugin's breaker): the session's stream and its observers.
      const bus: EventBus.Service = {
        ...env.bus,
        observed: true,
        publish: (event) =>
          Effect.flatMap(Clock.currentTimeMillis, (at) => Run.publishAll(run, [KernelEvent.stamp(event, at)])),
        deliver: (published) => Run.publishAll(run, published)
      }
      return yield* Telemetry.withSpan(
        Telemetry.Operation.invokeAgent,
        Telemetry.run({ session: env.id, runId, provider: runs.provider, model: env.model }),
        (span) => lifecycle(run, span, typeof input === "string" ? input : Content.textOf(message), restore)
      ).pipe(
        Effect.provideService(EventBus.EventBus, bus),
        Effect.provideService(ModelProvider.CurrentCallTimeouts, runs.timeouts)
      )
    })
  )

/** A run from its start to its end, in its span. */
const lifecycle = Effect.fnUntraced(function* (
  run: Run.Run,
  span: Tracer.Span,
  input: string,
  restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
) {
  yield* Run.publish(run, {
    type: "run_started",
    at: Run.now(run),
    run_id: run.runId,
    model: run.env.model,
    input
  })
  const exit = yield* Effect.exit(restore(Loop.turns(run)))
  const ending = endingOf(run, exit)
  // An interrupted run lets the toolbox release what it left running (plugin processes) first.
  const closed = ending === undefined ? yield* Effect.exit(run.env.toolbox.onRunInterrupted ?? Effect.void) : Exit.void
  const outcome = yield* finish(run, ending ?? Decision.End({ status: "interrupted" }))
  Telemetry.annotate(span, Telemetry.runEnded(outcome.status, outcome.error))
  if (Exit.isFailure(exit) && ending === undefined)
    return yield* Effect.failCause(Exit.isFailure(closed) ? Cause.combine(exit.cause, closed.cause) : exit.cause)
  return outcome
})

/** How the loop's end reads as a run's ending; `undefined` when the run was interrupted. */
const endingOf = (run: Run.Run, exit: Exit.Exit<Decision.End>): Decision.End | undefined => {
  if (Exit.isSuccess(exit)) return exit.value
  if (Cause.hasInterruptsOnly(exit.cause)) return undefined
  // A defect in a plugged-in service (a toolbox's definitions, a context provider) still
  // ends the run with a status, a run_ended event and a valid history.
  return Decision.End({
    status: "failed",
    error: new ModelError.Unknown({
      provider: "agent-kernel",
      model: run.env.model,
      message: `the run failed unexpectedly: ${Effects.describeDefect(Cause.squash(exit.cause))}`
    })
  })
}

/**
 * Ends a run: answers the tool calls still pending, publishes run_ended,
 * counts the run, and builds its outcome.
 */
const finish = Effect.fnUntraced(function* (run: Run.Run, ending: Decision.End) {
  const state = yield* Ref.updateAndGet(run.state, (state) =>
    SessionState.answerPending(state, Tools.pendingReason(ending.status))
  )
  const figures = SessionState.figures(state)
  const wall = Run.now(run) - figures.started_at
  const retries = { max_per_call: figures.max_per_call, session_total: run.env.budget.snapshot(state.budget).used }
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
    history: Log.toArray(state.history)
  }
  yield* Run.publish(run, {
    type: "run_ended",
    at: Run.now(run),
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
  if (run.env.metrics) yield* Meter.runEnded(ending.status, figures.turns)
  return outcome
})
