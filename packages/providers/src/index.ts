/**
 * Model providers for agent-kernel: Anthropic and OpenAI over @effect/platform
 * `HttpClient`, the failure classification tables, and a fault-injecting fake
 * provider server.
 *
 * @since 0.1.0
 */
export * as Anthropic from "./Anthropic.js"
export * as ChaosPlans from "./ChaosPlans.js"
export * as Classification from "./Classification.js"
export * as RetryAfter from "./RetryAfter.js"
export * as Timeouts from "./Timeouts.js"
export * as Transport from "./Transport.js"
export * as FakeProvider from "./FakeProvider.js"
export * as FaultPlan from "./FaultPlan.js"
export * as OpenAi from "./OpenAi.js"
