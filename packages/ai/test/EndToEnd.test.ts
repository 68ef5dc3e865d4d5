/**
 * The spec's behaviours end to end: a kernel Session, the adapter, an
 * effect/ai `LanguageModel` (the kernel's Anthropic or OpenAI provider made
 * one by `KernelLanguageModel`, since effect/ai 4.1 has no working provider
 * package) over undici, and the fake provider server on 127.0.0.1
 * following a fault plan.
 *
 * Every client here is built the way an effect/ai user makes one
 * resilient, with `HttpClient.retryTransient`, and on `SingleRequest`'s
 * guard: the request counts and times at the server show the kernel alone
 * retries.
 */
import { Content } from "@agent-kernel/kernel"
import { ChaosPlans, FaultPlan } from "@agent-kernel/providers/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { apis, KEY, ofType, run } from "./support.js"

/** A 429 asking for 3 s (a status retryTransient re-sends at once), then a tool round trip. */
const rateLimitedThenHappy = FaultPlan.make([
  { kind: "error", status: 429, error_type: "rate_limit_error", headers: { "retry-after": "3" } },
  { kind: "happy" },
  { kind: "happy" }
])

const assistantTexts = (history: Content.History) =>
  history.filter((message) => message.role === "assistant").map(Content.textOf)

describe.each(apis)("kernel + adapter + effect/ai %s LanguageModel + fake server", (api) => {
  it.effect("retry-after is the floor: one request per attempt, the retry no sooner than the server asked", () =>
    Effect.gen(function* () {
      const { outcome, events, server } = yield* run(api, rateLimitedThenHappy)
      expect(outcome.status).toBe("completed")
      const retries = ofType(events, "retry_scheduled")
      expect(retries.map((e) => [e.category, e.retry_after_ms, e.delay_ms, e.source])).toEqual([
        ["rate_limited", 3000, 3000, "retry_after"]
      ])
      const requests = yield* server.requests
      // retryTransient would have re-sent the 429 within the attempt; the guard stopped it before it left.
      expect(requests).toHaveLength(3)
      expect(requests[1]!.time - requests[0]!.time).toBeGreaterThanOrEqual(3000)
      expect(ofType(events, "tool_result").map((e) => e.name)).toEqual(["lookup"])
      expect(outcome.final_text).toContain("definition of")
      expect(outcome.retries.session_total).toBe(1)
    })
  )

  it.effect("a 503 that retryTransient would re-send at once waits for the kernel's backoff", () =>
    Effect.gen(function* () {
      const { outcome, events, server } = yield* run(
        api,
        FaultPlan.make([
          { kind: "error", status: 503, error_type: "api_error", message: "try later" },
          { kind: "reply", text: "ok" }
        ])
      )
      expect(outcome.status).toBe("completed")
      expect(ofType(events, "retry_scheduled").map((e) => [e.category, e.delay_ms, e.source])).toEqual([
        ["server_error", 500, "backoff"]
      ])
      const requests = yield* server.requests
      expect(requests).toHaveLength(2)
      expect(requests[1]!.time - requests[0]!.time).toBeGreaterThanOrEqual(500)
    })
  )

  it.effect("auth errors are fatal: one request, no retry, no fallback", () =>
    Effect.gen(function* () {
      const { outcome, events, server } = yield* run(api, ChaosPlans.authError, {
        settings: { fallback_models: ["model-b"] }
      })
      expect(outcome.status).toBe("auth_error")
      expect(outcome.error?._tag).toBe("AuthError")
      expect(ofType(events, "retry_scheduled")).toHaveLength(0)
      expect(ofType(events, "fallback")).toHaveLength(0)
      expect(yield* server.requests).toHaveLength(1)
    })
  )

  it.effect("quota errors are fatal, even as a 429 that retryTransient re-sends: one request", () =>
    Effect.gen(function* () {
      const step: FaultPlan.Step =
        api === "anthropic"
          ? { kind: "error", status: 402, error_type: "billing_error", message: "credit balance too low" }
          : { kind: "error", status: 429, error_type: "insufficient_quota", code: "insufficient_quota" }
      const { outcome, events, server } = yield* run(api, FaultPlan.make([step], { after: "repeat_last" }), {
        settings: { fallback_models: ["model-b"] }
      })
      expect(outcome.status).toBe("quota_exceeded")
      expect(ofType(events, "fallback")).toHaveLength(0)
      expect(yield* server.requests).toHaveLength(1)
    })
  )

  it.effect("an API key the server echoes into its error never reaches the kernel's error or events", () =>
    Effect.gen(function* () {
      const { outcome, events } = yield* run(
        api,
        FaultPlan.make([{ kind: "error", status: 401, error_type: "authentication_error", echo_key: true }])
      )
      expect(outcome.status).toBe("auth_error")
      expect(outcome.error?.message).toContain("<redacted>")
      const everything = JSON.stringify({ error: outcome.error, events })
      expect(everything).not.toContain(KEY)
      expect(everything).not.toContain(KEY.slice(8))
    })
  )

  it.effect("x-should-retry: false stops the kernel from retrying an overload", () =>
    Effect.gen(function* () {
      const { outcome, server } = yield* run(
        api,
        FaultPlan.make([
          { kind: "error", status: 529, error_type: "overloaded_error", headers: { "x-should-retry": "false" } }
        ])
      )
      expect(outcome.status).not.toBe("completed")
      expect(outcome.error?.retryable).toBe(false)
      expect(yield* server.requests).toHaveLength(1)
    })
  )

  it.effect("context overflow reduces the context and never re-sends the same request", () =>
    Effect.gen(function* () {
      const old: Array<Content.Message> = []
      for (let i = 0; i < 8; i++) {
        old.push(Content.userText(`old question ${i} ${"lorem ipsum ".repeat(40)}`))
        old.push({ role: "assistant", content: [Content.text(`old answer ${i} ${"dolor sit amet ".repeat(40)}`)] })
      }
      const { outcome, events, server } = yield* run(
        api,
        FaultPlan.make([
          {
            kind: "error",
            status: 400,
            error_type: "invalid_request_error",
            code: "context_length_exceeded",
            message:
              "prompt is too long: 4000 tokens > 2000 maximum. This model's maximum context length is 2000 tokens. However, your messages resulted in 4000 tokens."
          },
          { kind: "reply", text: "short answer" }
        ]),
        { history: old }
      )
      expect(outcome.status).toBe("completed")
      expect(outcome.context_reductions).toBe(1)
      const reduced = ofType(events, "context_reduced")
      expect(reduced).toHaveLength(1)
      expect(ofType(events, "retry_scheduled")).toHaveLength(0)
      const [first, second] = yield* server.requests
      const size = (body: unknown) => JSON.stringify(body).length
      expect(size(second?.body)).toBeLessThan(size(first?.body))
      expect(assistantTexts(outcome.history).at(-1)).toBe("short answer")
    })
  )

  it.effect("the content filter is surfaced as its own event, keeping the partial text", () =>
    Effect.gen(function* () {
      const { outcome, events } = yield* run(api, ChaosPlans.refusal)
      expect(outcome.status).toBe("content_filtered")
      const filtered = ofType(events, "content_filtered")
      expect(filtered).toHaveLength(1)
      expect(filtered[0]?.partial_text).toBe("I can help with part of that, but")
      expect(ofType(events, "retry_scheduled")).toHaveLength(0)
    })
  )

  it.effect("an overload is retried by the kernel, then the fallback model answers", () =>
    Effect.gen(function* () {
      const { outcome, events, server } = yield* run(
        api,
        FaultPlan.make([
          { kind: "error", status: 529, error_type: "overloaded_error" },
          { kind: "error", status: 529, error_type: "overloaded_error" },
          { kind: "reply", text: "from the backup" }
        ]),
        { settings: { max_retries: 1, fallback_models: ["model-b"] } }
      )
      expect(outcome.status).toBe("completed")
      expect(ofType(events, "fallback").map((e) => [e.from, e.to])).toEqual([["model-a", "model-b"]])
      const requests = yield* server.requests
      // The adapter's configure sends the kernel's model choice on the wire.
      expect(requests.map((r) => r.model)).toEqual(["model-a", "model-a", "model-b"])
    })
  )
})

describe.each(apis)("the hazard SingleRequest removes (%s)", (api) => {
  it.effect(
    "a client built without the guard re-sends a 429 itself, and the adapter refuses its answer: the run fails, never retried",
    () =>
      Effect.gen(function* () {
        const { outcome, events, server } = yield* run(api, rateLimitedThenHappy, { guarded: false })
        const requests = yield* server.requests
        // The hazard: the client's own retryTransient re-sent within the kernel's one attempt
        // (Effect 4's retryTransient waits out the Retry-After first; the kernel scheduled nothing).
        expect(requests).toHaveLength(2)
        expect(requests[1]!.time - requests[0]!.time).toBeGreaterThanOrEqual(3000)
        // The adapter saw an answer that no request brought through the guard, and refused it.
        expect(outcome.status).toBe("failed")
        expect(outcome.error?.category).toBe("unknown")
        expect(outcome.error?.details?.["rule"]).toBe("effect_ai.unguarded_client")
        expect(ofType(events, "retry_scheduled")).toHaveLength(0)
      })
  )
})
