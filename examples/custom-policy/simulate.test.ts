/**
 * What the custom configuration does to two fault plans, in the simulator.
 */
import { Simulator } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { budget, policy, settings } from "./policy.js"

describe("the simulator on the custom configuration", () => {
  it.effect("a 429 with retry-after, two 529s, then success", () =>
    Effect.gen(function* () {
      const faults = yield* Simulator.parseFaults("429:retry_after=2,529,529,ok")
      const { timeline, outcome } = yield* Simulator.simulate(policy, faults, { seed: 7, settings, budget })
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

  // Each model of the chain gets its own retries (max_retries per model); the bucket stays the shared
  // ceiling.
  it.effect("a long outage: four retries on each model, one fallback between them, then the chain is exhausted", () =>
    Effect.gen(function* () {
      const outage = yield* Simulator.parseFaults(Array.from({ length: 12 }, () => "529").join(","))
      const { outcome } = yield* Simulator.simulate(policy, outage, { seed: 1, settings, budget })
      assert.deepStrictEqual([outcome.retries, outcome.fallbacks, outcome.status], [8, 1, "retries_exhausted"])
      // Nine charges (eight retries, one fallback) of 5 tokens from 50: one retry left in the bucket.
      assert.strictEqual(outcome.budget_left, 1)
    })
  )
})
