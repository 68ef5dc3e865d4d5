/**
 * Interop with @effect/ai: any `LanguageModel` as a kernel `ModelProvider`
 * (errors classified by the kernel's tables, one retry layer), any
 * `Toolkit` as kernel tools, and `ModelError` back to `AiError`.
 *
 * @since 0.1.0
 */
export * as AiErrors from "./AiErrors.js"
export * as LanguageModelProvider from "./LanguageModelProvider.js"
export * as SingleRequest from "./SingleRequest.js"
export * as ToolkitProvider from "./ToolkitProvider.js"
