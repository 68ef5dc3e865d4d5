/**
 * @since 0.1.0
 */
export * as CircuitBreaker from "./CircuitBreaker.js"
export * as Content from "./Content.js"
export * as EventBus from "./EventBus.js"
export * as KernelEvent from "./KernelEvent.js"
export * as ModelError from "./ModelError.js"
export * as ModelProvider from "./ModelProvider.js"
export * as Settings from "./Settings.js"
export * as Toolbox from "./Toolbox.js"
