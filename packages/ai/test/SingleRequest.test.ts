/**
 * The guard alone: inside an adapter call a re-send never leaves, and the
 * first failure is what the kernel sees; outside one, the client is the
 * user's, retries included. The clock driver only takes sleeps within a
 * minute: the requests in flight on real sockets never meet a timeout.
 */
import { Content, ModelProvider } from "@agent-kernel/kernel"
import { TestClockDriver } from "@agent-kernel/kernel/testing"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { describe, expect, it } from "@effect/vitest"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { apis, languageModel, setup } from "./support.js"

describe.each(apis)("SingleRequest with a retrying %s client", (api) => {
  it.effect("a connection reset is not re-sent: the recorded transport failure is a connection_error", () =>
    Effect.gen(function* () {
      const { server, provider } = yield* setup(api, FaultPlan.make([{ kind: "reset" }], { after: "repeat_last" }))
      const error = yield* TestClockDriver.run(
        Effect.flip(ModelProvider.generate(provider, { model: "m", messages: [Content.userText("hi")], tools: [] })),
        { horizon: "1 minute" }
      )
      expect(error._tag).toBe("ConnectionError")
      expect(error.details?.["source"]).toBe("SingleRequest")
      expect(yield* server.requests).toHaveLength(1)
    })
  )

  it.effect("outside an adapter call the client is untouched: its own retry re-sends", () =>
    Effect.gen(function* () {
      const server = yield* Effect.orDie(
        FakeProvider.make(
          FaultPlan.make([
            { kind: "error", status: 503, error_type: "api_error" },
            { kind: "reply", text: "ok" }
          ])
        )
      )
      const model = yield* Layer.build(languageModel(api, server))
      // retryTransient's own 10 ms spacing runs on the TestClock.
      const answer = yield* TestClockDriver.run(
        LanguageModel.generateText({ prompt: "hi" }).pipe(Effect.provide(model)),
        { horizon: "1 minute" }
      )
      expect(answer.text).toBe("ok")
      expect(yield* server.requests).toHaveLength(2)
    })
  )
})

describe.each(apis)("SingleRequest reads a bounded error body (%s)", (api) => {
  it.effect("a 3 MiB error body is recorded cut at 1 MiB, and the client above still gets its status", () =>
    Effect.gen(function* () {
      const huge = `{"error": "${"x".repeat(3 * 1024 * 1024)}"}`
      const { server, provider } = yield* setup(
        api,
        FaultPlan.make([{ kind: "raw", status: 503, headers: { "content-type": "application/json" }, body: huge }], {
          after: "repeat_last"
        })
      )
      const error = yield* TestClockDriver.run(
        Effect.flip(ModelProvider.generate(provider, { model: "m", messages: [Content.userText("hi")], tools: [] })),
        { horizon: "1 minute" }
      )
      expect(error.status).toBe(503)
      expect(error.category).toBe("server_error")
      const body = error.details?.["body"]
      // Recorded by the guard: the text of at most 1 MiB (not JSON any more, being cut).
      expect(typeof body === "string" && body.length <= 1024 * 1024).toBe(true)
      expect(yield* server.requests).toHaveLength(1)
    })
  )
})
