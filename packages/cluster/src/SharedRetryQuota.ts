/**
 * The kernel's provider-wide retry quota (`RetryQuota`) kept in a
 * `StateStore`, so that every process calling the same provider account
 * draws from one token bucket: `StateStore.layerPostgres` shares it through
 * Postgres. The bucket is the kernel's own `RetryBudget.Budget`, for example
 * `RetryBudget.tokenBucket({ capacity: 500, retryCost: 5, successRefund: 1 })`
 * as in the AWS SDK: a retry costs 5 tokens, a success gives 1 back.
 *
 * A store that cannot be reached grants the retry (with a warning in the
 * log): every session's own budget still caps its retries.
 *
 * @example
 * ```ts
 * import { SharedRetryQuota, StateStore } from "@agent-kernel/cluster"
 * import { RetryBudget } from "@agent-kernel/kernel"
 * import * as Layer from "effect/Layer"
 *
 * const quota = SharedRetryQuota.layer({
 *   key: "anthropic",
 *   budget: RetryBudget.tokenBucket({ capacity: 500, retryCost: 5, successRefund: 1 })
 * }).pipe(Layer.provide(StateStore.layerMemory))
 * ```
 *
 * @since 0.1.0
 */
import { RetryBudget, RetryQuota } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as StateStore from "./StateStore.js"

/**
 * Options of a shared quota.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The account: quotas with the same key share one bucket. */
  readonly key: string
  readonly budget: RetryBudget.Budget
}

/**
 * A quota over the `StateStore` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<RetryQuota.Service, never, StateStore.StateStore> =>
  Effect.map(StateStore.StateStore, (store) =>
    RetryQuota.fromBudget(options.budget, (f, unreachable) =>
      store
        .modify({
          key: `retry-quota/${options.key}`,
          schema: RetryBudget.State,
          initial: options.budget.initial,
          f: (state) => f(state)
        })
        .pipe(
          Effect.catch((error) =>
            Effect.as(
              Effect.logWarning(`retry quota: ${error.message}; answering as an unlimited quota would`),
              unreachable
            )
          )
        )
    )
  )

/**
 * The kernel's `RetryQuota`, kept in the `StateStore` in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<RetryQuota.RetryQuota, never, StateStore.StateStore> =>
  Layer.effect(RetryQuota.RetryQuota, make(options))
