/**
 * `Anthropic.layerFetch()` and `OpenAi.layerFetch()`: the providers in a Layer
 * that needs nothing, reading the key and the base URL from `Config` (the
 * environment by default) and sending over effect's fetch client, against the
 * fake server over a real socket.
 */
import { ModelProvider } from "@agent-kernel/kernel"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import { Anthropic, OpenAi } from "../src/index.js"
import { FakeProvider, FaultPlan } from "../src/testing/index.js"

const request: ModelProvider.ModelRequest = {
  model: "fake-model",
  messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
  tools: []
}

const plan = FaultPlan.make([{ kind: "reply", text: "Hello over fetch." }])

const generate = ModelProvider.ModelProvider.use((provider) => ModelProvider.generate(provider, request))

describe("layerFetch", () => {
  it.live(
    "Anthropic: the key and base URL come from ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL; the answer streams over fetch",
    () =>
      Effect.gen(function* () {
        const server = yield* FakeProvider.make(plan)
        const env = ConfigProvider.fromEnvRecord({ ANTHROPIC_API_KEY: "sk-fetch", ANTHROPIC_BASE_URL: server.url })
        const response = yield* generate.pipe(
          Effect.provide(Anthropic.layerFetch()),
          Effect.provide(ConfigProvider.layer(env))
        )
        expect(response.content).toEqual([{ type: "text", text: "Hello over fetch." }])
        const [received] = yield* server.requests
        expect(received?.api).toBe("anthropic")
        expect(received?.stream).toBe(true)
      }).pipe(Effect.scoped)
  )

  it.live("OpenAI: the key and base URL come from OPENAI_API_KEY and OPENAI_BASE_URL", () =>
    Effect.gen(function* () {
      const server = yield* FakeProvider.make(plan)
      const env = ConfigProvider.fromEnvRecord({ OPENAI_API_KEY: "sk-fetch", OPENAI_BASE_URL: server.openAiBaseUrl })
      const response = yield* generate.pipe(
        Effect.provide(OpenAi.layerFetch()),
        Effect.provide(ConfigProvider.layer(env))
      )
      expect(response.content).toEqual([{ type: "text", text: "Hello over fetch." }])
      const [received] = yield* server.requests
      expect(received?.api).toBe("openai")
    }).pipe(Effect.scoped)
  )

  it.effect("without a key the Layer fails with a ConfigError naming the variable", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        generate.pipe(
          Effect.provide(Anthropic.layerFetch()),
          Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({})))
        )
      )
      expect(error._tag).toBe("ConfigError")
      expect(String(error)).toContain("ANTHROPIC_API_KEY")
    })
  )
})
