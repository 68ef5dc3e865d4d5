/**
 * The kernel's Anthropic and OpenAI providers as an effect/ai
 * `LanguageModel`, each from its one Layer (over fetch), driven through
 * effect/ai's own `LanguageModel.generateText`, `streamText` and `Chat`
 * against the fake provider server on 127.0.0.1: text, streaming, tool
 * calls resolved by effect/ai, the conversation on the wire, the settings,
 * and every failure as an `AiError` carrying the kernel's classification.
 */
import { ModelError } from "@agent-kernel/kernel"
import { ChaosPlans, FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { describe, expect, it } from "@effect/vitest"
import * as AiError from "effect/ai/AiError"
import * as Chat from "effect/ai/Chat"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import { AiErrors, AnthropicLanguageModel, KernelLanguageModel, OpenAiLanguageModel } from "../src/index.js"
import { type Api, apis, KEY } from "./support.js"

/** The one Layer an app writes, pointed at the fake server (a key is given, so its Config error cannot happen). */
const modelLayer = (
  api: Api,
  server: FakeProvider.FakeProvider,
  config?: KernelLanguageModel.RequestConfig
): Layer.Layer<LanguageModel.LanguageModel> => {
  const common = { apiKey: Redacted.make(KEY), ...(config !== undefined ? { config } : {}) }
  return api === "anthropic"
    ? AnthropicLanguageModel.layer({ ...common, model: "claude-test", baseUrl: server.url }).pipe(Layer.orDie)
    : OpenAiLanguageModel.layer({ ...common, model: "gpt-test", baseUrl: server.openAiBaseUrl }).pipe(Layer.orDie)
}

const serve = (steps: ReadonlyArray<FaultPlan.Step>, after?: "repeat_last") =>
  Effect.orDie(FakeProvider.make(FaultPlan.make(steps, after === undefined ? {} : { after })))

const Lookup = Tool.make("lookup", {
  description: "Looks a word up",
  parameters: Schema.Struct({ word: Schema.String, limit: Schema.Int }),
  success: Schema.String
})
const Dictionary = Toolkit.make(Lookup)
const handlers = Dictionary.toLayer({ lookup: ({ word }) => Effect.succeed(`definition of ${word}`) })

describe.each(apis)("%s as an effect/ai LanguageModel, from its one Layer", (api) => {
  it.effect("generateText: the text, the finish and the usage, cache reads apart from input", () =>
    Effect.gen(function* () {
      const server = yield* serve([
        { kind: "reply", text: "A happy accident.", usage: { input_tokens: 5, output_tokens: 2, cache_read_tokens: 7 } }
      ])
      const response = yield* LanguageModel.generateText({ prompt: "define serendipity" }).pipe(
        Effect.provide(modelLayer(api, server))
      )
      expect(response.text).toBe("A happy accident.")
      expect(response.finishReason).toBe("stop")
      expect(response.usage.inputTokens).toEqual({ uncached: 5, total: 12, cacheRead: 7 })
      expect(response.usage.outputTokens.total).toBe(2)
    })
  )

  it.effect("streamText: text deltas arrive in order, the first while the server still holds the rest", () =>
    Effect.gen(function* () {
      const text = "Serendipity is a happy accident."
      // Anthropic: message_start, ping, content_block_start, the first delta. OpenAI: a role chunk, the first delta.
      const server = yield* serve([
        { kind: "reply", text, delta_chars: 6, hold_after_events: api === "anthropic" ? 4 : 2 }
      ])
      const seen = yield* Queue.unbounded<Response.StreamPart<{}>>()
      const reader = yield* Effect.forkChild(
        Stream.runForEach(LanguageModel.streamText({ prompt: "hi" }), (part) => Queue.offer(seen, part)).pipe(
          Effect.provide(modelLayer(api, server))
        )
      )
      let first = yield* Queue.take(seen)
      while (first.type !== "text-delta") first = yield* Queue.take(seen)
      expect(first.delta).toBe("Serend")
      expect(reader.pollUnsafe()).toBeUndefined()
      yield* server.release
      yield* Fiber.join(reader)
      const rest = yield* Queue.clear(seen)
      const deltas = [first, ...rest].flatMap((part) => (part.type === "text-delta" ? [part.delta] : []))
      expect(deltas.join("")).toBe(text)
      expect(rest.map((part) => part.type).slice(-3)).toEqual(["text-end", "response-metadata", "finish"])
    })
  )

  it.effect("generateText with a toolkit: the model's call runs the handler, and the result is in the response", () =>
    Effect.gen(function* () {
      const server = yield* serve([{ kind: "happy" }])
      const response = yield* LanguageModel.generateText({ prompt: "define serendipity", toolkit: Dictionary }).pipe(
        Effect.provide(modelLayer(api, server)),
        Effect.provide(handlers)
      )
      expect(response.finishReason).toBe("tool-calls")
      expect(response.toolCalls.map((call) => call.name)).toEqual(["lookup"])
      expect(response.toolResults.map((result) => result.result)).toEqual(["definition of example"])
      const [request] = yield* server.requests
      expect(JSON.stringify(request?.body)).toContain('"lookup"')
    })
  )

  it.effect("streamText with a toolkit: the params stream, then the call whole, then its result", () =>
    Effect.gen(function* () {
      const server = yield* serve([{ kind: "happy" }])
      const parts = yield* LanguageModel.streamText({ prompt: "define serendipity", toolkit: Dictionary }).pipe(
        Stream.runCollect,
        Effect.provide(modelLayer(api, server)),
        Effect.provide(handlers)
      )
      const types = parts.map((part) => part.type)
      expect(types).toEqual(
        expect.arrayContaining(["tool-params-start", "tool-params-delta", "tool-call", "tool-result"])
      )
      expect(types.indexOf("tool-params-start")).toBeLessThan(types.indexOf("tool-params-delta"))
      expect(types.indexOf("tool-params-delta")).toBeLessThan(types.indexOf("tool-call"))
      const call = parts.find((part) => part.type === "tool-call")
      expect(call?.type === "tool-call" && call.params).toEqual({ word: "example", limit: expect.any(Number) })
      const result = parts.find((part) => part.type === "tool-result")
      expect(result?.type === "tool-result" && result.result).toBe("definition of example")
    })
  )

  it.effect("Chat: the second turn sends the first turn's tool call and result, as the provider's wire has them", () =>
    Effect.gen(function* () {
      const server = yield* serve([{ kind: "happy" }, { kind: "reply", text: "It means a happy accident." }])
      const chat = yield* Chat.fromPrompt([{ role: "system", content: "Be brief." }])
      const first = yield* chat
        .generateText({ prompt: "define serendipity", toolkit: Dictionary })
        .pipe(Effect.provide(modelLayer(api, server)), Effect.provide(handlers))
      expect(first.toolResults).toHaveLength(1)
      const second = yield* chat.generateText({ prompt: "and so?" }).pipe(Effect.provide(modelLayer(api, server)))
      expect(second.text).toBe("It means a happy accident.")
      const [, request] = yield* server.requests
      const callId = first.toolCalls[0]?.id
      // The handler's text result goes back as its text.
      expect(request?.body).toMatchObject(
        api === "anthropic"
          ? {
              system: "Be brief.",
              messages: [
                { role: "user", content: [{ type: "text", text: "define serendipity" }] },
                { role: "assistant", content: [{ type: "text" }, { type: "tool_use", id: callId, name: "lookup" }] },
                {
                  role: "user",
                  content: [
                    { type: "tool_result", tool_use_id: callId, content: "definition of example", is_error: false },
                    { type: "text", text: "and so?" }
                  ]
                }
              ]
            }
          : {
              messages: [
                { role: "system", content: "Be brief." },
                { role: "user", content: "define serendipity" },
                { role: "assistant", tool_calls: [{ id: callId, function: { name: "lookup" } }] },
                { role: "tool", tool_call_id: callId, content: "definition of example" },
                { role: "user", content: "and so?" }
              ]
            }
      )
    })
  )

  it.effect("the layer's settings and a call's override reach the wire: model, output limit, temperature", () =>
    Effect.gen(function* () {
      const server = yield* serve([{ kind: "happy" }, { kind: "happy" }])
      const model = modelLayer(api, server, { max_output_tokens: 64, temperature: 0.5 })
      yield* LanguageModel.generateText({ prompt: "hi" }).pipe(Effect.provide(model))
      yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        KernelLanguageModel.withConfigOverride({ model: "other-model", temperature: 0 }),
        Effect.provide(model)
      )
      const [byDefault, overridden] = yield* server.requests
      const limit = api === "anthropic" ? "max_tokens" : "max_completion_tokens"
      expect(byDefault?.body).toMatchObject({
        model: api === "anthropic" ? "claude-test" : "gpt-test",
        [limit]: 64,
        temperature: 0.5
      })
      expect(overridden?.body).toMatchObject({ model: "other-model", [limit]: 64, temperature: 0 })
    })
  )

  it.effect("a call's own tool choice wins over the layer's; effect/ai's default leaves the layer's in place", () =>
    Effect.gen(function* () {
      const server = yield* serve([{ kind: "happy" }, { kind: "happy" }])
      const model = modelLayer(api, server, { tool_choice: { type: "any" } })
      const ask = (toolChoice?: { readonly tool: "lookup" }) =>
        LanguageModel.generateText({
          prompt: "define serendipity",
          toolkit: Dictionary,
          disableToolCallResolution: true,
          ...(toolChoice !== undefined ? { toolChoice } : {})
        }).pipe(Effect.provide(model))
      yield* ask()
      yield* ask({ tool: "lookup" })
      const [byLayer, byCall] = yield* server.requests
      expect([byLayer?.body, byCall?.body]).toMatchObject(
        api === "anthropic"
          ? [{ tool_choice: { type: "any" } }, { tool_choice: { type: "tool", name: "lookup" } }]
          : [{ tool_choice: "required" }, { tool_choice: { type: "function", function: { name: "lookup" } } }]
      )
    })
  )

  it.effect("the call's span says the provider, the model asked and answered, the finish and the usage", () =>
    Effect.gen(function* () {
      const server = yield* serve([
        { kind: "reply", text: "hi", usage: { input_tokens: 5, output_tokens: 2 } },
        { kind: "reply", text: "hi", usage: { input_tokens: 5, output_tokens: 2 } }
      ])
      const spans: Array<Tracer.NativeSpan> = []
      const tracer = Tracer.make({
        span: (options) => {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        }
      })
      yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(modelLayer(api, server)),
        Effect.withTracer(tracer)
      )
      yield* Stream.runDrain(LanguageModel.streamText({ prompt: "hi" })).pipe(
        Effect.provide(modelLayer(api, server)),
        Effect.withTracer(tracer)
      )
      for (const name of ["LanguageModel.generateText", "LanguageModel.streamText"]) {
        const attributes = Object.fromEntries(spans.find((span) => span.name === name)?.attributes ?? [])
        expect(attributes).toMatchObject({
          "gen_ai.provider.name": api,
          "gen_ai.request.model": api === "anthropic" ? "claude-test" : "gpt-test",
          "gen_ai.response.finish_reasons": ["stop"],
          "gen_ai.usage.input_tokens": 5,
          "gen_ai.usage.output_tokens": 2
        })
      }
    })
  )

  it.effect("a refusal finishes with content-filter, keeping the text written before it", () =>
    Effect.gen(function* () {
      const server = yield* Effect.orDie(FakeProvider.make(ChaosPlans.refusal))
      const response = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(Effect.provide(modelLayer(api, server)))
      expect([response.finishReason, response.text]).toEqual(["content-filter", "I can help with part of that, but"])
    })
  )

  it.effect("generateObject is refused before anything is sent: the kernel's providers send no response format", () =>
    Effect.gen(function* () {
      const server = yield* serve([{ kind: "happy" }])
      const error = yield* Effect.flip(
        LanguageModel.generateObject({ prompt: "hi", schema: Schema.Struct({ a: Schema.String }) }).pipe(
          Effect.provide(modelLayer(api, server))
        )
      )
      expect(error.reason._tag).toBe("InvalidRequestError")
      expect(yield* server.requests).toHaveLength(0)
    })
  )
})

interface Expected {
  readonly step: FaultPlan.Step
  readonly reason: AiError.AiErrorReason["_tag"]
  readonly category: ModelError.Category
  readonly isRetryable: boolean
  readonly retryAfter?: Duration.Duration
}

const failures: Record<Api, ReadonlyArray<Expected>> = {
  anthropic: [
    {
      step: { kind: "error", status: 429, error_type: "rate_limit_error", headers: { "retry-after": "3" } },
      reason: "RateLimitError",
      category: "rate_limited",
      isRetryable: true,
      retryAfter: Duration.seconds(3)
    },
    {
      step: { kind: "error", status: 402, error_type: "billing_error" },
      reason: "QuotaExhaustedError",
      category: "quota_exceeded",
      isRetryable: false
    },
    {
      step: { kind: "error", status: 401, error_type: "authentication_error" },
      reason: "AuthenticationError",
      category: "auth_error",
      isRetryable: false
    },
    {
      step: { kind: "error", status: 403, error_type: "permission_error" },
      reason: "AuthenticationError",
      category: "auth_error",
      isRetryable: false
    },
    {
      step: { kind: "error", status: 400, error_type: "invalid_request_error", message: "max_tokens: too large" },
      reason: "InvalidRequestError",
      category: "invalid_request",
      isRetryable: false
    },
    {
      step: {
        kind: "error",
        status: 400,
        error_type: "invalid_request_error",
        message: "prompt is too long: 300 tokens > 200 maximum"
      },
      reason: "InvalidRequestError",
      category: "context_length_exceeded",
      isRetryable: false
    },
    {
      step: { kind: "error", status: 529, error_type: "overloaded_error" },
      reason: "InternalProviderError",
      category: "overloaded",
      isRetryable: true
    },
    {
      step: { kind: "error", status: 500, error_type: "api_error" },
      reason: "InternalProviderError",
      category: "server_error",
      isRetryable: true
    },
    { step: { kind: "reset" }, reason: "NetworkError", category: "connection_error", isRetryable: true }
  ],
  openai: [
    {
      step: {
        kind: "error",
        status: 429,
        error_type: "requests",
        code: "rate_limit_exceeded",
        headers: { "retry-after-ms": "1500" }
      },
      reason: "RateLimitError",
      category: "rate_limited",
      isRetryable: true,
      retryAfter: Duration.millis(1500)
    },
    {
      step: { kind: "error", status: 429, error_type: "insufficient_quota", code: "insufficient_quota" },
      reason: "QuotaExhaustedError",
      category: "quota_exceeded",
      isRetryable: false
    },
    {
      step: { kind: "error", status: 401, error_type: "invalid_request_error", code: "invalid_api_key" },
      reason: "AuthenticationError",
      category: "auth_error",
      isRetryable: false
    },
    {
      step: { kind: "error", status: 400, error_type: "invalid_request_error", message: "bad temperature" },
      reason: "InvalidRequestError",
      category: "invalid_request",
      isRetryable: false
    },
    {
      step: {
        kind: "error",
        status: 400,
        error_type: "invalid_request_error",
        code: "context_length_exceeded",
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
      },
      reason: "InvalidRequestError",
      category: "context_length_exceeded",
      isRetryable: false
    },
    {
      step: { kind: "error", status: 503, error_type: "server_error", message: "The engine is currently overloaded" },
      reason: "InternalProviderError",
      category: "overloaded",
      isRetryable: true
    },
    { step: { kind: "reset" }, reason: "NetworkError", category: "connection_error", isRetryable: true }
  ]
}

describe.each(apis)("%s failures as AiError reasons, with the kernel's classification", (api) => {
  it.effect.each(failures[api])("$step.kind $step.status $step.error_type: $reason", (expected) =>
    Effect.gen(function* () {
      const server = yield* serve([expected.step], "repeat_last")
      for (const call of ["generateText", "streamText"] as const) {
        const generate = LanguageModel.generateText({ prompt: "hi" })
        const stream = Stream.runDrain(LanguageModel.streamText({ prompt: "hi" }))
        const error = yield* Effect.flip(
          (call === "generateText" ? generate : stream).pipe(Effect.provide(modelLayer(api, server)))
        )
        expect(AiError.isAiError(error)).toBe(true)
        expect([call, error.reason._tag, error.isRetryable, error.retryAfter]).toEqual([
          call,
          expected.reason,
          expected.isRetryable,
          expected.retryAfter
        ])
        // The kernel's own error rides along: mapped back, it is the category its provider gave.
        const kernel = yield* AiErrors.toModelError(error, { provider: api, model: "m" })
        expect(kernel.category).toBe(expected.category)
        expect(ModelError.isRetryable(kernel)).toBe(expected.isRetryable)
      }
      // One request a call: the provider never retries.
      expect(yield* server.requests).toHaveLength(2)
    })
  )

  it.effect("an API key the server echoes into its error appears nowhere in the AiError", () =>
    Effect.gen(function* () {
      const server = yield* serve([{ kind: "error", status: 401, error_type: "authentication_error", echo_key: true }])
      const error = yield* Effect.flip(
        LanguageModel.generateText({ prompt: "hi" }).pipe(Effect.provide(modelLayer(api, server)))
      )
      const everything = JSON.stringify(Schema.encodeSync(Schema.toCodecJson(AiError.AiError))(error))
      expect(everything).toContain("<redacted>")
      expect(everything).not.toContain(KEY)
      expect(everything).not.toContain(KEY.slice(8))
    })
  )
})
