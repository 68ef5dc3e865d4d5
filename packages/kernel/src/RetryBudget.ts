/**
 * The session-wide retry budget: one pool that every retry of every call,
 * every fallback step after a transient error and every stream restart draws
 * from, so that no single call can silently spend the session's wall-clock or
 * cost budget.
 *
 * A budget is a pure value (`Budget`): an initial `State` and the functions
 * that take a retry from it and refund it on success. The state is part of
 * the session's own state, so it is exported, journaled and resumed with the
 * history; the budget never performs an effect.
 *
 * The default refills the AWS SDK's way: each successful model call gives one
 * retry back, up to `max_session_retries`, so a storm with no success in
 * between is still stopped at the ceiling while a long session never starves.
 * `session_retries_refill: false` keeps a fixed budget that never refills.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Settings from "./Settings.js"

/**
 * A budget's state: retries granted so far, and tokens left.
 *
 * @since 0.2.0
 * @category schemas
 */
export const State = Schema.Struct({
  /** Retries granted so far (never decreases). */
  used: Schema.Number,
  /** What is left to spend; a retry costs the budget's own price in tokens. */
  tokens: Schema.Number
})

/**
 * @since 0.2.0
 * @category models
 */
export interface State extends Schema.Schema.Type<typeof State> {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Snapshot {
  /** Retries granted so far. */
  readonly used: number
  /** Retries still available now (may grow again for refunding budgets). */
  readonly remaining: number
}

/**
 * A retry budget: pure functions over its `State`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Budget {
  readonly initial: State
  /** Takes one retry; `None` when the budget cannot pay for it (and nothing is taken). */
  readonly acquire: (state: State) => Option.Option<State>
  /** After every successful model call; refunding budgets give tokens back here. */
  readonly recordSuccess: (state: State) => State
  readonly snapshot: (state: State) => Snapshot
}

/**
 * The budget service: how a session gets its budget. It holds a function of
 * the session's settings, not a budget, so that the default can follow
 * `max_session_retries` and `session_retries_refill`; the budget's state is
 * the session's own, so one service value serves any number of sessions.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  readonly budgetFor: (settings: Settings.Settings) => Budget
}

/**
 * A fixed budget of `max` retries for the session: it never refills.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fixed = (max: number): Budget => tokenBucket({ capacity: max, retryCost: 1, successRefund: 0 })

/**
 * `max` retries, and each successful model call gives one back, up to `max`
 * (the AWS SDK's retry quota, with one token a retry).
 *
 * @since 0.2.0
 * @category constructors
 */
export const refilling = (max: number): Budget => tokenBucket({ capacity: max, retryCost: 1, successRefund: 1 })

/**
 * An AWS-style token bucket: retries cost `retryCost` tokens (default 5),
 * successful calls refund `successRefund` (default 1) up to `capacity`, and
 * retries are refused while fewer than `retryCost` tokens are left. Under a
 * sustained outage it throttles retries to the success rate instead of
 * cutting them off for good.
 *
 * @since 0.1.0
 * @category constructors
 */
export const tokenBucket = (options: {
  readonly capacity: number
  readonly retryCost?: number | undefined
  readonly successRefund?: number | undefined
}): Budget => {
  const cost = options.retryCost ?? 5
  const refund = options.successRefund ?? 1
  return {
    initial: { used: 0, tokens: options.capacity },
    acquire: (state) =>
      state.tokens >= cost ? Option.some({ used: state.used + 1, tokens: state.tokens - cost }) : Option.none(),
    recordSuccess: (state) =>
      refund === 0 || state.tokens >= options.capacity
        ? state
        : { used: state.used, tokens: Math.min(options.capacity, state.tokens + refund) },
    snapshot: (state) => ({ used: state.used, remaining: Math.floor(state.tokens / cost) })
  }
}

/**
 * The budget a session's settings ask for: `max_session_retries`, refilling
 * unless `session_retries_refill` is `false`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromSettings = (
  settings: Pick<Settings.Settings, "max_session_retries" | "session_retries_refill">
): Budget =>
  settings.session_retries_refill ? refilling(settings.max_session_retries) : fixed(settings.max_session_retries)

/**
 * The budget service in context. Default: `fromSettings`, the budget the
 * session's settings ask for.
 *
 * @since 0.1.0
 * @category tags
 */
export const RetryBudget: Context.Reference<Service> = Context.Reference<Service>("@agent-kernel/kernel/RetryBudget", {
  defaultValue: () => ({ budgetFor: fromSettings })
})

/**
 * The identifier of a layer that provides `RetryBudget`: `never`, as for
 * every `Context.Reference`, which always has a value.
 *
 * @since 0.1.0
 * @category tags
 */
export type RetryBudget = Context.Service.Identifier<typeof RetryBudget>

/**
 * A layer that gives every session this budget, whatever its settings.
 *
 * @example
 * ```ts
 * import { RetryBudget } from "@agent-kernel/kernel"
 *
 * const layer = RetryBudget.layer(RetryBudget.tokenBucket({ capacity: 50, retryCost: 5, successRefund: 1 }))
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (budget: Budget): Layer.Layer<RetryBudget> =>
  Layer.succeed(RetryBudget, { budgetFor: () => budget })

/**
 * A layer with a fixed budget of `max` retries.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFixed = (max: number): Layer.Layer<RetryBudget> => layer(fixed(max))
