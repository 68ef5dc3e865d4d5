/**
 * Named fault plans bundled with the package, for the CLI, examples and
 * benchmarks (`pnpm fake-provider --plan rate-limits`). Each is plain data,
 * format-neutral, and ends in the scripted happy mode, so a kernel that
 * recovers correctly completes its run.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import type * as FaultPlan from "./FaultPlan.js"

/**
 * Two rate limits with a retry hint (seconds, then milliseconds), then happy.
 *
 * @since 0.1.0
 * @category plans
 */
export const rateLimits: FaultPlan.FaultPlan = {
  name: "rate-limits",
  description: "429 with retry-after: 1, then 429 with retry-after-ms: 500, then happy",
  steps: [
    {
      kind: "error",
      status: 429,
      error_type: "rate_limit_error",
      message: "Number of requests has exceeded your per-minute rate limit",
      headers: { "retry-after": "1", "anthropic-ratelimit-requests-remaining": "0" }
    },
    {
      kind: "error",
      status: 429,
      error_type: "rate_limit_error",
      message: "Number of requests has exceeded your per-minute rate limit",
      headers: { "retry-after-ms": "500" }
    }
  ]
}

/**
 * Three 529s and a mid-stream overloaded error, then happy.
 *
 * @since 0.1.0
 * @category plans
 */
export const overloadStorm: FaultPlan.FaultPlan = {
  name: "overload-storm",
  description: "529 overloaded three times, one overloaded error in the middle of a stream, then happy",
  steps: [
    { kind: "error", status: 529, error_type: "overloaded_error", message: "Overloaded" },
    { kind: "error", status: 529, error_type: "overloaded_error", message: "Overloaded" },
    { kind: "error", status: 529, error_type: "overloaded_error", message: "Overloaded" },
    { kind: "stream_error", text: "Let me start answering", error_type: "overloaded_error", message: "Overloaded" }
  ]
}

/**
 * A context overflow with token counts, then happy (after the kernel reduces).
 *
 * @since 0.1.0
 * @category plans
 */
export const contextOverflow: FaultPlan.FaultPlan = {
  name: "context-overflow",
  description: "400 prompt is too long (context_length_exceeded), then happy",
  steps: [
    {
      kind: "error",
      status: 400,
      error_type: "invalid_request_error",
      code: "context_length_exceeded",
      message:
        "prompt is too long: 210000 tokens > 200000 maximum. This model's maximum context length is 200000 tokens. However, your messages resulted in 210000 tokens."
    }
  ]
}

/**
 * A refusal after some text (content filter).
 *
 * @since 0.1.0
 * @category plans
 */
export const refusal: FaultPlan.FaultPlan = {
  name: "refusal",
  description: "a partial answer stopped by the content filter (refusal / content_filter)",
  steps: [{ kind: "reply", text: "I can help with part of that, but", stop: "refusal" }]
}

/**
 * A mid-stream server error after partial output, then happy.
 *
 * @since 0.1.0
 * @category plans
 */
export const midStreamError: FaultPlan.FaultPlan = {
  name: "mid-stream-error",
  description: "a 200 stream that fails with api_error after partial text, then happy",
  steps: [
    {
      kind: "stream_error",
      text: "Partial output that must not be kept",
      error_type: "api_error",
      message: "Internal error"
    }
  ]
}

/**
 * Flaky network: a reset, a 502 HTML page, then happy.
 *
 * @since 0.1.0
 * @category plans
 */
export const flakyNetwork: FaultPlan.FaultPlan = {
  name: "flaky-network",
  description: "a connection reset, then a 502 HTML page from a proxy, then happy",
  steps: [
    { kind: "reset" },
    {
      kind: "raw",
      status: 502,
      headers: { "content-type": "text/html" },
      body: "<html><h1>502 Bad Gateway</h1></html>"
    }
  ]
}

/**
 * A bad key: 401 every time.
 *
 * @since 0.1.0
 * @category plans
 */
export const authError: FaultPlan.FaultPlan = {
  name: "auth-error",
  description: "401 authentication_error on every request",
  steps: [{ kind: "error", status: 401, error_type: "authentication_error", message: "invalid x-api-key" }],
  after: "repeat_last"
}

/**
 * Always happy.
 *
 * @since 0.1.0
 * @category plans
 */
export const happy: FaultPlan.FaultPlan = {
  name: "happy",
  description: "tool_use for the first offered tool, then end_turn",
  steps: []
}

/**
 * Every bundled plan by name.
 *
 * @since 0.1.0
 * @category plans
 */
export const all: Readonly<Record<string, FaultPlan.FaultPlan>> = {
  "rate-limits": rateLimits,
  "overload-storm": overloadStorm,
  "context-overflow": contextOverflow,
  refusal,
  "mid-stream-error": midStreamError,
  "flaky-network": flakyNetwork,
  "auth-error": authError,
  happy
}

/**
 * The names of the bundled plans.
 *
 * @since 0.1.0
 * @category plans
 */
export const names: ReadonlyArray<string> = Object.keys(all)

/**
 * A bundled plan by name.
 *
 * @since 0.1.0
 * @category plans
 */
export const byName = (name: string): Option.Option<FaultPlan.FaultPlan> =>
  Object.hasOwn(all, name) ? Option.fromNullishOr(all[name]) : Option.none()
