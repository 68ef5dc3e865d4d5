/**
 * The effect/ai guide's sample, run against the fake provider over real
 * sockets: a rate limit with a retry hint, a tool call through the
 * Toolkit, and the answer.
 */
import { ChaosPlans, FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as EffectAi from "./effect-ai.js"

const key = Redacted.make("sk-ant-docs-sample")

describe("use-with-effect-ai sample", () => {
  it.effect("a 429 is retried after its retry-after, the Toolkit's tool runs, the run completes", () =>
    Effect.gen(function* () {
      const server = yield* FakeProvider.make(
        FaultPlan.make([
          { kind: "error", status: 429, error_type: "rate_limit_error", headers: { "retry-after": "2" } },
          { kind: "reply", tool_calls: [{ name: "define", input: { word: "serendipity" } }] },
          { kind: "happy" }
        ])
      )
      // Only sleeps due within a minute are taken: the attempt timeout, ten minutes out, never fires.
      const outcome = yield* TestClockDriver.run(EffectAi.ask("What is serendipity?", server.url, key), {
        horizon: "1 minute"
      })
      assert.strictEqual(outcome.status, "completed")
      assert.strictEqual(outcome.retries.session_total, 1)
      assert.include(outcome.final_text, "finding something good by chance")
      const requests = yield* server.requests
      assert.strictEqual(requests.length, 3)
      assert.isAtLeast(requests[1]!.time - requests[0]!.time, 2_000)
    })
  )

  it.effect("an auth error ends the run at once: one request, no fallback to the haiku model", () =>
    Effect.gen(function* () {
      const server = yield* FakeProvider.make(ChaosPlans.authError)
      const outcome = yield* TestClockDriver.run(EffectAi.ask("Hello", server.url, key), { horizon: "1 minute" })
      assert.strictEqual(outcome.status, "auth_error")
      assert.deepStrictEqual(
        (yield* server.requests).map((request) => request.model),
        ["claude-sonnet-4-5"]
      )
    })
  )
})
