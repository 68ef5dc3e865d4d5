/**
 * The first draft of `policy.ts`, kept for the guide: the cap was applied
 * last, "so that no wait is ever longer than 20 s". The laws show why that
 * is wrong.
 */
import { RetryPolicy } from "@agent-kernel/kernel"

export const firstDraft: RetryPolicy.RetryPolicy = RetryPolicy.backoff({ base: "250 millis", factor: 2 }).pipe(
  RetryPolicy.fullJitter,
  RetryPolicy.upTo(4),
  RetryPolicy.whileRetryable,
  RetryPolicy.honorRetryAfter,
  RetryPolicy.capped("20 seconds")
)
