import { ChaosPlans, FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Sample from "./effect-ai-language-model.js"

const key = Redacted.make("sk-ant-docs-sample")

describe("use-with-effect-ai sample: the kernel's provider as an effect/ai LanguageModel", () => {
  it.effect("a chat: the model calls the toolkit's tool, the second turn answers with the definition", () =>
    Effect.gen(function* () {
      const server = yield* FakeProvider.make(
        FaultPlan.make([
          { kind: "reply", tool_calls: [{ name: "define", input: { word: "serendipity" } }] },
          { kind: "happy" }
        ])
      )
      const text = yield* Sample.define("serendipity", server.url, key)
      assert.include(text, "finding something good by chance")
      const requests = yield* server.requests
      assert.strictEqual(requests.length, 2)
      assert.include(JSON.stringify(requests[1]!.body), "tool_result")
    })
  )

  it.effect("a rate limit is retried, an auth error is not: one request", () =>
    Effect.gen(function* () {
      const limited = yield* FakeProvider.make(
        FaultPlan.make([
          { kind: "error", status: 429, error_type: "rate_limit_error" },
          { kind: "reply", text: "hi" }
        ])
      )
      assert.strictEqual(
        yield* TestClockDriver.run(Sample.ask("Hello", limited.url, key), { horizon: "1 minute" }),
        "hi"
      )
      assert.strictEqual((yield* limited.requests).length, 2)
      const denied = yield* FakeProvider.make(ChaosPlans.authError)
      const error = yield* Effect.flip(Sample.ask("Hello", denied.url, key))
      assert.strictEqual(error._tag === "AiError" && error.reason._tag, "AuthenticationError")
      assert.strictEqual((yield* denied.requests).length, 1)
    })
  )
})
