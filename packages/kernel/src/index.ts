/**
 * @since 0.1.0
 */
export * as CircuitBreaker from "./CircuitBreaker.js"
export * as Content from "./Content.js"
export * as ContextProvider from "./ContextProvider.js"
export * as EventBus from "./EventBus.js"
export * as KernelEvent from "./KernelEvent.js"
export * as Metrics from "./Metrics.js"
export * as ModelError from "./ModelError.js"
export * as ModelProvider from "./ModelProvider.js"
export * as Pricing from "./Pricing.js"
export * as RetryBudget from "./RetryBudget.js"
export * as RetryPolicy from "./RetryPolicy.js"
export * as RunOutcome from "./RunOutcome.js"
export * as Session from "./Session.js"
export * as Settings from "./Settings.js"
export * as TokenEstimate from "./TokenEstimate.js"
export * as Toolbox from "./Toolbox.js"
