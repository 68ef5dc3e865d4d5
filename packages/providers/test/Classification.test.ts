import { describe, expect, it } from "@effect/vitest"
import { ModelError, ModelProvider } from "@agent-kernel/kernel"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodePath from "node:path"
import { Anthropic, Classification, OpenAi } from "../src/index.js"
import { FaultPlan } from "../src/testing/index.js"
import { type Api, failure, providerAt, request, setup } from "./support.js"

/** One row's test: the step the fake server plays, and what must come out. */
interface Case {
  readonly rule: string
  readonly api: Api
  readonly step: FaultPlan.Step
  readonly category: ModelError.Category
  readonly status?: number
  readonly midStream?: boolean
  readonly promptTokens?: number
  readonly maxTokens?: number
  /** Names the case in its test title when the step alone does not say enough. */
  readonly label?: string
}

const http = (
  rule: string,
  api: Api,
  status: number,
  errorType: string,
  category: ModelError.Category,
  extra?: {
    message?: string
    code?: string
    promptTokens?: number
    maxTokens?: number
    headers?: Record<string, string>
  }
): Case => ({
  rule,
  api,
  step: {
    kind: "error",
    status,
    error_type: errorType,
    ...(extra?.message !== undefined ? { message: extra.message } : {}),
    ...(extra?.code !== undefined ? { code: extra.code } : {}),
    ...(extra?.headers !== undefined ? { headers: extra.headers } : {})
  },
  ...(extra?.headers?.["x-should-retry"] !== undefined
    ? { label: `x-should-retry: ${extra.headers["x-should-retry"]}` }
    : {}),
  category,
  status,
  ...(extra?.promptTokens !== undefined ? { promptTokens: extra.promptTokens } : {}),
  ...(extra?.maxTokens !== undefined ? { maxTokens: extra.maxTokens } : {})
})

const stream = (
  rule: string,
  api: Api,
  errorType: string,
  category: ModelError.Category,
  extra?: { message?: string; code?: string; promptTokens?: number; maxTokens?: number; flat?: boolean }
): Case => ({
  rule,
  api,
  step: {
    kind: "stream_error",
    text: "partial answer that must be discarded",
    error_type: errorType,
    ...(extra?.message !== undefined ? { message: extra.message } : {}),
    ...(extra?.code !== undefined ? { code: extra.code } : {}),
    ...(extra?.flat === true ? { flat: true } : {})
  },
  ...(extra?.flat === true ? { label: "flat event: error" } : {}),
  category,
  midStream: true,
  ...(extra?.promptTokens !== undefined ? { promptTokens: extra.promptTokens } : {}),
  ...(extra?.maxTokens !== undefined ? { maxTokens: extra.maxTokens } : {})
})

/** A flat `event: error` (type and message at the top of its data) inside a 200 stream. */
const flat = (rule: string, api: Api, errorType: string, category: ModelError.Category, message: string): Case =>
  stream(rule, api, errorType, category, { message, flat: true })

/** An exact JSON error body, as a real server (Azure) sends it. */
const rawJson = (
  rule: string,
  api: Api,
  status: number,
  body: unknown,
  category: ModelError.Category,
  label: string
): Case => ({
  rule,
  api,
  step: { kind: "raw", status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
  category,
  status,
  label
})

const azurePromptFiltered = {
  error: {
    message:
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
    type: null,
    param: "prompt",
    code: "content_filter",
    status: 400,
    innererror: {
      code: "ResponsibleAIPolicyViolation",
      content_filter_result: {
        hate: { filtered: false, severity: "safe" },
        self_harm: { filtered: false, severity: "safe" },
        sexual: { filtered: false, severity: "safe" },
        violence: { filtered: true, severity: "medium" }
      }
    }
  }
}

const azureImageFiltered = {
  error: {
    code: "contentFilter",
    message: "Your task failed as a result of our safety system.",
    innererror: { code: "ResponsibleAIPolicyViolation", content_filter_results: {} }
  }
}

const shouldRetry = { "x-should-retry": "true" }

const tooLong = "prompt is too long: 208,310 tokens > 200000 maximum"
const openAiTooLong =
  "This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens. Please reduce the length of the messages."

export const cases: ReadonlyArray<Case> = [
  // Anthropic, by status
  http("anthropic.prompt_too_long", "anthropic", 400, "invalid_request_error", "context_length_exceeded", {
    message: tooLong,
    promptTokens: 208310,
    maxTokens: 200000
  }),
  http("anthropic.413", "anthropic", 413, "request_too_large", "context_length_exceeded"),
  http("anthropic.429", "anthropic", 429, "rate_limit_error", "rate_limited"),
  http("anthropic.529", "anthropic", 529, "overloaded_error", "overloaded"),
  http("anthropic.401", "anthropic", 401, "authentication_error", "auth_error"),
  http("anthropic.403", "anthropic", 403, "permission_error", "auth_error"),
  http("anthropic.402", "anthropic", 402, "billing_error", "quota_exceeded"),
  http("anthropic.408", "anthropic", 408, "timeout_error", "timeout"),
  http("anthropic.409", "anthropic", 409, "conflict_error", "server_error"),
  http("anthropic.overloaded_type", "anthropic", 503, "overloaded_error", "overloaded"),
  http("anthropic.5xx", "anthropic", 500, "api_error", "server_error"),
  http("anthropic.5xx", "anthropic", 502, "api_error", "server_error"),
  http("anthropic.5xx", "anthropic", 503, "api_error", "server_error"),
  http("anthropic.5xx", "anthropic", 504, "timeout_error", "server_error"),
  http("anthropic.400_404_422", "anthropic", 400, "invalid_request_error", "invalid_request", {
    message: "messages: field required"
  }),
  http("anthropic.400_404_422", "anthropic", 404, "not_found_error", "invalid_request"),
  http("anthropic.400_404_422", "anthropic", 422, "invalid_request_error", "invalid_request"),
  http("anthropic.4xx.should_retry", "anthropic", 418, "teapot", "server_error", { headers: shouldRetry }),
  http("anthropic.4xx", "anthropic", 405, "invalid_request_error", "invalid_request"),
  // Anthropic, mid-stream `event: error` after a 200
  stream("anthropic.stream.prompt_too_long", "anthropic", "invalid_request_error", "context_length_exceeded", {
    message: tooLong,
    promptTokens: 208310,
    maxTokens: 200000
  }),
  stream("anthropic.stream.overloaded_error", "anthropic", "overloaded_error", "overloaded"),
  stream("anthropic.stream.rate_limit_error", "anthropic", "rate_limit_error", "rate_limited"),
  stream("anthropic.stream.api_error", "anthropic", "api_error", "server_error"),
  flat("anthropic.stream.api_error", "anthropic", "server_error", "server_error", "Internal server error"),
  flat("anthropic.stream.overloaded_error", "anthropic", "overloaded_error", "overloaded", "Please try again"),
  stream("anthropic.stream.request_too_large", "anthropic", "request_too_large", "context_length_exceeded"),
  stream("anthropic.stream.auth", "anthropic", "permission_error", "auth_error"),
  stream("anthropic.stream.billing_error", "anthropic", "billing_error", "quota_exceeded"),
  stream("anthropic.stream.invalid_request", "anthropic", "not_found_error", "invalid_request"),
  // Anthropic, a 200 whose body is an error object: classified by its type, like an error event
  http("anthropic.stream.overloaded_error", "anthropic", 200, "overloaded_error", "overloaded"),
  http("anthropic.stream.invalid_request", "anthropic", 200, "invalid_request_error", "invalid_request"),
  // x-should-retry: true makes a failure no other row matched transient
  http("anthropic.should_retry", "anthropic", 200, "brand_new_error", "server_error", { headers: shouldRetry }),
  http("anthropic.should_retry", "anthropic", 302, "brand_new_error", "server_error", { headers: shouldRetry }),
  // OpenAI, by status
  rawJson("openai.content_filter", "openai", 400, azurePromptFiltered, "content_filtered", "Azure content_filter"),
  rawJson(
    "openai.content_filter.innererror",
    "openai",
    400,
    azureImageFiltered,
    "content_filtered",
    "Azure innererror ResponsibleAIPolicyViolation"
  ),
  http("openai.429.insufficient_quota", "openai", 429, "insufficient_quota", "quota_exceeded", {
    code: "insufficient_quota"
  }),
  http("openai.429.insufficient_quota_type", "openai", 429, "insufficient_quota", "quota_exceeded"),
  http("openai.429", "openai", 429, "requests", "rate_limited", { code: "rate_limit_exceeded" }),
  http("openai.context_length_exceeded", "openai", 400, "invalid_request_error", "context_length_exceeded", {
    code: "context_length_exceeded",
    message: openAiTooLong,
    promptTokens: 130001,
    maxTokens: 128000
  }),
  http("openai.context_message", "openai", 400, "invalid_request_error", "context_length_exceeded", {
    message: openAiTooLong,
    promptTokens: 130001,
    maxTokens: 128000
  }),
  http("openai.401", "openai", 401, "invalid_request_error", "auth_error", { code: "invalid_api_key" }),
  http("openai.403", "openai", 403, "invalid_request_error", "auth_error", {
    code: "unsupported_country_region_territory"
  }),
  http("openai.402", "openai", 402, "insufficient_credits", "quota_exceeded"),
  http("openai.408", "openai", 408, "timeout", "timeout"),
  http("openai.409", "openai", 409, "conflict", "server_error"),
  http("openai.503.overloaded", "openai", 503, "server_error", "overloaded", {
    message: "The engine is currently overloaded, please try again later"
  }),
  http("openai.5xx", "openai", 500, "server_error", "server_error"),
  http("openai.5xx", "openai", 502, "server_error", "server_error"),
  http("openai.5xx", "openai", 503, "server_error", "server_error", { message: "Service Unavailable" }),
  http("openai.5xx", "openai", 504, "server_error", "server_error"),
  http("openai.400_404_422", "openai", 400, "invalid_request_error", "invalid_request", { code: "invalid_value" }),
  http("openai.400_404_422", "openai", 404, "invalid_request_error", "invalid_request", { code: "model_not_found" }),
  http("openai.400_404_422", "openai", 422, "invalid_request_error", "invalid_request"),
  http("openai.4xx.should_retry", "openai", 418, "teapot", "server_error", { headers: shouldRetry }),
  http("openai.4xx", "openai", 405, "invalid_request_error", "invalid_request"),
  // OpenAI, a 200 whose body is an error object, alike
  http("openai.stream.overloaded_error", "openai", 200, "overloaded_error", "overloaded"),
  http("openai.stream.invalid_request", "openai", 200, "invalid_request_error", "invalid_request"),
  http("openai.should_retry", "openai", 200, "brand_new_error", "server_error", { headers: shouldRetry }),
  http("openai.should_retry", "openai", 302, "brand_new_error", "server_error", { headers: shouldRetry }),
  // OpenAI, error chunk inside a 200 stream
  stream("openai.stream.insufficient_quota", "openai", "insufficient_quota", "quota_exceeded", {
    code: "insufficient_quota"
  }),
  stream("openai.stream.rate_limit", "openai", "requests", "rate_limited", { code: "rate_limit_exceeded" }),
  stream("openai.stream.overloaded", "openai", "server_error", "overloaded", { message: "Model overloaded" }),
  stream("openai.stream.server_error", "openai", "server_error", "server_error"),
  flat("openai.stream.server_error", "openai", "server_error", "server_error", "Internal server error"),
  flat("openai.stream.overloaded_error", "openai", "overloaded_error", "overloaded", "Please try again"),
  stream("openai.stream.invalid_request", "openai", "invalid_request_error", "invalid_request"),
  // No row: the fallback
  stream("fallback.unknown", "anthropic", "brand_new_error", "unknown"),
  stream("fallback.unknown", "openai", "brand_new_error", "unknown")
]

/** The facts the wire test's step gives the classifier, as the provider reads them. */
const factsOf = (c: Case): Classification.Facts => {
  const step = c.step
  switch (step.kind) {
    case "error":
      return {
        status: step.status,
        type: step.error_type,
        code: step.code,
        message: step.message ?? step.error_type,
        shouldRetry:
          step.headers?.["x-should-retry"] === undefined ? undefined : step.headers["x-should-retry"] === "true"
      }
    case "stream_error":
      return { type: step.error_type, code: step.code, message: step.message ?? step.error_type }
    case "raw": {
      const errorFacts = c.api === "anthropic" ? Anthropic.errorFacts : OpenAi.errorFacts
      const facts = Option.getOrThrow(errorFacts(JSON.parse(step.body)))
      return { status: step.status, ...facts }
    }
    default:
      throw new Error(`no facts for a ${step.kind} step`)
  }
}

describe("classification tables", () => {
  it("every row of both tables has a wire test", () => {
    const tested = new Set(cases.map((c) => c.rule))
    for (const rule of [...Classification.anthropic, ...Classification.openAi]) {
      expect(tested.has(rule.id), `row ${rule.id} has no test`).toBe(true)
    }
  })

  it("row ids are unique", () => {
    const ids = [...Classification.anthropic, ...Classification.openAi].map((rule) => rule.id)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("the README documents every row", () => {
    const readme = NodeFs.readFileSync(NodePath.join(import.meta.dirname, "..", "README.md"), "utf8")
    for (const rule of [...Classification.anthropic, ...Classification.openAi]) {
      expect(readme, `README lacks ${rule.id}`).toContain(`\`${rule.id}\``)
      expect(readme).toContain(rule.category)
    }
  })

  it("pure classification picks the same row the wire test names", () => {
    for (const c of cases) {
      const table = c.api === "anthropic" ? Classification.anthropic : Classification.openAi
      const classified = Classification.classify(table, factsOf(c))
      expect(classified.rule?.id ?? "fallback.unknown", `${c.rule} ${JSON.stringify(c.step)}`).toBe(c.rule)
      expect(classified.category).toBe(c.category)
    }
  })

  it("parses token counts from both context-length messages", () => {
    expect(Classification.anthropicTokens("prompt is too long: 1200 tokens > 1000 maximum")).toEqual({
      promptTokens: 1200,
      maxTokens: 1000
    })
    expect(Classification.openAiTokens(openAiTooLong)).toEqual({ promptTokens: 130001, maxTokens: 128000 })
    expect(Classification.openAiTokens("no numbers here")).toEqual({ promptTokens: undefined, maxTokens: undefined })
  })
})

describe("classification over the wire, one test per row", () => {
  for (const c of cases) {
    const label = [
      c.api,
      c.step.kind === "error" || c.step.kind === "raw" ? String(c.step.status) : "mid-stream",
      c.step.kind === "error" || c.step.kind === "stream_error" ? c.step.error_type : undefined,
      c.step.kind === "error" && c.step.code !== undefined ? `code=${c.step.code}` : undefined,
      c.label !== undefined ? `(${c.label})` : undefined
    ]
      .filter((part) => part !== undefined)
      .join(" ")
    it.effect(`${c.rule}: ${label} -> ${c.category}`, () =>
      Effect.gen(function* () {
        const { provider } = yield* setup(c.api, FaultPlan.make([c.step]))
        const error = yield* failure(provider)
        expect(error.category).toBe(c.category)
        expect(error.details?.["rule"]).toBe(c.rule)
        expect(error.status).toBe(c.status)
        expect(error.midStream).toBe(c.midStream)
        expect(error.provider).toBe(c.api)
        expect(error.model).toBe("test-model")
        if (c.promptTokens !== undefined && error._tag === "ContextLengthExceeded") {
          expect(error.promptTokens).toBe(c.promptTokens)
          expect(error.maxTokens).toBe(c.maxTokens)
        } else if (c.promptTokens !== undefined) {
          expect.fail(`expected ContextLengthExceeded, got ${error._tag}`)
        }
      })
    )
  }
})

describe("stop reasons", () => {
  it.effect.each([true, false])("anthropic refusal -> content_filtered response with partial text (stream=%s)", (s) =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        "anthropic",
        FaultPlan.make([{ kind: "reply", text: "I started to answer", stop: "refusal" }]),
        { stream: s }
      )
      const response = yield* ModelProvider.generate(provider, request())
      expect(response.stop_reason).toBe("content_filtered")
      expect(response.content).toEqual([{ type: "text", text: "I started to answer" }])
    })
  )

  it.effect.each([true, false])("openai content_filter -> content_filtered response (stream=%s)", (s) =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        "openai",
        FaultPlan.make([{ kind: "reply", text: "Partial", stop: "refusal" }]),
        { stream: s }
      )
      const response = yield* ModelProvider.generate(provider, request())
      expect(response.stop_reason).toBe("content_filtered")
      expect(response.content).toEqual([{ type: "text", text: "Partial" }])
    })
  )

  it.effect.each([true, false])("anthropic model_context_window_exceeded -> ContextLengthExceeded (stream=%s)", (s) =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        "anthropic",
        FaultPlan.make([{ kind: "reply", text: "cut", stop: "model_context_window_exceeded" }]),
        { stream: s }
      )
      const error = yield* failure(provider)
      expect(error._tag).toBe("ContextLengthExceeded")
      expect(error.details?.["rule"]).toBe("anthropic.stop_reason.model_context_window_exceeded")
    })
  )
})

describe("headers", () => {
  it.effect.each(["anthropic", "openai"] as const)("x-should-retry: false makes a transient error final (%s)", (api) =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        api,
        FaultPlan.make([
          { kind: "error", status: 529, error_type: "overloaded_error", headers: { "x-should-retry": "false" } },
          { kind: "error", status: 529, error_type: "overloaded_error" }
        ])
      )
      const final = yield* failure(provider)
      expect(final.retryable).toBe(false)
      expect(ModelError.isRetryable(final)).toBe(false)
      const transient = yield* failure(provider)
      expect(transient.retryable).toBeUndefined()
      expect(ModelError.isRetryable(transient)).toBe(true)
    })
  )

  it.effect.each(["anthropic", "openai"] as const)(
    "x-should-retry: true never makes auth_error, invalid_request or quota_exceeded retryable (%s)",
    (api) =>
      Effect.gen(function* () {
        const forbidden: ReadonlyArray<readonly [FaultPlan.Step, ModelError.Category]> = [
          [{ kind: "error", status: 401, error_type: "authentication_error", headers: shouldRetry }, "auth_error"],
          [{ kind: "error", status: 403, error_type: "permission_error", headers: shouldRetry }, "auth_error"],
          [
            { kind: "error", status: 400, error_type: "invalid_request_error", headers: shouldRetry },
            "invalid_request"
          ],
          [
            { kind: "error", status: 422, error_type: "invalid_request_error", headers: shouldRetry },
            "invalid_request"
          ],
          [
            api === "anthropic"
              ? { kind: "error", status: 402, error_type: "billing_error", headers: shouldRetry }
              : {
                  kind: "error",
                  status: 429,
                  error_type: "insufficient_quota",
                  code: "insufficient_quota",
                  headers: shouldRetry
                },
            "quota_exceeded"
          ]
        ]
        const { provider } = yield* setup(api, FaultPlan.make(forbidden.map(([step]) => step)))
        for (const [, category] of forbidden) {
          const error = yield* failure(provider)
          expect(error.category).toBe(category)
          expect(ModelError.isRetryable(error)).toBe(false)
        }
      })
  )

  it.effect("anthropic-ratelimit headers are kept in details", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup(
        "anthropic",
        FaultPlan.make([
          {
            kind: "error",
            status: 429,
            error_type: "rate_limit_error",
            headers: {
              "anthropic-ratelimit-requests-reset": "2026-11-30T06:00:30Z",
              "anthropic-ratelimit-tokens-remaining": "0",
              "retry-after": "30"
            }
          }
        ])
      )
      const error = yield* failure(provider)
      const headers = error.details?.["headers"] as Record<string, string> | undefined
      expect(headers?.["anthropic-ratelimit-requests-reset"]).toBe("2026-11-30T06:00:30Z")
      expect(headers?.["anthropic-ratelimit-tokens-remaining"]).toBe("0")
      expect(error.retryAfter && Duration.toMillis(error.retryAfter)).toBe(30_000)
    })
  )
})

describe("transport", () => {
  it.effect.each(["anthropic", "openai"] as const)("connection refused -> connection_error (%s)", (api) =>
    Effect.gen(function* () {
      // A port that was just free: listen, note it, close.
      const port = yield* Effect.promise(
        () =>
          new Promise<number>((resolve) => {
            const probe = NodeNet.createServer().listen(0, "127.0.0.1", () => {
              const address = probe.address()
              probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
            })
          })
      )
      const base = api === "anthropic" ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`
      const provider = yield* providerAt(api, base)
      const error = yield* failure(provider)
      expect(error._tag).toBe("ConnectionError")
      expect(error.details?.["code"]).toBe("ECONNREFUSED")
    })
  )

  it.effect.each(["anthropic", "openai"] as const)(
    "connection reset before a response -> connection_error (%s)",
    (api) =>
      Effect.gen(function* () {
        const { provider } = yield* setup(api, FaultPlan.make([{ kind: "reset" }]))
        const error = yield* failure(provider)
        expect(error._tag).toBe("ConnectionError")
        expect(error.midStream).toBeUndefined()
      })
  )

  it.effect.each(["anthropic", "openai"] as const)(
    "connection reset mid-stream -> connection_error, midStream (%s)",
    (api) =>
      Effect.gen(function* () {
        const { provider } = yield* setup(api, FaultPlan.make([{ kind: "reset", text: "some partial text" }]))
        const error = yield* failure(provider)
        expect(error._tag).toBe("ConnectionError")
        expect(error.midStream).toBe(true)
      })
  )

  it.effect.each(["anthropic", "openai"] as const)("a base URL that is not a URL -> invalid_request (%s)", (api) =>
    Effect.gen(function* () {
      const provider = yield* providerAt(api, "not a url")
      const error = yield* failure(provider)
      expect(error._tag).toBe("InvalidRequest")
      expect(error.details?.["reason"]).toBe("InvalidUrl")
      expect(ModelError.isRetryable(error)).toBe(false)
    })
  )

  it.effect.each(["anthropic", "openai"] as const)("DNS failure -> connection_error (%s)", (api) =>
    Effect.gen(function* () {
      const provider = yield* providerAt(api, api === "anthropic" ? "http://api.invalid" : "http://api.invalid/v1", {
        transport: {
          lookup: (hostname, _options, callback) => {
            const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`)
            error.code = "ENOTFOUND"
            process.nextTick(() => callback(error, "", 4))
          }
        }
      })
      const error = yield* failure(provider)
      expect(error._tag).toBe("ConnectionError")
      expect(error.details?.["code"]).toBe("ENOTFOUND")
    })
  )
})
