/**
 * The session-wide retry budget: one pool that every retry of every call,
 * every fallback step and every stream restart draws from, so that no single
 * call can silently spend the session's wall-clock or cost budget.
 *
 * It lives outside the per-call schedule, behind a service, so a shared store
 * can replace the in-memory one, and so that non-retryable errors never
 * charge it.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"

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
 * The retry budget service.
 *
 * @since 0.1.0
 * @category tags
 */
export class RetryBudget extends Context.Tag("@agent-kernel/kernel/RetryBudget")<
  RetryBudget,
  {
    /** Takes one retry from the budget; `false` when it is spent (and nothing is taken). */
    readonly tryAcquire: Effect.Effect<boolean>
    /** Called after every successful model call; refunding budgets use it. */
    readonly recordSuccess: Effect.Effect<void>
    readonly snapshot: Effect.Effect<Snapshot>
  }
>() {}

/**
 * A fixed budget of `max` retries for the session.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fixed = (max: number): Effect.Effect<RetryBudget["Type"]> =>
  Effect.map(Ref.make(0), (used) =>
    RetryBudget.of({
      tryAcquire: Ref.modify(used, (n) => (n < max ? [true, n + 1] : [false, n])),
      recordSuccess: Effect.void,
      snapshot: Effect.map(Ref.get(used), (n) => ({ used: n, remaining: max - n }))
    })
  )

/**
 * An AWS-style token bucket: retries cost `retryCost` tokens, successful calls
 * refund `successRefund`, and retries are refused while fewer than
 * `retryCost` tokens are left. Under a sustained outage it throttles retries
 * to the success rate instead of cutting them off for good.
 *
 * @since 0.1.0
 * @category constructors
 */
export const tokenBucket = (options: {
  readonly capacity: number
  readonly retryCost?: number | undefined
  readonly successRefund?: number | undefined
}): Effect.Effect<RetryBudget["Type"]> => {
  const cost = options.retryCost ?? 5
  const refund = options.successRefund ?? 1
  return Effect.map(Ref.make({ tokens: options.capacity, used: 0 }), (state) =>
    RetryBudget.of({
      tryAcquire: Ref.modify(state, (s) =>
        s.tokens >= cost ? [true, { tokens: s.tokens - cost, used: s.used + 1 }] : [false, s]
      ),
      recordSuccess: Ref.update(state, (s) => ({ ...s, tokens: Math.min(options.capacity, s.tokens + refund) })),
      snapshot: Effect.map(Ref.get(state), (s) => ({ used: s.used, remaining: Math.floor(s.tokens / cost) }))
    })
  )
}

/**
 * A layer with a fixed budget.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFixed = (max: number): Layer.Layer<RetryBudget> => Layer.effect(RetryBudget, fixed(max))
