import { ModelError, RetryBudget, RetryPolicy, Session } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

// Full jitter on 1 s x 3^n, each delay capped at 20 s, four retries, transient errors only,
// and never sooner than the server's retry-after.
export const policy: RetryPolicy.RetryPolicy = RetryPolicy.backoff({ base: "1 second", factor: 3 }).pipe(
  RetryPolicy.fullJitter,
  RetryPolicy.capped("20 seconds"),
  RetryPolicy.upTo(4),
  RetryPolicy.whileRetryable,
  RetryPolicy.honorRetryAfter
)

// See the delays before running anything: no time passes, jitter uses the Random in context.
export const preview = RetryPolicy.delays(policy, [
  ModelError.make("overloaded", { provider: "p", model: "m", message: "busy" }),
  ModelError.make("rate_limited", { provider: "p", model: "m", message: "slow", retryAfter: Duration.seconds(30) }),
  ModelError.make("auth_error", { provider: "p", model: "m", message: "bad key" })
])

// An AWS-style session budget: each retry costs 5 tokens of 100, each success refunds 1.
export const run = Effect.gen(function* () {
  const budget = RetryBudget.tokenBucket({ capacity: 100, retryCost: 5, successRefund: 1 })
  const model = yield* ScriptedModel.make([ScriptedModel.error("overloaded"), ScriptedModel.text("done")])
  const session = yield* Session.make({ model: "any-model", policy }).pipe(
    Effect.provide(model.layer),
    Effect.provide(RetryBudget.layer(budget))
  )
  return yield* session.run("hello")
})
