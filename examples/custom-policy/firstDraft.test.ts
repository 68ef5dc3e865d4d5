/**
 * The first draft of the policy breaks a law: the counterexample, as a test.
 */
import { Laws, Simulator } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { firstDraft } from "./firstDraft.js"
import { budget, settings } from "./policy.js"

describe("the first draft", () => {
  it.effect("cut a long retry-after down to the cap", () =>
    Effect.gen(function* () {
      const violation = yield* Effect.flip(Laws.check(Laws.honorsRetryAfter, { policy: firstDraft, settings, budget }))
      assert.strictEqual(violation.law, "honorsRetryAfter")
      assert.include(violation.problem, "the policy waits 20.00 s, sooner than the server asked")
    })
  )

  it.effect("while the kernel's own floor hides it in a real (simulated) run", () =>
    Effect.gen(function* () {
      const faults = yield* Simulator.parseFaults("429:retry_after=45")
      const { timeline } = yield* Simulator.simulate(firstDraft, faults, { seed: 7, settings, budget })
      assert.strictEqual(timeline[0]?.delay_ms, 45_000)
    })
  )
})
