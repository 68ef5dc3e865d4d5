/**
 * Every AiError reason classified, and every ModelError category as a
 * reason; both round trips checked, on errors the kernel's own providers
 * produce from real fault-plan responses and on one error of every kind.
 */
import { ModelError, ModelProvider } from "@agent-kernel/kernel"
import { Anthropic, OpenAi, Redaction, Transport } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { describe, expect, it } from "@effect/vitest"
import * as AiError from "effect/ai/AiError"
import * as Cause from "effect/Cause"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { AiErrors } from "../src/index.js"
import { KEY } from "./support.js"

const http = (
  status: number,
  options: { readonly body?: unknown; readonly headers?: Record<string, string> } = {}
): NonNullable<AiError.RateLimitError["http"]> => ({
  response: { status, headers: { "content-type": "application/json", ...options.headers } },
  // As effect/ai clients keep it: the body's text.
  ...(options.body !== undefined
    ? { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }
    : {})
})

const aiError = (module: string, reason: AiError.AiErrorReason) =>
  AiError.make({ module, method: "createMessage", reason })

const anthropicBody = (type: string, message: string) => ({ type: "error", error: { type, message } })
const openAiBody = (type: string, code: string | null, message: string) => ({
  error: { type, code, message, param: null }
})

const options: AiErrors.Options = { provider: "p", model: "m" }
const map = (error: AiError.AiError, extra: Partial<AiErrors.Options> = {}) =>
  AiErrors.toModelError(error, { ...options, ...extra })

describe("AiErrors.toModelError: a reason that kept its response, from a client whose dialect is known", () => {
  it.effect("the dialect's table decides, with the retry hint and x-should-retry", () =>
    Effect.gen(function* () {
      const limited = yield* map(
        aiError(
          "AnthropicClient",
          new AiError.RateLimitError({
            http: http(429, { body: anthropicBody("rate_limit_error", "slow down"), headers: { "retry-after": "7" } })
          })
        )
      )
      expect(limited._tag).toBe("RateLimited")
      expect(limited.retryAfter).toEqual(Duration.seconds(7))
      expect(limited.status).toBe(429)
      expect(limited.details?.["rule"]).toBe("anthropic.429")
      expect(limited.details?.["source"]).toBe("RateLimitError")
      expect(limited.message).toBe("rate_limit_error: slow down")

      const overloaded = yield* map(
        aiError(
          "AnthropicClient",
          new AiError.InternalProviderError({
            description: "Server error",
            http: http(529, {
              body: anthropicBody("overloaded_error", "busy"),
              headers: { "x-should-retry": "false", "retry-after-ms": "250" }
            })
          })
        )
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
        aiError(
          "AnthropicClient",
          new AiError.UnknownError({
            http: http(302, { body: anthropicBody("brand_new_error", "moved"), headers: { "x-should-retry": "true" } })
          })
        )
      )
      expect(redirect._tag).toBe("ServerError")
      expect(redirect.details?.["rule"]).toBe("anthropic.should_retry")
      expect(ModelError.isRetryable(redirect)).toBe(true)
      const teapot = yield* map(
        aiError(
          "OpenAiClient",
          new AiError.UnknownError({
            http: http(418, {
              body: openAiBody("teapot", null, "short and stout"),
              headers: { "x-should-retry": "true" }
            })
          })
        )
      )
      expect(teapot._tag).toBe("ServerError")
      expect(teapot.details?.["rule"]).toBe("openai.4xx.should_retry")
      // The header never overrides the spec: an auth error stays final.
      const auth = yield* map(
        aiError(
          "AnthropicClient",
          new AiError.AuthenticationError({
            kind: "InvalidKey",
            http: http(401, {
              body: anthropicBody("authentication_error", "bad key"),
              headers: { "x-should-retry": "true" }
            })
          })
        )
      )
      expect(auth._tag).toBe("AuthError")
      expect(ModelError.isRetryable(auth)).toBe(false)
    })
  )

  it.effect(
    "the body decides where the status alone cannot: quota vs rate limit, context overflow with its counts",
    () =>
      Effect.gen(function* () {
        // A client that calls every 429 a rate limit: the body says the quota is gone.
        const quota = yield* map(
          aiError(
            "OpenAiClient",
            new AiError.RateLimitError({
              http: http(429, { body: openAiBody("insufficient_quota", "insufficient_quota", "no credit") })
            })
          )
        )
        expect(quota._tag).toBe("QuotaExceeded")
        expect(quota.details?.["rule"]).toBe("openai.429.insufficient_quota")

        const overflow = yield* map(
          aiError(
            "AnthropicClient",
            new AiError.InvalidRequestError({
              http: http(400, {
                body: anthropicBody("invalid_request_error", "prompt is too long: 4,000 tokens > 2,000 maximum")
              })
            })
          )
        )
        expect(overflow._tag).toBe("ContextLengthExceeded")
        expect(overflow).toMatchObject({ promptTokens: 4000, maxTokens: 2000 })

        const auth = yield* map(
          aiError(
            "OpenAiClient",
            new AiError.AuthenticationError({
              kind: "InvalidKey",
              http: http(401, { body: openAiBody("invalid_request_error", "invalid_api_key", "bad key") })
            })
          )
        )
        expect(auth._tag).toBe("AuthError")
      })
  )

  it.effect("a body that is not the provider's shape is classified on the status alone", () =>
    Effect.gen(function* () {
      const error = yield* map(
        aiError(
          "AnthropicClient",
          new AiError.InternalProviderError({
            description: "Server error",
            http: {
              response: { status: 503, headers: { "content-type": "text/html" } },
              body: "<html>upstream down</html>"
            }
          })
        )
      )
      expect(error._tag).toBe("ServerError")
      expect(error.details?.["body"]).toBe("<html>upstream down</html>")
    })
  )

  it.effect("a client whose dialect is unknown is classified by its reason; `dialect` picks a table", () =>
    Effect.gen(function* () {
      const error = yield* map(
        aiError(
          "GoogleClient",
          new AiError.RateLimitError({ http: http(429, { body: { error: { message: "quota" } } }) })
        )
      )
      expect(error._tag).toBe("RateLimited")
      expect(error.details?.["rule"]).toBe("effect_ai.rate_limit")
      expect(error.details?.["dialect"]).toBeUndefined()
      const chosen = yield* map(
        aiError("GoogleClient", new AiError.InternalProviderError({ description: "Server error", http: http(529) })),
        { dialect: "anthropic" }
      )
      expect(chosen._tag).toBe("Overloaded")
      expect(chosen.details?.["dialect"]).toBe("anthropic")
      expect(chosen.details?.["note"]).toBeUndefined()
    })
  )
})

describe("AiErrors.toModelError: every reason by its kind", () => {
  const kinds: ReadonlyArray<readonly [AiError.AiErrorReason, ModelError.ModelError["_tag"], boolean]> = [
    [new AiError.RateLimitError({ retryAfter: Duration.seconds(2) }), "RateLimited", true],
    [new AiError.QuotaExhaustedError({ resetAt: DateTime.makeUnsafe(0) }), "QuotaExceeded", false],
    [new AiError.AuthenticationError({ kind: "ExpiredKey" }), "AuthError", false],
    [new AiError.ContentPolicyError({ description: "blocked" }), "ContentFiltered", false],
    [new AiError.InvalidRequestError({ parameter: "temperature", description: "too hot" }), "InvalidRequest", false],
    [new AiError.InternalProviderError({ description: "boom" }), "ServerError", true],
    [new AiError.InvalidResponseError({ description: "garbled" }), "Unknown", false],
    [new AiError.NetworkError({ reason: "TransportError", method: "POST", url: "u" }), "ConnectionError", true],
    [new AiError.NetworkError({ reason: "EncodeError", method: "POST", url: "u" }), "InvalidRequest", false],
    [new AiError.NetworkError({ reason: "InvalidUrlError", method: "POST", url: "u" }), "InvalidRequest", false],
    [new AiError.InvalidOutputError({ description: "not a part" }), "Unknown", false],
    [new AiError.StructuredOutputError({ description: "bad", responseText: "{" }), "Unknown", false],
    [new AiError.UnsupportedSchemaError({ description: "no unions" }), "InvalidRequest", false],
    [new AiError.UnknownError({ description: "boom" }), "Unknown", false],
    [new AiError.ToolNotFoundError({ toolName: "x", availableTools: ["y"] }), "Unknown", false],
    [new AiError.ToolParameterValidationError({ toolName: "x", description: "bad" }), "Unknown", false],
    [new AiError.InvalidToolResultError({ toolName: "x", description: "bad" }), "Unknown", false],
    [new AiError.ToolResultEncodingError({ toolName: "x", toolResult: 1, description: "bad" }), "Unknown", false],
    [new AiError.ToolConfigurationError({ toolName: "x", description: "bad" }), "InvalidRequest", false],
    [new AiError.ToolkitRequiredError({ pendingApprovals: ["x"] }), "InvalidRequest", false],
    [new AiError.InvalidUserInputError({ description: "bad" }), "InvalidRequest", false]
  ]

  it.effect("each of the nineteen reasons has its category, and the kernel retries only the transient ones", () =>
    Effect.gen(function* () {
      const tags = new Set(kinds.map(([reason]) => reason._tag))
      expect(tags.size).toBe(19)
      for (const [reason, tag, retryable] of kinds) {
        const error = yield* map(aiError("SomeClient", reason))
        expect([reason._tag, error._tag, ModelError.isRetryable(error)]).toEqual([reason._tag, tag, retryable])
        expect(error.details?.["source"]).toBe(reason._tag)
        expect(typeof error.details?.["rule"]).toBe("string")
      }
    })
  )

  it.effect("where effect/ai calls a reason retryable and the kernel does not, details.note says why", () =>
    Effect.gen(function* () {
      for (const [reason] of kinds.filter(([reason, , retryable]) => reason.isRetryable && !retryable)) {
        const error = yield* map(aiError("SomeClient", reason))
        expect([reason._tag, typeof error.details?.["note"]]).toEqual([reason._tag, "string"])
      }
    })
  )

  it.effect("output that did not decode keeps its issues in the message, and the note says why it is not retried", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(Schema.decodeUnknownEffect(Schema.Struct({ id: Schema.String }))({}))
      const error = yield* map(aiError("SomeClient", AiError.InvalidOutputError.fromSchemaError(failure)))
      expect(error._tag).toBe("Unknown")
      expect(error.message).toContain("id")
      expect(String(error.details?.["note"])).toContain("never retries")
    })
  )

  it.effect("a rate limit keeps its retryAfter; without one, the response's retry headers give it", () =>
    Effect.gen(function* () {
      const hinted = yield* map(aiError("SomeClient", new AiError.RateLimitError({ retryAfter: Duration.seconds(2) })))
      expect(hinted.retryAfter).toEqual(Duration.seconds(2))
      const headed = yield* map(
        aiError(
          "SomeClient",
          new AiError.RateLimitError({ http: http(429, { headers: { "retry-after-ms": "1500" } }) })
        )
      )
      expect([headed.retryAfter, headed.status]).toEqual([Duration.millis(1500), 429])
    })
  )

  it.effect("an invalid request that says the prompt is over the window is a context overflow, with its counts", () =>
    Effect.gen(function* () {
      const anthropic = yield* map(
        aiError(
          "SomeClient",
          new AiError.InvalidRequestError({ description: "prompt is too long: 300 tokens > 200 maximum" })
        )
      )
      expect(anthropic).toMatchObject({ _tag: "ContextLengthExceeded", promptTokens: 300, maxTokens: 200 })
      const openAi = yield* map(
        aiError(
          "SomeClient",
          new AiError.InvalidRequestError({
            description:
              "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
          })
        )
      )
      expect(openAi).toMatchObject({ _tag: "ContextLengthExceeded", promptTokens: 9000, maxTokens: 8192 })
    })
  )

  it.effect("a response that made no sense is a server error for a 5xx, otherwise unknown and never retried", () =>
    Effect.gen(function* () {
      const garbled = yield* map(
        aiError("SomeClient", new AiError.InvalidResponseError({ description: "x", http: http(200) }))
      )
      expect(garbled._tag).toBe("Unknown")
      expect(ModelError.isRetryable(garbled)).toBe(false)
      expect(String(garbled.details?.["note"])).toContain("malformed")
      const upstream = yield* map(
        aiError("SomeClient", new AiError.InvalidResponseError({ description: "x", http: http(502) }))
      )
      expect(upstream._tag).toBe("ServerError")
    })
  )

  it.effect("a network error keeps the socket code; one that timed out is a timeout", () =>
    Effect.gen(function* () {
      const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" })
      const refused = yield* map(
        aiError(
          "OpenAiClient",
          new AiError.NetworkError({ reason: "TransportError", method: "POST", url: "u", cause: { cause } })
        )
      )
      expect(refused._tag).toBe("ConnectionError")
      expect(refused.details?.["code"]).toBe("ECONNREFUSED")
      expect(ModelError.isRetryable(refused)).toBe(true)
      const slow = yield* map(
        aiError(
          "OpenAiClient",
          new AiError.NetworkError({
            reason: "TransportError",
            method: "POST",
            url: "u",
            cause: new Cause.TimeoutError("no answer")
          })
        )
      )
      expect(slow._tag).toBe("Timeout")
      expect(ModelError.isRetryable(slow)).toBe(true)
    })
  )

  it.effect("a secret a server echoed into the error is redacted", () =>
    Effect.gen(function* () {
      const error = yield* map(
        aiError(
          "SomeClient",
          new AiError.AuthenticationError({
            kind: "InvalidKey",
            description: `bad key ${KEY}`,
            http: http(401, { body: { error: { message: `bad key ${KEY}` } } })
          })
        ),
        { redact: [Redacted.make(KEY)] }
      )
      expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(KEY)
      expect(error.message).toContain("<redacted>")
    })
  )

  it.effect("a credential or cookie the response headers kept reaches no detail, the AiError kept there included", () =>
    Effect.gen(function* () {
      for (const client of ["AnthropicClient", "SomeClient"]) {
        const original = aiError(
          client,
          new AiError.RateLimitError({
            http: {
              response: {
                status: 429,
                headers: {
                  "retry-after": "2",
                  "x-goog-api-key": Redacted.make(KEY),
                  "set-cookie": `session=${KEY.slice(0, 12)}`
                }
              }
            }
          })
        )
        const error = yield* map(original)
        const everything = JSON.stringify({ message: error.message, details: error.details })
        expect([client, everything.includes(KEY), everything.includes(KEY.slice(0, 12))]).toEqual([
          client,
          false,
          false
        ])
        expect(error.retryAfter).toEqual(Duration.seconds(2))
        const back = AiErrors.toAiError(error)
        expect(back.reason._tag === "RateLimitError" && back.reason.http?.response?.headers).toEqual({
          "retry-after": "2"
        })
      }
    })
  )

  it.effect("a reason holding a value JSON cannot carry is still classified (a tool result that did not encode)", () =>
    Effect.gen(function* () {
      const cyclic: Record<string, unknown> = { at: new Date(0) }
      cyclic["self"] = cyclic
      for (const toolResult of [new Date(0), { late: undefined }, cyclic]) {
        const original = aiError(
          "Toolkit",
          new AiError.ToolResultEncodingError({ toolName: "x", toolResult, description: "bad" })
        )
        const error = yield* Effect.suspend(() => map(original))
        expect([error._tag, error.details?.["source"]]).toEqual(["Unknown", "ToolResultEncodingError"])
        expect(AiErrors.toAiError(error).reason._tag).toBe("UnknownError")
      }
    })
  )
})

const base = { provider: "anthropic", model: "m" }

/** One error of every category, with every field the category can carry. */
const everyCategory: ReadonlyArray<ModelError.ModelError> = [
  ModelError.make("rate_limited", {
    ...base,
    message: "slow",
    status: 429,
    retryAfter: Duration.seconds(2),
    details: { rule: "anthropic.429", headers: { "retry-after": "2" }, body: { type: "error" } }
  }),
  ModelError.make("overloaded", {
    ...base,
    message: "busy",
    status: 529,
    retryAfter: Duration.millis(250),
    retryable: false
  }),
  ModelError.make("server_error", {
    ...base,
    message: "cut",
    midStream: true,
    usage: { input_tokens: 3, output_tokens: 1 }
  }),
  ModelError.make("timeout", { ...base, message: "no first byte", details: { phase: "first_byte" } }),
  ModelError.make("connection_error", { ...base, message: "reset", details: { code: "ECONNRESET" } }),
  new ModelError.ContextLengthExceeded({
    ...base,
    message: "too long",
    status: 400,
    promptTokens: 300,
    maxTokens: 200
  }),
  ModelError.make("auth_error", { ...base, message: "bad key", status: 401 }),
  ModelError.make("invalid_request", { ...base, message: "bad", status: 400 }),
  ModelError.make("quota_exceeded", { ...base, message: "no credit", status: 402 }),
  new ModelError.ContentFiltered({ ...base, message: "refused", partialText: "I can help with part" }),
  new ModelError.ProcessCrashed({ ...base, message: "exited", exitCode: 1, signal: null, stderrTail: "panic" }),
  ModelError.make("unknown", { ...base, message: "?" })
]

describe("AiErrors.toAiError", () => {
  it("each category becomes the reason that can carry it, with effect/ai's isRetryable", () => {
    const reasons = everyCategory.map((error) => {
      const mapped = AiErrors.toAiError(error)
      return [error.category, mapped.reason._tag, mapped.isRetryable]
    })
    expect(reasons).toEqual([
      ["rate_limited", "RateLimitError", true],
      ["overloaded", "InternalProviderError", true],
      ["server_error", "InternalProviderError", true],
      ["timeout", "NetworkError", true],
      ["connection_error", "NetworkError", true],
      ["context_length_exceeded", "InvalidRequestError", false],
      ["auth_error", "AuthenticationError", false],
      ["invalid_request", "InvalidRequestError", false],
      ["quota_exceeded", "QuotaExhaustedError", false],
      ["content_filtered", "ContentPolicyError", false],
      ["process_crashed", "UnknownError", false],
      ["unknown", "UnknownError", false]
    ])
  })

  it("the status, the kept headers and the body travel in http; the hint as retryAfter and retry-after-ms", () => {
    const limited = AiErrors.toAiError(everyCategory[0]!)
    expect(limited.retryAfter).toEqual(Duration.seconds(2))
    expect(limited.reason._tag === "RateLimitError" && limited.reason.http?.response).toEqual({
      status: 429,
      headers: { "retry-after": "2" }
    })
    const overloaded = AiErrors.toAiError(everyCategory[1]!)
    // What effect/ai cannot say: InternalProviderError has no retryAfter and is always retryable; the headers say both.
    expect([overloaded.retryAfter, overloaded.isRetryable]).toEqual([undefined, true])
    expect(overloaded.reason._tag === "InternalProviderError" && overloaded.reason.http?.response?.headers).toEqual({
      "retry-after-ms": "250",
      "x-should-retry": "false"
    })
    const auth = AiErrors.toAiError(everyCategory[6]!)
    expect(auth.reason._tag === "AuthenticationError" && auth.reason.kind).toBe("InvalidKey")
  })

  it.effect("ModelError → AiError → ModelError gives back the same error, for every category", () =>
    Effect.gen(function* () {
      for (const error of everyCategory) {
        const back = yield* AiErrors.toModelError(AiErrors.toAiError(error), { provider: "other", model: "other" })
        expect(back).toEqual(error)
        expect(back._tag).toBe(error._tag)
      }
    })
  )

  it.effect("AiError → ModelError → AiError gives back the same error, for every reason", () =>
    Effect.gen(function* () {
      const reasons: ReadonlyArray<AiError.AiErrorReason> = [
        new AiError.RateLimitError({ retryAfter: Duration.seconds(2), http: http(429, { body: { a: 1 } }) }),
        new AiError.QuotaExhaustedError({ resetAt: DateTime.makeUnsafe(1_000), metadata: { openai: { code: "q" } } }),
        new AiError.AuthenticationError({ kind: "MissingKey", description: "none" }),
        new AiError.ContentPolicyError({ description: "blocked", http: http(400) }),
        new AiError.InvalidRequestError({ parameter: "p", constraint: "c", description: "d" }),
        new AiError.InvalidResponseError({ description: "garbled" }),
        new AiError.InternalProviderError({ description: "boom", http: http(503) }),
        new AiError.NetworkError({
          reason: "TransportError",
          method: "POST",
          url: "https://x.test/v1",
          description: "reset"
        }),
        new AiError.InvalidOutputError({ description: "bad", usage: { promptTokens: 1 } }),
        new AiError.StructuredOutputError({ description: "bad", responseText: "{" }),
        new AiError.UnsupportedSchemaError({ description: "no" }),
        new AiError.UnknownError({ description: "?" }),
        new AiError.ToolNotFoundError({ toolName: "x", availableTools: ["y"] }),
        new AiError.ToolParameterValidationError({ toolName: "x", description: "bad" }),
        new AiError.InvalidToolResultError({ toolName: "x", description: "bad" }),
        new AiError.ToolResultEncodingError({ toolName: "x", toolResult: { n: 1 }, description: "bad" }),
        new AiError.ToolConfigurationError({ toolName: "x", description: "bad" }),
        new AiError.ToolkitRequiredError({ pendingApprovals: ["x"] }),
        new AiError.InvalidUserInputError({ description: "bad" })
      ]
      for (const reason of reasons) {
        const original = aiError("SomeClient", reason)
        const back = AiErrors.toAiError(yield* map(original))
        expect(back).toEqual(original)
        expect([back.reason._tag, back.isRetryable, back.retryAfter]).toEqual([
          reason._tag,
          original.isRetryable,
          original.retryAfter
        ])
      }
    })
  )

  it.effect("a kernel error whose details JSON cannot carry still maps both ways, by its category", () =>
    Effect.gen(function* () {
      const details: ReadonlyArray<Record<string, unknown>> = [
        { cause: new Error("socket closed") },
        { at: new Date(0) },
        { note: undefined }
      ]
      for (const detail of details) {
        for (const category of ["server_error", "connection_error"] as const) {
          const error = ModelError.make(category, { ...base, message: "x", details: detail })
          const mapped = yield* Effect.sync(() => AiErrors.toAiError(error))
          expect(mapped.isRetryable).toBe(true)
          const back = yield* AiErrors.toModelError(mapped, { provider: "anthropic", model: "m" })
          expect(back.category).toBe(category)
        }
      }
    })
  )

  it.effect("a network error's live cause comes back as an Error of the same name and message, no more", () =>
    Effect.gen(function* () {
      const cause = Object.assign(new TypeError("socket hang up"), { code: "ECONNRESET" })
      const original = aiError(
        "SomeClient",
        new AiError.NetworkError({ reason: "TransportError", method: "POST", url: "u", cause })
      )
      const back = AiErrors.toAiError(yield* map(original))
      const kept = back.reason._tag === "NetworkError" ? back.reason.cause : undefined
      // The kernel's details hold JSON: the cause keeps what Schema.Defect encodes, its name and message.
      expect(kept instanceof Error && [kept.name, kept.message, "code" in kept]).toEqual([
        "TypeError",
        "socket hang up",
        false
      ])
    })
  )

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

  it.effect("an error the kernel's own providers classify comes back to the same category, hint and counts", () =>
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
        expect(back).toEqual(original)
      }
    })
  )

  it.effect("a reason built from the response alone, as another client builds it, classifies the same", () =>
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
        const original = yield* Effect.flip(ModelProvider.generate(provider, { model: "m", messages: [], tools: [] }))
        // effect/ai's own helper: a reason from the status, with the response kept.
        const reason = AiError.reasonFromHttpStatus({
          status: original.status ?? 0,
          http: http(original.status ?? 0, {
            body: original.details?.["body"],
            headers: Redaction.keptHeaders(original.details?.["headers"])
          })
        })
        const client = api === "anthropic" ? "AnthropicClient" : "OpenAiClient"
        const back = yield* AiErrors.toModelError(aiError(client, reason), { provider: api, model: "m" })
        expect([back._tag, back.status, back.retryable, back.retryAfter]).toEqual([
          original._tag,
          original.status,
          original.retryable,
          original.retryAfter
        ])
      }
    })
  )
})
