import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as ContextProvider from "../ContextProvider.js"
import type * as EventBus from "../EventBus.js"
import type * as KernelEvent from "../KernelEvent.js"
import type * as ModelProvider from "../ModelProvider.js"
import * as Pricing from "../Pricing.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import type * as RetryQuota from "../RetryQuota.js"
import type * as Settings from "../Settings.js"
import type * as Toolbox from "../Toolbox.js"
import * as Usage from "../Usage.js"
import type * as Effects from "./effects.js"
import type * as Meter from "./meter.js"
import type * as SessionState from "./sessionState.js"

/**
 * What a session holds that does not change between runs.
 *
 * @internal
 */
export interface Env {
  readonly id: string
  /** The first model of the routing chain. */
  readonly model: string
  /** The routing chain: the session's model, then the settings' fallback models. */
  readonly models: ReadonlyArray<string>
  readonly settings: Settings.Settings
  /** The session's retry policy, made when a call first needs it. */
  readonly policy: () => RetryPolicy.RetryPolicy
  readonly system: string | undefined
  readonly maxOutputTokens: number | undefined
  /** The session's request options, applied to every call. */
  readonly request: ModelProvider.RequestOptions | undefined
  readonly toolConcurrency: number
  /** Whether runs update the kernel's global metrics. */
  readonly metrics: boolean
  readonly meter: Meter.Meter
  readonly toolbox: Toolbox.Service
  readonly contextProvider: ContextProvider.Service
  readonly bus: EventBus.Service
  readonly budget: RetryBudget.Budget
}

/**
 * A run: the session, the session's state, and what the run reads once (its
 * clock, the effects it performs, the provider-wide quota).
 *
 * @internal
 */
export interface Run {
  readonly env: Env
  /** The session's state: every step of the run writes it as it completes. */
  readonly state: Ref.Ref<SessionState.State>
  readonly runId: string
  /** The run's number in the session, from 1. */
  readonly runNumber: number
  /** Clock time the run started at, in milliseconds. */
  readonly startedAt: number
  readonly clock: Clock.Clock
  readonly effects: Effects.Effects
  readonly quota: RetryQuota.Service
  /** Whether anyone reads the run's events: an observer, or a subscriber of the session's stream. */
  readonly listening: () => boolean
  /** Whether the session's event stream has a subscriber now. */
  readonly subscribed: () => boolean
  /**
   * Offers events, in order, to the session's subscribers, uninterruptibly:
   * once the state holds what they describe, they are never dropped. Waits
   * while a subscriber has `subscriberCapacity` events unread.
   */
  readonly offer: (events: ReadonlyArray<KernelEvent.KernelEvent>) => Effect.Effect<void>
  /** Calls the observers with events, in order (`EventBus.Service.deliver`). */
  readonly notify: (events: ReadonlyArray<KernelEvent.KernelEvent>) => Effect.Effect<void>
  /** The request's estimate without its messages, for the last tool definitions seen (see `Request.overhead`). */
  overhead: { readonly definitions: ReadonlyArray<unknown>; readonly tokens: number } | undefined
}

/** @internal */
export const now = (run: Run): number => run.clock.currentTimeMillisUnsafe()

/** Updates the session's state. @internal */
export const update = (run: Run, f: (state: SessionState.State) => SessionState.State): Effect.Effect<void> =>
  Ref.update(run.state, f)

/**
 * Publishes events: to the session's subscribers, then to the observers,
 * each event before what follows it happens.
 *
 * @internal
 */
export const publishAll = (run: Run, events: ReadonlyArray<KernelEvent.KernelEvent>): Effect.Effect<void> =>
  run.subscribed() ? Effect.andThen(run.offer(events), run.notify(events)) : run.notify(events)

/**
 * Publishes one event, when anyone listens. Call it as the run performs it:
 * whether anyone listens is asked when the effect is built.
 *
 * @internal
 */
export const publish = (run: Run, event: KernelEvent.KernelEvent): Effect.Effect<void> =>
  run.listening() ? publishAll(run, [event]) : Effect.void

/**
 * A call's usage added to the run's figures, and its cost when the model has
 * a price; the first unpriced call of a model under `max_cost_usd` gets a
 * warning, which the caller publishes once the figures are written.
 *
 * @internal
 */
export const spent = (
  run: Run,
  figures: SessionState.Spent,
  usage: Usage.Usage,
  model: string
): { readonly spent: SessionState.Spent; readonly warning: Effect.Effect<void> } => {
  const { settings } = run.env
  const cost = Pricing.costFor(settings.prices, model, usage)
  const warn = Option.isNone(cost) && settings.max_cost_usd !== undefined && !figures.unpriced.includes(model)
  return {
    spent: {
      usage: Usage.add(figures.usage, usage),
      cost_usd: Option.isSome(cost) ? (figures.cost_usd ?? 0) + cost.value : figures.cost_usd,
      unpriced: warn ? [...figures.unpriced, model] : figures.unpriced
    },
    warning: warn
      ? Effect.suspend(() =>
          publish(run, {
            type: "warning",
            at: now(run),
            message: `no price for model "${model}" in settings.prices: max_cost_usd does not count its calls`
          })
        )
      : Effect.void
  }
}
