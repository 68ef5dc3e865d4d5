import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import type * as Decision from "../Decision.js"
import * as ModelError from "../ModelError.js"
import type * as ModelProvider from "../ModelProvider.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as RunOutcome from "../RunOutcome.js"

/** @internal */
export const constructors = Data.taggedEnum<Decision.Decision>()

const { End, Fallback, Reduce, Retry } = constructors

/** @internal */
export const stepsPolicy = (error: ModelError.ModelError): boolean => ModelError.isRetryable(error)

const fatalStatus = (category: ModelError.Category): RunOutcome.RunStatus =>
  category === "auth_error" ? "auth_error" : category === "quota_exceeded" ? "quota_exceeded" : "invalid_request"

/** @internal */
export const beforeTurn = (turns: number, bounds: Decision.Bounds): Option.Option<Decision.End> =>
  turns >= bounds.max_turns ? Option.some(End({ status: "max_turns" })) : Option.none()

/** @internal */
export const timeLeft = (bounds: Decision.Bounds, startedAt: number, now: number): number | undefined =>
  bounds.max_wall_clock_ms === undefined ? undefined : bounds.max_wall_clock_ms - (now - startedAt)

/** @internal */
export const pastDeadline: Decision.End = End({ status: "wall_clock_exceeded" })

/** @internal */
export const beforeCall = (
  context: Pick<Decision.Context, "now" | "startedAt" | "bounds" | "cost">,
  extraMillis = 0
): Option.Option<Decision.End> => {
  const { bounds } = context
  const left = timeLeft(bounds, context.startedAt, context.now + extraMillis)
  if (left !== undefined && left <= 0) return Option.some(pastDeadline)
  if (bounds.max_cost_usd !== undefined && context.cost !== null && context.cost >= bounds.max_cost_usd)
    return Option.some(End({ status: "cost_exceeded" }))
  return Option.none()
}

/** @internal */
export const afterResponse = (stopReason: ModelProvider.StopReason, toolCalls: number): Option.Option<Decision.End> =>
  stopReason === "content_filtered"
    ? Option.some(End({ status: "content_filtered" }))
    : toolCalls === 0
      ? Option.some(End({ status: "completed" }))
      : Option.none()

/** @internal */
export const afterReduction = (
  error: ModelError.ModelError,
  before: number,
  after: number | undefined
): Option.Option<Decision.End> =>
  // Only a strictly smaller context may be sent: the same request again would overflow again.
  after === undefined || after >= before ? Option.some(End({ status: "context_exhausted", error })) : Option.none()

/** @internal */
export const spendsRetry = (decision: Decision.Decision, before: RetryBudget.State): boolean =>
  decision._tag === "Retry" || (decision._tag === "Fallback" && decision.budget.used > before.used)

/** @internal */
export const afterQuota = (granted: boolean, error: ModelError.ModelError): Option.Option<Decision.End> =>
  granted ? Option.none() : Option.some(End({ status: "retry_budget_exhausted", error }))

/** @internal */
export const decide = (
  error: ModelError.ModelError,
  step: Option.Option<Duration.Duration>,
  context: Decision.Context
): Decision.Decision => {
  switch (ModelError.reactionOf(error.category)) {
    case "fatal":
      return End({ status: fatalStatus(error.category), error })
    case "surface":
      return End({ status: "content_filtered", error })
    case "fail":
      return End({ status: "failed", error })
    case "reduce_context": {
      const reductions = context.reductions + 1
      return reductions > context.bounds.max_context_reductions
        ? End({ status: "context_exhausted", error, reductions })
        : Reduce({ error, reductions })
    }
    case "retry":
      return retryOrFallback(error, step, context)
  }
}

const retryOrFallback = (
  error: ModelError.ModelError,
  step: Option.Option<Duration.Duration>,
  context: Decision.Context
): Decision.Decision => {
  const retryable = ModelError.isRetryable(error)
  // Whatever the policy says, never sooner than the server asked; a policy that is done, or an
  // error the server said not to retry, ends the call on this model.
  const delayMillis =
    retryable && Option.isSome(step)
      ? Math.max(
          Duration.toMillis(step.value),
          error.retryAfter === undefined ? 0 : Duration.toMillis(error.retryAfter)
        )
      : undefined
  if (delayMillis === undefined || delayMillis > context.bounds.max_retry_wait_ms) {
    if (context.fallback === undefined) return End({ status: "retries_exhausted", error })
    // A bound the run already broke ends it before the fallback is charged, as it does a retry.
    const broken = beforeCall(context)
    if (Option.isSome(broken)) return End({ status: broken.value.status, error })
    // A fallback step after a transient error is charged like a retry; an error the server said
    // not to retry never charges the budget.
    if (!retryable) return Fallback({ to: context.fallback, budget: context.budgetState })
    const charged = context.budget.acquire(context.budgetState)
    return Option.isSome(charged)
      ? Fallback({ to: context.fallback, budget: charged.value })
      : End({ status: "retry_budget_exhausted", error })
  }
  // Bounds before the budget: a wait that breaks a bound ends the run with the bound's status,
  // whether or not the budget could have paid for the retry.
  const bound = beforeCall(context, delayMillis)
  if (Option.isSome(bound)) return End({ status: bound.value.status, error })
  const charged = context.budget.acquire(context.budgetState)
  if (Option.isNone(charged)) return End({ status: "retry_budget_exhausted", error })
  const retryAfterMillis = error.retryAfter === undefined ? undefined : Duration.toMillis(error.retryAfter)
  return Retry({
    delay: Duration.millis(delayMillis),
    source: retryAfterMillis !== undefined && retryAfterMillis >= delayMillis ? "retry_after" : "backoff",
    budget: charged.value
  })
}
