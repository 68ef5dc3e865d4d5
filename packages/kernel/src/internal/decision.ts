import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import type * as Decision from "../Decision.js"
import type * as KernelEvent from "../KernelEvent.js"
import * as ModelError from "../ModelError.js"
import type * as ModelProvider from "../ModelProvider.js"
import type * as RetryBudget from "../RetryBudget.js"
import * as RetryPolicy from "../RetryPolicy.js"
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
      return retryOrFallback(error, ModelError.isRetryable(error), step, context)
  }
}

/** The wait before a retry: the policy's delay, never sooner than the server asked. */
const waitOf = (error: ModelError.ModelError, step: Duration.Duration): number =>
  Duration.toMillis(RetryPolicy.floorAtRetryAfter(step, error))

const retryOrFallback = (
  error: ModelError.ModelError,
  retryable: boolean,
  step: Option.Option<Duration.Duration>,
  context: Decision.Context
): Decision.Decision => {
  // A policy that is done, or an error the server said not to retry, ends the call on this model.
  const delayMillis = retryable && Option.isSome(step) ? waitOf(error, step.value) : undefined
  if (delayMillis === undefined || delayMillis > context.bounds.max_retry_wait_ms)
    return fallbackOrEnd(error, retryable, context)
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

const fallbackOrEnd = (
  error: ModelError.ModelError,
  retryable: boolean,
  context: Decision.Context
): Decision.Decision => {
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

/** @internal */
export const plan = (decision: Decision.Decision, failure: Decision.Failure): Decision.Plan => {
  const { error, attempt, budgetState } = failure
  const counters: Decision.Counters = {
    retries: attempt.retries,
    maxPerCall: attempt.maxPerCall,
    modelIndex: attempt.modelIndex,
    reductions: attempt.reductions
  }
  const refused = afterQuota(failure.granted, error)
  if (Option.isSome(refused)) return quotaRefused(refused.value, failure, counters)
  switch (decision._tag) {
    case "End":
      return ended(decision, failure, counters)
    case "Reduce":
      return {
        decision,
        budget: budgetState,
        counters: { ...counters, reductions: decision.reductions },
        events: [],
        kept: undefined,
        refund: undefined
      }
    case "Fallback":
      return fellBack(decision, failure, counters)
    case "Retry":
      return retried(decision, failure, counters)
  }
}

/** A retry the provider-wide quota refused: the run ends with the budget unspent, and says why. */
const quotaRefused = (
  decision: Decision.End,
  failure: Decision.Failure,
  counters: Decision.Counters
): Decision.Plan => {
  const { error, attempt } = failure
  return {
    decision,
    budget: failure.budgetState,
    counters,
    events: [
      {
        type: "retry_quota_exhausted",
        turn: attempt.turn,
        model: attempt.model,
        category: error.category,
        message: error.message
      }
    ],
    kept: undefined,
    refund: undefined
  }
}

/** An ending after a failed attempt: a content filter's keeps the text the attempt wrote, and says so. */
const ended = (decision: Decision.End, failure: Decision.Failure, counters: Decision.Counters): Decision.Plan => {
  const { error, attempt } = failure
  const reductions = decision.reductions ?? counters.reductions
  if (decision.status !== "content_filtered")
    return {
      decision,
      budget: failure.budgetState,
      counters: { ...counters, reductions },
      events: [],
      kept: undefined,
      refund: undefined
    }
  const partial = error._tag === "ContentFiltered" ? (error.partialText ?? "") : ""
  return {
    decision,
    budget: failure.budgetState,
    counters: { ...counters, reductions },
    events: [
      {
        type: "content_filtered",
        turn: attempt.turn,
        model: attempt.model,
        message: error.message,
        partial_text: partial
      }
    ],
    kept: partial.length > 0 ? partial : undefined,
    refund: undefined
  }
}

/** The next model of the chain: its own retries from zero, and what the attempt showed discarded. */
const fellBack = (
  decision: Decision.Fallback,
  failure: Decision.Failure,
  counters: Decision.Counters
): Decision.Plan => {
  const { error, attempt } = failure
  const spent = failure.budget.snapshot(decision.budget)
  const events: Array<KernelEvent.Unstamped> = []
  // The next model's answer replaces what this attempt showed.
  if (attempt.shownTextChars > 0) events.push(restarted(failure))
  events.push({
    type: "fallback",
    turn: attempt.turn,
    from: attempt.model,
    to: decision.to,
    category: error.category,
    session_retries_used: spent.used,
    session_retries_left: spent.remaining
  })
  return {
    decision,
    budget: decision.budget,
    counters: { ...counters, retries: 0, modelIndex: counters.modelIndex + 1 },
    events,
    kept: undefined,
    refund: undefined
  }
}

/** A retry: charged as it is decided, and given back if it never runs. */
const retried = (decision: Decision.Retry, failure: Decision.Failure, counters: Decision.Counters): Decision.Plan => {
  const { error, attempt } = failure
  const retries = counters.retries + 1
  const spent = failure.budget.snapshot(decision.budget)
  const events: Array<KernelEvent.Unstamped> = []
  if (error.midStream === true || attempt.shownTextChars > 0) events.push(restarted(failure))
  events.push({
    type: "retry_scheduled",
    turn: attempt.turn,
    model: attempt.model,
    category: error.category,
    message: error.message,
    attempt: retries,
    session_retries_used: spent.used,
    session_retries_left: spent.remaining,
    delay_ms: Duration.toMillis(decision.delay),
    retry_after_ms: error.retryAfter === undefined ? null : Duration.toMillis(error.retryAfter),
    source: decision.source
  })
  return {
    decision,
    budget: decision.budget,
    counters: { ...counters, retries, maxPerCall: Math.max(counters.maxPerCall, retries) },
    events,
    kept: undefined,
    refund: { budget: failure.budgetState, counters }
  }
}

const restarted = ({ attempt, error }: Decision.Failure): KernelEvent.Unstamped => ({
  type: "stream_restarted",
  turn: attempt.turn,
  model: attempt.model,
  attempt: attempt.attempt,
  category: error.category,
  discarded_text_chars: attempt.shownTextChars
})

/** @internal */
export const pauses = (end: Decision.End, settings: Decision.PauseSettings): boolean =>
  settings.on_exhausted === "pause" && settings.pause_on.some((status) => status === end.status)

/** @internal */
export const resumeAt = (
  error: ModelError.ModelError | undefined,
  pausedAt: number,
  settings: Decision.PauseSettings
): Option.Option<number> => {
  const after = settings.pause_resume_after_ms
  if (after === undefined) return Option.none()
  const retryAfter = error?.retryAfter === undefined ? 0 : Duration.toMillis(error.retryAfter)
  return Option.some(pausedAt + Math.ceil(Math.max(after, retryAfter)))
}
