/**
 * Model providers for agent-kernel: Anthropic and OpenAI over `effect/http`'s
 * `HttpClient`, and the failure classification tables. The fault-injecting
 * fake provider server is in `@agent-kernel/providers/testing`.
 *
 * @since 0.1.0
 */
export * as Anthropic from "./Anthropic.js"
export * as Classification from "./Classification.js"
export * as Redaction from "./Redaction.js"
export * as RetryAfter from "./RetryAfter.js"
export * as Timeouts from "./Timeouts.js"
export * as Transport from "./Transport.js"
export * as OpenAi from "./OpenAi.js"
