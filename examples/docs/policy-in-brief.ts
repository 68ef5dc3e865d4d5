import { RetryPolicy } from "@agent-kernel/kernel"

export const policy = RetryPolicy.backoff({ base: "1 second", factor: 3 }).pipe(
  RetryPolicy.fullJitter,
  RetryPolicy.capped("20 seconds"),
  RetryPolicy.upTo(4),
  RetryPolicy.whileRetryable
)
// Session.make({ model, policy }); RetryPolicy.delays(policy, errors) shows its delays without waiting.
