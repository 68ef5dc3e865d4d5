import type { RunOutcome } from "@agent-kernel/kernel"

/** One exit code per class of run status; 2 is bad usage or invalid settings. */
export const exitCodes: Readonly<Record<RunOutcome.RunStatus, number>> = {
  completed: 0,
  content_filtered: 3,
  context_exhausted: 4,
  auth_error: 5,
  invalid_request: 5,
  quota_exceeded: 5,
  retries_exhausted: 6,
  retry_budget_exhausted: 6,
  max_turns: 7,
  wall_clock_exceeded: 7,
  cost_exceeded: 7,
  failed: 8,
  interrupted: 130
}
