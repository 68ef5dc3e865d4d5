/**
 * The kernel driven by each provider against the fake server over real
 * sockets: every kernel reaction end to end (retry honouring retry-after,
 * restart after a mid-stream error, context reduction, fatal without retry,
 * content filter).
 *
 * The kernel's backoff sleeps run on TestClock. The driver below moves the
 * clock only to sleeps due within a short horizon (backoffs, retry hints);
 * the providers' own timeouts are set a day out, so a slow machine never
 * turns real I/O into a spurious timeout.
 */
import { describe, expect, it } from "@effect/vitest"
import { Content, type Toolbox } from "@agent-kernel/kernel"
import { RecordedRun } from "@agent-kernel/kernel/testing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { ChaosPlans, FaultPlan } from "../src/testing/index.js"
import { type Api, apis, setup, tool } from "./support.js"

const farTimeouts = { connect: "1 day", firstByte: "1 day", idle: "1 day" } as const

const lookupToolbox: Toolbox.Service = {
  definitions: Effect.succeed([tool]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, `definition of ${JSON.stringify(call.input)}`))
}

/** Moves TestClock only to sleeps due within ten minutes, so real I/O in flight never meets a jump. */
const run = (
  api: Api,
  plan: FaultPlan.FaultPlan,
  options?: { readonly history?: Content.History; readonly input?: string }
) =>
  Effect.gen(function* () {
    const { server, provider } = yield* setup(api, plan, { timeouts: farTimeouts })
    const recorded = yield* RecordedRun.run(provider, {
      model: "fake-model",
      // The attempt bound as far as the provider's: the driver moves the clock while a request is in flight.
      settings: { jitter: "none", model_attempt_timeout_ms: 86_400_000 },
      toolbox: lookupToolbox,
      history: options?.history,
      input: options?.input ?? "define serendipity",
      horizon: "10 minutes"
    })
    return { ...recorded, server }
  })

const ofType = RecordedRun.ofType

const assistantTexts = (history: Content.History) =>
  history.filter((message) => message.role === "assistant").map(Content.textOf)

describe.each(apis)("kernel + %s provider + fake server", (api) => {
  it.effect("retry honouring retry-after, then a tool round trip to completion", () =>
    Effect.gen(function* () {
      const { outcome, events, server } = yield* run(
        api,
        FaultPlan.make([
          { kind: "error", status: 429, error_type: "rate_limit_error", headers: { "retry-after": "3" } },
          { kind: "happy" },
          { kind: "happy" }
        ])
      )
      expect(outcome.status).toBe("completed")
      const retries = ofType(events, "retry_scheduled")
      expect(retries.map((e) => [e.category, e.retry_after_ms, e.source])).toEqual([
        ["rate_limited", 3000, "retry_after"]
      ])
      const requests = yield* server.requests
      expect(requests).toHaveLength(3)
      // The retry reached the server no sooner than the server asked (TestClock time).
      expect(requests[1]!.time - requests[0]!.time).toBeGreaterThanOrEqual(3000)
      expect(ofType(events, "tool_result").map((e) => e.name)).toEqual(["lookup"])
      expect(outcome.final_text).toContain("definition of")
      expect(outcome.retries.session_total).toBe(1)
    })
  )

  it.effect("a retry-after above 24 h ends the call at once: the kernel never retries sooner than asked", () =>
    Effect.gen(function* () {
      const { outcome, events, server } = yield* run(
        api,
        FaultPlan.make([
          { kind: "error", status: 429, error_type: "rate_limit_error", headers: { "retry-after": "90000" } },
          { kind: "happy" }
        ])
      )
      expect(outcome.status).toBe("retries_exhausted")
      expect(outcome.error?.retryAfter && Duration.toMillis(outcome.error.retryAfter)).toBe(90_000_000)
      expect(ofType(events, "retry_scheduled")).toHaveLength(0)
      expect(yield* server.requests).toHaveLength(1)
    })
  )

  it.effect("a 409 is retried, as the official SDKs do", () =>
    Effect.gen(function* () {
      const { outcome, events, server } = yield* run(
        api,
        FaultPlan.make([
          { kind: "error", status: 409, error_type: "conflict_error" },
          { kind: "reply", text: "ok" }
        ])
      )
      expect(outcome.status).toBe("completed")
      expect(ofType(events, "retry_scheduled").map((e) => e.category)).toEqual(["server_error"])
      expect(yield* server.requests).toHaveLength(2)
    })
  )

  it.effect("x-should-retry: true retries a failure no row knows, and never an invalid request", () =>
    Effect.gen(function* () {
      const retried = yield* run(
        api,
        FaultPlan.make([
          { kind: "error", status: 200, error_type: "brand_new_error", headers: { "x-should-retry": "true" } },
          { kind: "reply", text: "ok" }
        ])
      )
      expect(retried.outcome.status).toBe("completed")
      expect(yield* retried.server.requests).toHaveLength(2)
      const refused = yield* run(
        api,
        FaultPlan.make([
          { kind: "error", status: 400, error_type: "invalid_request_error", headers: { "x-should-retry": "true" } },
          { kind: "reply", text: "ok" }
        ])
      )
      expect(refused.outcome.status).toBe("invalid_request")
      expect(ofType(refused.events, "retry_scheduled")).toHaveLength(0)
      expect(yield* refused.server.requests).toHaveLength(1)
    })
  )

  it.effect("a mid-stream error restarts the stream; the partial text never reaches history", () =>
    Effect.gen(function* () {
      const { outcome, events } = yield* run(
        api,
        FaultPlan.make([
          { kind: "stream_error", text: "Once upon a", error_type: "overloaded_error", message: "Overloaded" },
          { kind: "reply", text: "Once upon a time." }
        ])
      )
      expect(outcome.status).toBe("completed")
      expect(ofType(events, "stream_restarted").map((e) => e.category)).toEqual(["overloaded"])
      expect(ofType(events, "retry_scheduled")).toHaveLength(1)
      expect(assistantTexts(outcome.history)).toEqual(["Once upon a time."])
      expect(outcome.retries.session_total).toBe(1)
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
      expect(ofType(events, "context_reduced")).toHaveLength(1)
      expect(ofType(events, "retry_scheduled")).toHaveLength(0)
      const [first, second] = yield* server.requests
      const count = (body: unknown) => JSON.stringify(body).length
      expect(count(second?.body)).toBeLessThan(count(first?.body))
    })
  )

  it.effect("auth errors are fatal: one request, no retry, no fallback", () =>
    Effect.gen(function* () {
      const { outcome, events, server } = yield* run(api, ChaosPlans.authError)
      expect(outcome.status).toBe("auth_error")
      expect(outcome.error?._tag).toBe("AuthError")
      expect(ofType(events, "retry_scheduled")).toHaveLength(0)
      expect(yield* server.requests).toHaveLength(1)
    })
  )

  it.effect("quota errors are fatal: one request, no retry", () =>
    Effect.gen(function* () {
      const step: FaultPlan.Step =
        api === "anthropic"
          ? { kind: "error", status: 402, error_type: "billing_error", message: "credit balance too low" }
          : { kind: "error", status: 429, error_type: "insufficient_quota", code: "insufficient_quota" }
      const { outcome, server } = yield* run(api, FaultPlan.make([step], { after: "repeat_last" }))
      expect(outcome.status).toBe("quota_exceeded")
      expect(yield* server.requests).toHaveLength(1)
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

  it.effect("content filter is surfaced distinctly, keeping the partial text", () =>
    Effect.gen(function* () {
      const { outcome, events } = yield* run(api, ChaosPlans.refusal)
      expect(outcome.status).toBe("content_filtered")
      const filtered = ofType(events, "content_filtered")
      expect(filtered).toHaveLength(1)
      expect(filtered[0]?.partial_text).toBe("I can help with part of that, but")
      expect(ofType(events, "retry_scheduled")).toHaveLength(0)
    })
  )

  it.effect("a flat event: error of type overloaded_error mid-stream is retried", () =>
    Effect.gen(function* () {
      const { outcome, events } = yield* run(
        api,
        FaultPlan.make([
          { kind: "stream_error", text: "Once", error_type: "overloaded_error", message: "busy", flat: true },
          { kind: "reply", text: "Once upon a time." }
        ])
      )
      expect(outcome.status).toBe("completed")
      expect(ofType(events, "stream_restarted").map((e) => e.category)).toEqual(["overloaded"])
      expect(assistantTexts(outcome.history)).toEqual(["Once upon a time."])
    })
  )

  it.effect("a stream that ends without its terminal event is restarted like any mid-stream failure", () =>
    Effect.gen(function* () {
      const { outcome, events } = yield* run(
        api,
        FaultPlan.make([
          { kind: "truncate", text: "Once upon", done: true },
          { kind: "truncate", text: "Once upon a" },
          { kind: "reply", text: "Once upon a time." }
        ])
      )
      expect(outcome.status).toBe("completed")
      expect(ofType(events, "stream_restarted").map((e) => e.category)).toEqual([
        "connection_error",
        "connection_error"
      ])
      expect(assistantTexts(outcome.history)).toEqual(["Once upon a time."])
    })
  )

  it.effect("the overload-storm chaos plan: retries, a stream restart, then completion", () =>
    Effect.gen(function* () {
      const { outcome, events } = yield* run(api, ChaosPlans.overloadStorm)
      expect(outcome.status).toBe("completed")
      expect(ofType(events, "retry_scheduled").map((e) => e.category)).toEqual([
        "overloaded",
        "overloaded",
        "overloaded",
        "overloaded"
      ])
      expect(ofType(events, "stream_restarted")).toHaveLength(1)
    })
  )
})

describe("kernel + openai provider + an Azure content filter", () => {
  it.effect(
    "a 400 content_filter rejection is surfaced as content_filtered, not invalid_request, and not retried",
    () =>
      Effect.gen(function* () {
        const { outcome, events, server } = yield* run(
          "openai",
          FaultPlan.make([
            {
              kind: "raw",
              status: 400,
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                error: {
                  message:
                    "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
                  type: null,
                  param: "prompt",
                  code: "content_filter",
                  status: 400,
                  innererror: { code: "ResponsibleAIPolicyViolation" }
                }
              })
            }
          ])
        )
        expect(outcome.status).toBe("content_filtered")
        expect(outcome.error?._tag).toBe("ContentFiltered")
        expect(ofType(events, "content_filtered")).toHaveLength(1)
        expect(ofType(events, "retry_scheduled")).toHaveLength(0)
        expect(yield* server.requests).toHaveLength(1)
      })
  )

  it.effect(
    "a content_filter error mid-stream, after text: the partial text is kept (event, history, final_text)",
    () =>
      Effect.gen(function* () {
        // Anthropic refuses with stop_reason "refusal" at a finish (tested above for both wire formats);
        // an OpenAI-compatible server fails the stream with an error of code content_filter.
        const partial = "Here is the first half"
        const { outcome, events, server } = yield* run(
          "openai",
          FaultPlan.make([
            {
              kind: "stream_error",
              text: partial,
              error_type: "invalid_request_error",
              code: "content_filter",
              message: "the response was filtered"
            }
          ])
        )
        expect(outcome.status).toBe("content_filtered")
        expect(yield* server.requests).toHaveLength(1)
        expect(
          ofType(events, "text_delta")
            .map((event) => event.text)
            .join("")
        ).toBe(partial)
        const filtered = ofType(events, "content_filtered")
        expect(filtered).toHaveLength(1)
        expect(filtered[0]?.partial_text).toBe(partial)
        expect(outcome.final_text).toBe(partial)
        expect(assistantTexts(outcome.history)).toEqual([partial])
        expect(ofType(events, "stream_restarted")).toHaveLength(0)
      })
  )
})
