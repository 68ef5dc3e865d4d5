/**
 * A custom retry configuration: full jitter, a 20 s cap on each delay, four
 * retries a call, and an AWS-style token bucket for the session (retries cost
 * tokens, successful calls refund some) instead of a fixed session budget.
 */
import { RetryBudget, RetryPolicy, Settings } from "@agent-kernel/kernel"
import type * as Layer from "effect/Layer"

/** The settings the policy is tuned with; the kernel reads the bounds and the fallback chain from them. */
export const settings: Settings.Settings = {
  ...Settings.defaults,
  base_delay_ms: 250,
  max_delay_ms: 20_000,
  max_retries: 4,
  jitter: "full",
  fallback_models: ["claude-haiku-4-5"]
}

/**
 * Exponential from 250 ms, full jitter (U(0, d): the least work under
 * contention), each delay capped at 20 s, at most four retries a call,
 * transient errors only, and never sooner than the server's retry-after.
 */
export const policy: RetryPolicy.RetryPolicy = RetryPolicy.backoff({ base: "250 millis", factor: 2 }).pipe(
  RetryPolicy.fullJitter,
  RetryPolicy.capped("20 seconds"),
  RetryPolicy.upTo(4),
  RetryPolicy.whileRetryable,
  RetryPolicy.honorRetryAfter
)

/** 50 tokens, 5 a retry (ten retries from a full bucket), 1 back per successful call. */
export const bucket = { capacity: 50, retryCost: 5, successRefund: 1 } as const

/** The bucket; its state is each session's own, so the simulator and the laws start it afresh per run. */
export const budget = RetryBudget.tokenBucket(bucket)

/** The bucket as a layer, for a real session: `Session.make(...).pipe(Effect.provide(budgetLayer))`. */
export const budgetLayer: Layer.Layer<RetryBudget.RetryBudget> = RetryBudget.layer(budget)
