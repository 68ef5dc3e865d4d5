/**
 * Every AiError variant and reason, classified; and the reverse mapping,
 * checked against errors the kernel's own providers produce from real
 * fault-plan responses.
 */
import { ModelError, ModelProvider } from "@agent-kernel/kernel"
import { Anthropic, OpenAi, Transport } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { AiError } from "@effect/ai"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { AiErrors } from "../src/index.js"
import { KEY } from "./support.js"

const request = {
  method: "POST",
  url: "https://example.test/v1/messages",
  urlParams: [],
  hash: Option.none(),
  headers: {}
} as const

const httpError = (
  module: string,
  status: number,
  options: {
    readonly body?: unknown
    readonly headers?: Record<string, string>
    readonly reason?: "StatusCode" | "Decode" | "EmptyBody"
  } = {}
) =>
  new AiError.HttpResponseError({
    module,
    method: "createMessage",
    reason: options.reason ?? "StatusCode",
    request,
    response: { status, headers: { "content-type": "application/json", ...options.headers } },
    // As @effect/ai stores it: Inspectable.format of the parsed JSON body.
    ...(options.body !== undefined ? { body: JSON.stringify(options.body, null, 2) } : {})
  })

const anthropicBody = (type: string, message: string) => ({ type: "error", error: { type, message } })
const openAiBody = (type: string, code: string | null, message: string) => ({
  error: { type, code, message, param: null }
})

const options: AiErrors.Options = { provider: "p", model: "m" }
const map = (error: AiError.AiError, extra: Partial<AiErrors.Options> = {}) =>
  AiErrors.toModelError(error, { ...options, ...extra })

describe("AiErrors.toModelError: every AiError variant", () => {
  it.effect("HttpResponseError StatusCode: the dialect's table, the retry hint, x-should-retry", () =>
    Effect.gen(function* () {
      const limited = yield* map(
        httpError("AnthropicClient", 429, {
          body: anthropicBody("rate_limit_error", "slow down"),
          headers: { "retry-after": "7" }
        })
      )
      expect(limited._tag).toBe("RateLimited")
      expect(limited.retryAfter).toEqual(Duration.seconds(7))
      expect(limited.status).toBe(429)
      expect(limited.details?.["rule"]).toBe("anthropic.429")
      expect(limited.message).toBe("rate_limit_error: slow down")

      const overloaded = yield* map(
        httpError("AnthropicClient", 529, {
          body: anthropicBody("overloaded_error", "busy"),
          headers: { "x-should-retry": "false", "retry-after-ms": "250" }
        })
      )
      expect(overloaded._tag).toBe("Overloaded")
      expect(overloaded.retryable).toBe(false)
      expect(overloaded.retryAfter).toEqual(Duration.millis(250))
      expect(ModelError.isRetryable(overloaded)).toBe(false)
    })
  )

  it.effect("x-should-retry: true makes an odd status retryable, as the kernel's providers read it", () =>
    Effect.gen(function* () {
      // 302 with an error body of an unknown type: no row but the should_retry one matches.
      const redirect = yield* map(
        httpError("AnthropicClient", 302, {
          body: anthropicBody("brand_new_error", "moved"),
          headers: { "x-should-retry": "true" }
        })
      )
      expect(redirect._tag).toBe("ServerError")
      expect(redirect.details?.["rule"]).toBe("anthropic.should_retry")
      expect(ModelError.isRetryable(redirect)).toBe(true)
      const teapot = yield* map(
        httpError("OpenAiClient", 418, {
          body: openAiBody("teapot", null, "short and stout"),
          headers: { "x-should-retry": "true" }
        })
      )
      expect(teapot._tag).toBe("ServerError")
      expect(teapot.details?.["rule"]).toBe("openai.4xx.should_retry")
      // The header never overrides the spec: an auth error stays final.
      const auth = yield* map(
        httpError("AnthropicClient", 401, {
          body: anthropicBody("authentication_error", "bad key"),
          headers: { "x-should-retry": "true" }
        })
      )
      expect(auth._tag).toBe("AuthError")
      expect(ModelError.isRetryable(auth)).toBe(false)
    })
  )

  it.effect(
    "the body decides where the status alone cannot: quota vs rate limit, context overflow with its counts",
    () =>
      Effect.gen(function* () {
        const quota = yield* map(
          httpError("OpenAiClient", 429, { body: openAiBody("insufficient_quota", "insufficient_quota", "no credit") })
        )
        expect(quota._tag).toBe("QuotaExceeded")
        expect(quota.details?.["rule"]).toBe("openai.429.insufficient_quota")

        const overflow = yield* map(
          httpError("AnthropicClient", 400, {
            body: anthropicBody("invalid_request_error", "prompt is too long: 4,000 tokens > 2,000 maximum")
          })
        )
        expect(overflow._tag).toBe("ContextLengthExceeded")
        expect(overflow).toMatchObject({ promptTokens: 4000, maxTokens: 2000 })

        const auth = yield* map(
          httpError("OpenAiClient", 401, { body: openAiBody("invalid_request_error", "invalid_api_key", "bad key") })
        )
        expect(auth._tag).toBe("AuthError")
      })
  )

  it.effect("a body that is not the provider's shape is classified on the status alone", () =>
    Effect.gen(function* () {
      const html = new AiError.HttpResponseError({
        module: "AnthropicClient",
        method: "createMessage",
        reason: "StatusCode",
        request,
        response: { status: 503, headers: { "content-type": "text/html" } },
        body: JSON.stringify("<html>upstream down</html>", null, 2)
      })
      const error = yield* map(html)
      expect(error._tag).toBe("ServerError")
      expect(error.details?.["body"]).toBe("<html>upstream down</html>")
    })
  )

  it.effect("an unknown client module is classified with the OpenAI table, and the details say so", () =>
    Effect.gen(function* () {
      const error = yield* map(httpError("GoogleClient", 429, { body: { error: { message: "quota" } } }))
      expect(error._tag).toBe("RateLimited")
      expect(error.details?.["dialect"]).toBe("openai")
      expect(String(error.details?.["note"])).toContain("GoogleClient")
      const chosen = yield* map(httpError("GoogleClient", 529, {}), { dialect: "anthropic" })
      expect(chosen._tag).toBe("Overloaded")
      expect(chosen.details?.["note"]).toBeUndefined()
    })
  )

  it.effect("HttpResponseError Decode / EmptyBody: server_error for a 5xx, otherwise unknown, with a note", () =>
    Effect.gen(function* () {
      const garbled = yield* map(httpError("AnthropicClient", 200, { reason: "Decode" }))
      expect(garbled._tag).toBe("Unknown")
      expect(ModelError.isRetryable(garbled)).toBe(false)
      expect(String(garbled.details?.["note"])).toContain("keeps no cause")
      expect((yield* map(httpError("AnthropicClient", 502, { reason: "Decode" })))._tag).toBe("ServerError")
      expect((yield* map(httpError("OpenAiClient", 200, { reason: "EmptyBody" })))._tag).toBe("Unknown")
    })
  )

  it.effect(
    "HttpRequestError: Transport is a connection error (with the socket code), Encode and InvalidUrl the request's fault",
    () =>
      Effect.gen(function* () {
        const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" })
        const refused = yield* map(
          new AiError.HttpRequestError({
            module: "OpenAiClient",
            method: "createResponse",
            reason: "Transport",
            request,
            cause
          })
        )
        expect(refused._tag).toBe("ConnectionError")
        expect(refused.details?.["code"]).toBe("ECONNREFUSED")
        expect(ModelError.isRetryable(refused)).toBe(true)
        for (const reason of ["Encode", "InvalidUrl"] as const) {
          const error = yield* map(
            new AiError.HttpRequestError({ module: "OpenAiClient", method: "m", reason, request })
          )
          expect(error._tag).toBe("InvalidRequest")
        }
      })
  )

  it.effect("MalformedInput is an invalid request; MalformedOutput and UnknownError are unknown; each says why", () =>
    Effect.gen(function* () {
      const input = yield* map(
        new AiError.MalformedInput({
          module: "AnthropicLanguageModel",
          method: "prepareMessages",
          description: "unsupported media type"
        })
      )
      expect(input._tag).toBe("InvalidRequest")
      expect(input.message).toContain("unsupported media type")

      const parse = Schema.decodeUnknownEither(Schema.Struct({ id: Schema.String }))({})
      const output = yield* map(
        new AiError.MalformedOutput({
          module: "OpenAiClient",
          method: "createResponse",
          cause: parse._tag === "Left" ? parse.left : undefined
        })
      )
      expect(output._tag).toBe("Unknown")
      expect(String(output.details?.["note"])).toContain("cannot be classified")
      expect(String(output.details?.["cause"])).toContain("is missing")

      const unknown = yield* map(new AiError.UnknownError({ module: "X", method: "y", description: "boom" }))
      expect(unknown._tag).toBe("Unknown")
      expect(ModelError.isRetryable(unknown)).toBe(false)
      expect(unknown.details?.["note"]).toBeDefined()
    })
  )
})

const base = { provider: "anthropic", model: "m" }

describe("AiErrors.toAiError", () => {
  it("each category becomes the AiError that can carry it", () => {
    const withStatus = AiErrors.toAiError(
      ModelError.make("rate_limited", { ...base, message: "slow", status: 429, retryAfter: Duration.seconds(2) })
    )
    expect(withStatus._tag).toBe("HttpResponseError")
    if (withStatus._tag === "HttpResponseError") {
      expect(withStatus.response.status).toBe(429)
      expect(withStatus.response.headers["retry-after-ms"]).toBe("2000")
    }
    const tags = (
      ["timeout", "connection_error", "invalid_request", "content_filtered", "process_crashed", "unknown"] as const
    ).map((category) => AiErrors.toAiError(ModelError.make(category, { ...base, message: "x" }))._tag)
    expect(tags).toEqual([
      "HttpRequestError",
      "HttpRequestError",
      "MalformedInput",
      "UnknownError",
      "UnknownError",
      "UnknownError"
    ])
    const refused = AiErrors.toAiError(
      ModelError.make("overloaded", { ...base, message: "x", status: 529, retryable: false })
    )
    expect(refused._tag === "HttpResponseError" && refused.response.headers["x-should-retry"]).toBe("false")
  })

  const cases: ReadonlyArray<{ readonly api: "anthropic" | "openai"; readonly step: FaultPlan.Step }> = [
    {
      api: "anthropic",
      step: { kind: "error", status: 429, error_type: "rate_limit_error", headers: { "retry-after": "4" } }
    },
    {
      api: "anthropic",
      step: { kind: "error", status: 529, error_type: "overloaded_error", headers: { "x-should-retry": "false" } }
    },
    { api: "anthropic", step: { kind: "error", status: 402, error_type: "billing_error" } },
    { api: "anthropic", step: { kind: "error", status: 401, error_type: "authentication_error" } },
    {
      api: "anthropic",
      step: {
        kind: "error",
        status: 400,
        error_type: "invalid_request_error",
        message: "prompt is too long: 300 tokens > 200 maximum"
      }
    },
    {
      api: "openai",
      step: { kind: "error", status: 429, error_type: "insufficient_quota", code: "insufficient_quota" }
    },
    {
      api: "openai",
      step: {
        kind: "error",
        status: 429,
        error_type: "requests",
        code: "rate_limit_exceeded",
        headers: { "retry-after-ms": "1500" }
      }
    },
    {
      api: "openai",
      step: { kind: "error", status: 503, error_type: "server_error", message: "The engine is currently overloaded" }
    },
    {
      api: "openai",
      step: {
        kind: "error",
        status: 400,
        error_type: "invalid_request_error",
        code: "context_length_exceeded",
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
      }
    }
  ]

  it.scoped("an error the kernel's own providers classify comes back to the same category, hint and counts", () =>
    Effect.gen(function* () {
      const transport = yield* NodeTransport.make()
      for (const { api, step } of cases) {
        const server = yield* Effect.orDie(FakeProvider.make(FaultPlan.make([step])))
        const common = { apiKey: Redacted.make(KEY), stream: false }
        const provider = yield* (
          api === "anthropic"
            ? Anthropic.make({ ...common, baseUrl: server.url })
            : OpenAi.make({ ...common, baseUrl: server.openAiBaseUrl })
        ).pipe(Effect.provideService(Transport.Transport, transport), Effect.orDie)
        const request: ModelProvider.ModelRequest = { model: "m", messages: [], tools: [] }
        const original = yield* Effect.flip(ModelProvider.generate(provider, request))
        const back = yield* AiErrors.toModelError(AiErrors.toAiError(original), {
          provider: api,
          model: "m",
          dialect: api
        })
        expect([back._tag, back.status, back.retryable, back.retryAfter]).toEqual([
          original._tag,
          original.status,
          original.retryable,
          original.retryAfter
        ])
        if (original._tag === "ContextLengthExceeded" && back._tag === "ContextLengthExceeded") {
          expect([back.promptTokens, back.maxTokens]).toEqual([original.promptTokens, original.maxTokens])
        }
      }
    })
  )
})
