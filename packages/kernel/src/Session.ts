/**
 * A session: a long-lived scope that owns the retry budget, the working
 * context and the history, and runs user inputs through the turn loop one at
 * a time.
 *
 * A run takes one input through the loop: assemble context, call the model
 * (retrying transient errors under the policy and the session budget, falling
 * back along `fallback_models`, reducing context on overflow), run the tools
 * it asks for, append the results, and repeat until the model ends its turn
 * or a bound trips. A run never fails: every ending is a `RunOutcome` status.
 *
 * The loop is an interpreter over the pure decisions of `Decision`; the
 * session's whole state is one plain value (`State`), kept in a `Ref` that
 * every step of a run writes as it completes, so a reader (`history`,
 * `state`, an observer, an interruption) always sees the state of the last
 * completed step. Runs are serialised by a `Semaphore` of one permit.
 *
 * Services: `ModelProvider` is required (it shows in `R`). `Toolbox`,
 * `ContextProvider`, `EventBus` and `RetryBudget` are `Context.Reference`s
 * with stateless defaults, read when the session is made: **no tools**
 * (`Toolbox.empty`: the model is offered none, and a tool call it makes
 * anyway is answered with an error result naming the unknown tool), truncate
 * tool results then drop the oldest turns, no observers, and the budget the
 * settings ask for. Provide a `Toolbox` for a session that should have
 * tools. `RetryQuota`, the provider-wide quota, is read by each run from the
 * context it runs in (default: none), since it is shared by whatever calls
 * the provider there: provide it where runs are run, not only where the
 * session is made. What is per session (the budget's state, the event
 * stream) is the session's own, so a default is never shared between
 * sessions.
 *
 * @example
 * ```ts
 * import { ModelProvider, Session, Settings } from "@agent-kernel/kernel"
 * import { Effect } from "effect"
 *
 * declare const provider: ModelProvider.Service
 *
 * const program = Effect.gen(function* () {
 *   const session = yield* Session.make({ model: "claude-sonnet-4-5", settings: Settings.defaults })
 *   const outcome = yield* session.run("What is in README.md?")
 *   console.log(outcome.status, outcome.final_text)
 * }).pipe(Effect.provideService(ModelProvider.ModelProvider, provider))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as Content from "./Content.js"
import type * as InternalEffects from "./internal/effects.js"
import * as internal from "./internal/session.js"
import type * as KernelEvent from "./KernelEvent.js"
import type * as ModelProvider from "./ModelProvider.js"
import * as RetryBudget from "./RetryBudget.js"
import type * as RetryPolicy from "./RetryPolicy.js"
import type * as RunOutcome from "./RunOutcome.js"
import type * as Settings from "./Settings.js"
import * as Usage from "./Usage.js"

/**
 * The figures of a run: the current one while it runs, the last one after.
 *
 * @since 0.2.0
 * @category schemas
 */
export const RunState = Schema.Struct({
  run_id: Schema.String,
  /** Clock time the run started at, in milliseconds. */
  started_at: Schema.Number,
  /** Turns started (retries never advance it). */
  turns: Schema.Number,
  /** The current model call: its attempt in the turn, from 1 (it carries on across a fallback). */
  attempt: Schema.Number,
  /** Which model of the chain the call is on (0: the session's model). */
  model_index: Schema.Number,
  /** Retries of the call on this model: what `max_retries` caps. */
  retries: Schema.Number,
  /** The most retries any one model of any call used. */
  max_per_call: Schema.Number,
  usage: Usage.Usage,
  /** `null` while no call of the run had a price. */
  cost_usd: Schema.NullOr(Schema.Number),
  /** Context overflows met. */
  reductions: Schema.Number,
  /** The model's last text. */
  final_text: Schema.String,
  /** Models already warned about for having no price. */
  unpriced: Schema.Array(Schema.String)
})

/**
 * @since 0.2.0
 * @category models
 */
export interface RunState extends Schema.Schema.Type<typeof RunState> {}

/**
 * Everything a session holds, as one plain value: encode it with the Schema
 * to export a session, and pass it back (`Options.state`) to resume one.
 *
 * @since 0.2.0
 * @category schemas
 */
export const State = Schema.Struct({
  /** The full history, never reduced. */
  history: Content.History,
  /** The working context requests are built from; reduction shrinks it. */
  context: Content.History,
  /** The session budget's state. */
  budget: RetryBudget.State,
  /** Runs started, which numbers the next run's id. */
  runs: Schema.Number,
  /** The current run, or the last one; `null` before the first. */
  run: Schema.NullOr(RunState)
})

/**
 * @since 0.2.0
 * @category models
 */
export interface State extends Schema.Schema.Type<typeof State> {}

/**
 * How many events a session's event stream holds for a subscriber that has
 * not read them yet: a whole number from 1 to 1,048,576 (a larger buffer is
 * not bounded in any useful sense, and PubSub cannot allocate past 2^31). Decode a configured value
 * with `Schema.decodeUnknownEffect(SubscriberCapacity)` for a typed error, or use
 * `SubscriberCapacity.make(n)`, which throws on a bad one.
 *
 * @since 0.3.0
 * @category schemas
 */
export const SubscriberCapacity = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_048_576 })).pipe(
  Schema.brand("@agent-kernel/kernel/Session/SubscriberCapacity")
)

/**
 * @since 0.3.0
 * @category models
 */
export type SubscriberCapacity = Schema.Schema.Type<typeof SubscriberCapacity>

/**
 * The default `Options.subscriberCapacity`: 1,024 events, about a page of
 * streamed text in deltas, and a few hundred kilobytes at most.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultSubscriberCapacity: SubscriberCapacity = SubscriberCapacity.make(internal.defaultSubscriberCapacity)

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The first model of the routing chain; `settings.fallback_models` follow it. */
  readonly model: string
  readonly system?: string | undefined
  /** Default: `Settings.defaults`. */
  readonly settings?: Settings.Settings | undefined
  /** Default: `RetryPolicy.fromSettings(settings)`. */
  readonly policy?: RetryPolicy.RetryPolicy | undefined
  /** Default: a random id. */
  readonly id?: string | undefined
  /** A history to resume from. */
  readonly history?: Content.History | undefined
  /** A whole state to resume from (takes precedence over `history`). */
  readonly state?: State | undefined
  /** How many tool calls of one turn run at once. Default 1 (in order). */
  readonly toolConcurrency?: number | undefined
  readonly maxOutputTokens?: number | undefined
  /**
   * Request options (sampling, tool choice, thinking, ...) applied to every
   * model call of the session. An option the provider lacks fails the call
   * with `InvalidRequest` before anything is sent.
   */
  readonly request?: ModelProvider.RequestOptions | undefined
  /**
   * Back-pressure for `subscribe` and `events` streams: how many events the
   * session holds for a subscriber that has not read them yet. The buffer is
   * bounded and never lossy: once a subscriber is this many events behind,
   * publishing the next event waits until it reads, which holds up the run
   * (and a streaming provider's socket, whose next part is not read
   * meanwhile). No subscriber ever misses an event, and memory never grows
   * past the capacity, however slow a subscriber is. A subscription that is
   * never read stops the run after this many events: read it on another fiber.
   * An interrupted run still publishes its `run_ended`, so its interruption
   * waits for such a reader too; closing the subscription's scope releases it.
   * Default: `defaultSubscriberCapacity` (1,024).
   */
  readonly subscriberCapacity?: SubscriberCapacity | undefined
  /** Update the kernel's global metrics. Default true; simulations turn it off. */
  readonly metrics?: boolean | undefined
  /**
   * Wraps the effects every run performs (see `Effects`). Default: none, the
   * live effects as they are. A durable runtime journals a session here.
   */
  readonly effects?: ((live: Effects) => Effects) | undefined
}

/**
 * The effects seam: the model attempts, tool calls and retry sleeps of a
 * run, which are the run's dealings with the world. `model` is one attempt
 * of a model call (it never fails: a provider error is a `Result.Failure`),
 * `tool` one tool call (it never fails: a broken tool gives an error
 * result), `sleep` the wait before a retry, and `pause` (optional) the
 * place a run waits at to be resumed where it would have ended
 * (`on_exhausted: pause`; without it the run ends). `pausedBefore` (optional)
 * says whether a replayed run paused at an attempt before: it then pauses
 * there again and goes on as that pause's resume says, even if `on_exhausted`
 * is `fail` now.
 *
 * The rest of a run is bookkeeping and the decisions of `Decision` over what
 * these return, the clock, the session's services (a context provider's
 * `assemble` and `reduce`, the toolbox's `definitions`, the provider-wide
 * `RetryQuota`) and `Random` (the retry policy's jitter). A wrapper that
 * records what these three return and answers them again on a later run of
 * the same input, with the same services, clock readings and `Random` seed,
 * replays the run exactly: what `Options.effects` is for. Streaming changes
 * how `model` observes a response, never its result.
 *
 * @since 0.3.0
 * @category models
 */
export interface Effects extends InternalEffects.Effects {}

/**
 * Where a run pauses instead of ending (`on_exhausted: pause`), as the loop
 * gives it to `Effects.pause`: the turn and attempt whose failure would have
 * ended it, that status and error, when it paused, and when a runner resumes
 * it (`resumeAt`, `null` for no schedule).
 *
 * @since 0.6.0
 * @category models
 */
export interface Pause extends InternalEffects.Pause {}

/**
 * How a paused run goes on, as `Effects.pause` answers once it is resumed:
 * whether its retry budget and its call's retries start again, and when.
 *
 * @since 0.6.0
 * @category models
 */
export interface Resumed extends InternalEffects.Resumed {}

/**
 * A turn and attempt a run may have paused at, as the loop asks
 * `Effects.pausedBefore` whether a replayed run paused there.
 *
 * @since 0.6.0
 * @category models
 */
export interface PausePoint extends InternalEffects.PausePoint {}

/**
 * Which call of the run a model attempt is: its turn (from 1) and its
 * attempt in the turn (from 1, carried across a fallback). The attempt's
 * span (`chat {model}`) is made inside the live `model`, as a child of
 * `parent` (the turn's span); where the seam is called, the current span is
 * the run's (`invoke_agent`), so a span a wrapper makes there is the run's
 * child.
 *
 * @since 0.3.0
 * @category models
 */
export interface AttemptInfo extends InternalEffects.AttemptInfo {}

/**
 * Which call of the run a tool call is: its turn (from 1) and its `index`
 * among the calls of the turn that are run (from 0, in the order the model
 * gave them; a call whose input is not valid JSON is never run and takes no
 * index). The index does not depend on the order concurrent calls start in
 * (`toolConcurrency` > 1), so a journal that names a call by it finds the
 * same call on a replay.
 *
 * @since 0.3.0
 * @category models
 */
export interface ToolInfo extends InternalEffects.ToolInfo {}

/**
 * What a session does.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  readonly id: string
  readonly settings: Settings.Settings
  /** Takes one input through the loop. Runs of one session are serialised. */
  readonly run: (input: string | Content.Message) => Effect.Effect<RunOutcome.RunOutcome>
  /** The full history, never reduced. */
  readonly history: Effect.Effect<Content.History>
  /** The working context that requests are built from. */
  readonly context: Effect.Effect<Content.History>
  /** The whole state, as a plain value. */
  readonly state: Effect.Effect<State>
  /**
   * Every event published after the stream starts running. A slow reader
   * holds up the run once `Options.subscriberCapacity` events wait for it;
   * it never misses one.
   */
  readonly events: Stream.Stream<KernelEvent.KernelEvent>
  /**
   * Subscribes now, for the life of the scope: no later event is missed. Read
   * the stream on another fiber than the run's: once
   * `Options.subscriberCapacity` events wait unread, the run waits for the
   * reader (back-pressure; nothing is dropped).
   */
  readonly subscribe: Effect.Effect<Stream.Stream<KernelEvent.KernelEvent>, never, Scope.Scope>
  readonly retryBudget: Effect.Effect<RetryBudget.Snapshot>
}

/**
 * The session service.
 *
 * @since 0.1.0
 * @category tags
 */
export class Session extends Context.Service<Session, Service>()("@agent-kernel/kernel/Session") {}

/**
 * Makes a session from the services in context: the `ModelProvider` it
 * requires, and the `Toolbox`, `ContextProvider`, `EventBus` and
 * `RetryBudget` it reads when they are provided. Without a `Toolbox` the
 * session has no tools (`Toolbox.empty`): provide one for a session that
 * should. Each run reads the `RetryQuota` of the context it runs in.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Service, never, ModelProvider.ModelProvider> =>
  internal.make(options, options.effects)

/**
 * A layer that makes a session from the services in context.
 *
 * @example
 * ```ts
 * import { EventBus, ModelProvider, Session } from "@agent-kernel/kernel"
 * import { Effect, Layer } from "effect"
 *
 * declare const provider: ModelProvider.Service
 *
 * const SessionLive = Session.layer({ model: "claude-sonnet-4-5" }).pipe(
 *   Layer.provide(Layer.succeed(ModelProvider.ModelProvider, provider)),
 *   Layer.provide(EventBus.layer([{ onEvent: (event) => Effect.log(event.type) }]))
 * )
 * const program = Effect.flatMap(Session.Session, (session) => session.run("Hello")).pipe(
 *   Effect.provide(SessionLive)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Session, never, ModelProvider.ModelProvider> =>
  Layer.effect(Session, make(options))
