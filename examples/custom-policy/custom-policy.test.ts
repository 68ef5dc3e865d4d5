/**
 * Property tests of the custom policy with the kernel's laws, and of the
 * first draft that broke one. CI runs this file.
 */
// #region imports
import { Laws, Simulator } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { firstDraft } from "./firstDraft.js"
import { budget, bucket, policy, settings } from "./policy.js"
// #endregion imports

// #region laws
const subject: Laws.Subject = { policy, settings, budget }
const fatal = ["auth_error", "invalid_request", "quota_exceeded"] as const

describe("the custom policy", () => {
  it.effect("never waits less than the server asked", () => Laws.check(Laws.honorsRetryAfter, subject))

  it.effect("retries a call at most four times", () => Laws.check(Laws.respectsPerCallCap(4), subject))

  it.effect("spends at most the bucket, plus what successes refund", () =>
    Laws.check(
      Laws.respectsSessionBudget(bucket.capacity / bucket.retryCost, {
        refundPerSuccess: bucket.successRefund / bucket.retryCost
      }),
      subject
    )
  )

  it.effect("never retries or falls back on a configuration error", () =>
    Laws.checkAll([Laws.neverRetries(fatal), Laws.neverFallsBackOn(fatal)], subject)
  )

  it.effect("keeps every delay under full jitter's envelope, and gives up", () =>
    Laws.checkAll([Laws.delaysWithin(Laws.backoffEnvelope(settings)), Laws.terminates], subject)
  )
})
// #endregion laws

describe("the first draft", () => {
  // #region counterexample
  it.effect("cut a long retry-after down to the cap", () =>
    Effect.gen(function* () {
      const violation = yield* Effect.flip(Laws.check(Laws.honorsRetryAfter, { ...subject, policy: firstDraft }))
      assert.strictEqual(violation.law, "honorsRetryAfter")
      assert.include(violation.problem, "the policy waits 20.00 s, sooner than the server asked")
    })
  )
  // #endregion counterexample
})

describe("the simulator on the custom configuration", () => {
  it.effect("a 429 with retry-after, two 529s, then success", () =>
    Effect.gen(function* () {
      // #region simulate
      const faults = yield* Simulator.parseFaults("429:retry_after=2,529,529,ok")
      const { timeline, outcome } = yield* Simulator.simulate(policy, faults, { seed: 7, settings, budget })
      // #endregion simulate
      assert.deepStrictEqual(
        timeline.map((step) => [step.result, step.action, step.source]),
        [
          ["rate_limited", "retry", "retry_after"],
          ["overloaded", "retry", "backoff"],
          ["overloaded", "retry", "backoff"],
          ["ok", "end", null]
        ]
      )
      assert.strictEqual(timeline[0]?.delay_ms, 2_000)
      // Full jitter: each backoff is in U(0, 250 ms * 2^n).
      assert.isAtMost(timeline[1]!.delay_ms, 500)
      assert.isAtMost(timeline[2]!.delay_ms, 1_000)
      // Three retries cost 15 of 50 tokens; the success refunds 1: floor(36 / 5) = 7 retries left.
      assert.deepStrictEqual(
        timeline.map((step) => step.budget_left),
        [9, 8, 7, 7]
      )
      assert.strictEqual(outcome.status, "completed")
    })
  )

  it.effect("a long outage: four retries, a fallback, four more, then the chain is exhausted", () =>
    Effect.gen(function* () {
      const outage = yield* Simulator.parseFaults(Array.from({ length: 12 }, () => "529").join(","))
      const { outcome } = yield* Simulator.simulate(policy, outage, { seed: 1, settings, budget })
      assert.deepStrictEqual([outcome.retries, outcome.fallbacks, outcome.status], [8, 1, "retries_exhausted"])
      // Nine charges of 5 tokens from 50: one retry left in the bucket (the default budget would have 11).
      assert.strictEqual(outcome.budget_left, 1)
    })
  )
})
