/**
 * The provider-wide retry quota: one retry budget for every session that
 * calls the same provider account, in this process or, through a shared
 * store, in many. N sessions that each retry within their own budget are
 * still N times the retries a struggling provider sees; the quota caps the
 * sum, the way the AWS SDK's retry quota does for one client.
 *
 * The kernel consults it after the decision core has chosen to retry (or to
 * fall back, when that step is charged to the session budget): a refusal
 * ends the run `retry_budget_exhausted`, as an exhausted session budget
 * does, with a `retry_quota_exhausted` event saying which budget ran out.
 * Every successful model call is recorded, so a refunding quota refills.
 * The decision core stays pure: it never sees the quota.
 *
 * The default grants every retry and costs nothing. `layer` gives the
 * sessions of this process one shared token bucket; `@agent-kernel/cluster`
 * keeps the same bucket in Postgres for many processes.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as ModelError from "./ModelError.js"
import type * as RetryBudget from "./RetryBudget.js"

/**
 * What the kernel tells the quota about a retry it wants to make.
 *
 * @since 0.2.0
 * @category models
 */
export interface Request {
  /** The model that failed. */
  readonly model: string
  readonly category: ModelError.Category
}

/**
 * What a retry quota does.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Takes one retry from the quota; `false` refuses it. */
  readonly acquire: (request: Request) => Effect.Effect<boolean>
  /** After every successful model call: a refunding quota gives tokens back. */
  readonly recordSuccess: Effect.Effect<void>
}

/**
 * The quota that grants every retry: the default.
 *
 * @since 0.2.0
 * @category constructors
 */
export const unlimited: Service = { acquire: () => Effect.succeed(true), recordSuccess: Effect.void }

/**
 * A quota that runs a retry budget's pure functions over state kept
 * elsewhere: `modify` applies a transition to it atomically. The in-memory
 * quota and the shared stores are this, over a `Ref` or a table row. A store
 * that can fail answers `unreachable` when it does: a granted retry, and
 * nothing recorded.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromBudget = (
  budget: RetryBudget.Budget,
  modify: <A>(f: (state: RetryBudget.State) => readonly [A, RetryBudget.State], unreachable: A) => Effect.Effect<A>
): Service => ({
  acquire: () =>
    modify((state) => {
      const charged = budget.acquire(state)
      return Option.isSome(charged) ? [true, charged.value] : [false, state]
    }, true),
  recordSuccess: modify((state) => [undefined, budget.recordSuccess(state)], undefined)
})

/**
 * A quota shared by the sessions of this process, for example
 * `RetryBudget.tokenBucket({ capacity: 500, retryCost: 5, successRefund: 1 })`
 * as in the AWS SDK.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (budget: RetryBudget.Budget): Effect.Effect<Service> =>
  Effect.map(Ref.make(budget.initial), (state) => fromBudget(budget, (f) => Ref.modify(state, f)))

/**
 * The quota in context. Default: `unlimited`.
 *
 * @since 0.2.0
 * @category tags
 */
export const RetryQuota: Context.Reference<Service> = Context.Reference<Service>("@agent-kernel/kernel/RetryQuota", {
  defaultValue: () => unlimited
})

/**
 * The identifier of a layer that provides `RetryQuota`: `never`, as for every
 * `Context.Reference`, which always has a value.
 *
 * @since 0.1.0
 * @category tags
 */
export type RetryQuota = Context.Service.Identifier<typeof RetryQuota>

/**
 * One quota for every session run under this layer.
 *
 * @example
 * ```ts
 * import { RetryBudget, RetryQuota } from "@agent-kernel/kernel"
 *
 * const layer = RetryQuota.layer(RetryBudget.tokenBucket({ capacity: 500, retryCost: 5, successRefund: 1 }))
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (budget: RetryBudget.Budget): Layer.Layer<RetryQuota> => Layer.effect(RetryQuota, make(budget))
