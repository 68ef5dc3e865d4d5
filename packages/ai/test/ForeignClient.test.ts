/**
 * A foreign effect/ai client under the adapter: a `LanguageModel` double
 * that fails as a provider package's client does, with a reason from
 * `AiError.reasonFromHttpStatus` that kept the response (status, headers,
 * the body's text), from a module whose wire dialect the kernel providers'
 * tables know. The adapter classifies it through those tables, and a kernel
 * session retries, reduces the context or ends as the spec says.
 */
import { Content } from "@agent-kernel/kernel"
import { RecordedRun } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { LanguageModelProvider } from "../src/index.js"

/** One answer of the double: an HTTP failure as the client reports it, or a short reply. */
type Answer =
  | {
      readonly status: number
      readonly headers?: Readonly<Record<string, string>>
      readonly body: unknown
    }
  | "reply"

type Client = "AnthropicClient" | "OpenAiClient"

/** What a provider package's client fails with: the reason `reasonFromHttpStatus` picks, the response kept. */
const failureOf = (client: Client, answer: Exclude<Answer, "reply">): AiError.AiError => {
  const body = JSON.stringify(answer.body)
  return AiError.make({
    module: client,
    method: "createMessage",
    reason: AiError.reasonFromHttpStatus({
      status: answer.status,
      body: answer.body,
      http: {
        response: { status: answer.status, headers: { "content-type": "application/json", ...answer.headers } },
        body
      }
    })
  })
}

const reply = Stream.make(
  { type: "text-delta", id: "t", delta: "done" } as const,
  { type: "finish", reason: "stop", usage: { inputTokens: {}, outputTokens: {} } } as const
)

/** The adapter over a double answering `answers` in turn (the last one again after the end), and when it was called. */
const foreign = (client: Client, answers: ReadonlyArray<Answer>) =>
  Effect.gen(function* () {
    const calls = yield* Ref.make<ReadonlyArray<number>>([])
    const model = yield* LanguageModel.make({
      generateText: () => Effect.die("the adapter streams"),
      streamText: () =>
        Stream.unwrap(
          Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            const made = yield* Ref.modify(calls, (times) => [times.length, [...times, now]])
            const answer = answers[Math.min(made, answers.length - 1)] ?? "reply"
            return answer === "reply" ? reply : Stream.fail(failureOf(client, answer))
          })
        )
    })
    // The double sends no HTTP itself, so the guard's proof is the no-HTTP one.
    const provider = LanguageModelProvider.fromLanguageModel(model, { sendsHttp: false }, { name: "foreign" })
    return { provider, calls: Ref.get(calls) }
  })

const anthropicError = (type: string, message: string) => ({ type: "error", error: { type, message } })
const openAiError = (type: string, code: string | null, message: string) => ({
  error: { type, code, message, param: null }
})

const longHistory = (): Content.History =>
  Array.from({ length: 8 }, (_, i) => [
    Content.userText(`old question ${i} ${"lorem ipsum ".repeat(40)}`),
    { role: "assistant" as const, content: [Content.text(`old answer ${i} ${"dolor sit amet ".repeat(40)}`)] }
  ]).flat()

/** Each reduction's target, and the one the counts give (2000 of 4000 tokens, less the kernel's 10 % margin). */
const targetsAndByCounts = (events: ReadonlyArray<{ readonly before: number; readonly target: number | null }>) => [
  events.map((event) => event.target),
  events.map((event) => Math.floor(event.before * (2000 / 4000) * 0.9))
]

const settings = { jitter: "none" as const, fallback_models: ["model-b"] }

describe("a foreign Anthropic client's HTTP errors under the adapter", () => {
  it.effect("429 with retry-after: rate_limited, retried no sooner than the server asked", () =>
    Effect.gen(function* () {
      const { provider, calls } = yield* foreign("AnthropicClient", [
        { status: 429, headers: { "retry-after": "3" }, body: anthropicError("rate_limit_error", "slow down") },
        "reply"
      ])
      const { outcome, events } = yield* RecordedRun.run(provider, { settings })
      expect(outcome.status).toBe("completed")
      expect(
        RecordedRun.ofType(events, "retry_scheduled").map((e) => [e.category, e.retry_after_ms, e.delay_ms, e.source])
      ).toEqual([["rate_limited", 3000, 3000, "retry_after"]])
      const [first, second] = yield* calls
      expect(second! - first!).toBe(3000)
    })
  )

  it.effect("529: overloaded, retried after the kernel's backoff", () =>
    Effect.gen(function* () {
      const { provider, calls } = yield* foreign("AnthropicClient", [
        { status: 529, body: anthropicError("overloaded_error", "Overloaded") },
        "reply"
      ])
      const { outcome, events } = yield* RecordedRun.run(provider, { settings })
      expect(outcome.status).toBe("completed")
      expect(
        RecordedRun.ofType(events, "retry_scheduled").map((e) => [e.category, e.retry_after_ms, e.delay_ms, e.source])
      ).toEqual([["overloaded", null, 500, "backoff"]])
      expect(yield* calls).toHaveLength(2)
    })
  )

  it.effect("401: auth_error ends the run, with no retry and no fallback", () =>
    Effect.gen(function* () {
      const { provider, calls } = yield* foreign("AnthropicClient", [
        { status: 401, body: anthropicError("authentication_error", "invalid x-api-key") }
      ])
      const { outcome, events } = yield* RecordedRun.run(provider, { settings })
      expect([outcome.status, outcome.error?._tag, outcome.error?.provider]).toEqual([
        "auth_error",
        "AuthError",
        "foreign"
      ])
      expect(RecordedRun.ofType(events, "retry_scheduled")).toHaveLength(0)
      expect(RecordedRun.ofType(events, "fallback")).toHaveLength(0)
      expect(yield* calls).toHaveLength(1)
    })
  )

  it.effect(
    "400 prompt too long: the context is reduced by the counts the message gives, never retried as it was",
    () =>
      Effect.gen(function* () {
        const { provider, calls } = yield* foreign("AnthropicClient", [
          {
            status: 400,
            body: anthropicError("invalid_request_error", "prompt is too long: 4000 tokens > 2000 maximum")
          },
          "reply"
        ])
        const { outcome, events } = yield* RecordedRun.run(provider, { settings, history: longHistory() })
        expect([outcome.status, outcome.context_reductions]).toEqual(["completed", 1])
        const [targets, byCounts] = targetsAndByCounts(RecordedRun.ofType(events, "context_reduced"))
        expect(targets).toEqual(byCounts)
        expect(targets).toHaveLength(1)
        expect(RecordedRun.ofType(events, "retry_scheduled")).toHaveLength(0)
        expect(yield* calls).toHaveLength(2)
      })
  )

  it.effect("500: server_error, retried after the kernel's backoff", () =>
    Effect.gen(function* () {
      const { provider } = yield* foreign("AnthropicClient", [
        { status: 500, body: anthropicError("api_error", "Internal server error") },
        "reply"
      ])
      const { outcome, events } = yield* RecordedRun.run(provider, { settings })
      expect(outcome.status).toBe("completed")
      expect(RecordedRun.ofType(events, "retry_scheduled").map((e) => [e.category, e.delay_ms, e.source])).toEqual([
        ["server_error", 500, "backoff"]
      ])
    })
  )
})

describe("a foreign OpenAI client's HTTP errors under the adapter", () => {
  it.effect("429 with retry-after-ms: rate_limited, retried no sooner than the server asked", () =>
    Effect.gen(function* () {
      const { provider, calls } = yield* foreign("OpenAiClient", [
        {
          status: 429,
          headers: { "retry-after-ms": "1500" },
          body: openAiError("requests", "rate_limit_exceeded", "Rate limit reached")
        },
        "reply"
      ])
      const { outcome, events } = yield* RecordedRun.run(provider, { settings })
      expect(outcome.status).toBe("completed")
      expect(
        RecordedRun.ofType(events, "retry_scheduled").map((e) => [e.category, e.retry_after_ms, e.delay_ms, e.source])
      ).toEqual([["rate_limited", 1500, 1500, "retry_after"]])
      const [first, second] = yield* calls
      expect(second! - first!).toBe(1500)
    })
  )

  it.effect("429 insufficient_quota: quota_exceeded ends the run, with no retry and no fallback", () =>
    Effect.gen(function* () {
      const { provider, calls } = yield* foreign("OpenAiClient", [
        { status: 429, body: openAiError("insufficient_quota", "insufficient_quota", "You exceeded your quota") }
      ])
      const { outcome, events } = yield* RecordedRun.run(provider, { settings })
      expect(outcome.status).toBe("quota_exceeded")
      expect(RecordedRun.ofType(events, "retry_scheduled")).toHaveLength(0)
      expect(RecordedRun.ofType(events, "fallback")).toHaveLength(0)
      expect(yield* calls).toHaveLength(1)
    })
  )

  it.effect("400 context_length_exceeded: the context is reduced by the counts the message gives, never retried", () =>
    Effect.gen(function* () {
      const { provider, calls } = yield* foreign("OpenAiClient", [
        {
          status: 400,
          body: openAiError(
            "invalid_request_error",
            "context_length_exceeded",
            "This model's maximum context length is 2000 tokens. However, your messages resulted in 4000 tokens."
          )
        },
        "reply"
      ])
      const { outcome, events } = yield* RecordedRun.run(provider, { settings, history: longHistory() })
      expect([outcome.status, outcome.context_reductions]).toEqual(["completed", 1])
      const [targets, byCounts] = targetsAndByCounts(RecordedRun.ofType(events, "context_reduced"))
      expect(targets).toEqual(byCounts)
      expect(targets).toHaveLength(1)
      expect(RecordedRun.ofType(events, "retry_scheduled")).toHaveLength(0)
      expect(yield* calls).toHaveLength(2)
    })
  )

  it.effect("400 invalid request: the run ends invalid_request, with no retry and no fallback", () =>
    Effect.gen(function* () {
      const { provider, calls } = yield* foreign("OpenAiClient", [
        { status: 400, body: openAiError("invalid_request_error", null, "Unknown parameter: 'foo'") }
      ])
      const { outcome, events } = yield* RecordedRun.run(provider, { settings })
      expect([outcome.status, outcome.error?._tag]).toEqual(["invalid_request", "InvalidRequest"])
      expect(RecordedRun.ofType(events, "retry_scheduled")).toHaveLength(0)
      expect(RecordedRun.ofType(events, "fallback")).toHaveLength(0)
      expect(yield* calls).toHaveLength(1)
    })
  )

  it.effect("500: server_error, retried after the kernel's backoff", () =>
    Effect.gen(function* () {
      const { provider } = yield* foreign("OpenAiClient", [
        { status: 500, body: openAiError("server_error", null, "The server had an error") },
        "reply"
      ])
      const { outcome, events } = yield* RecordedRun.run(provider, { settings })
      expect(outcome.status).toBe("completed")
      expect(RecordedRun.ofType(events, "retry_scheduled").map((e) => [e.category, e.delay_ms, e.source])).toEqual([
        ["server_error", 500, "backoff"]
      ])
    })
  )
})
