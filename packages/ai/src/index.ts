/**
 * Interop with @effect/ai: any `LanguageModel` as a kernel `ModelProvider`
 * (errors classified by the kernel's tables, one retry layer), any
 * `Toolkit` as kernel tools, and `ModelError` back to `AiError`. The
 * Toolkit side is its own entry, `@agent-kernel/ai/ToolkitProvider`: it
 * runs tools through @agent-kernel/plugins, which the model side does not
 * need.
 *
 * @since 0.1.0
 */
export * as AiErrors from "./AiErrors.js"
export * as LanguageModelProvider from "./LanguageModelProvider.js"
export * as SingleRequest from "./SingleRequest.js"
