/**
 * Interop with effect/ai 4.1, both ways:
 * - an effect/ai `LanguageModel` as a kernel `ModelProvider`
 *   (`LanguageModelProvider`, with `SingleRequest` keeping the kernel the one
 *   retry layer);
 * - the kernel's providers as an effect/ai `LanguageModel`
 *   (`AnthropicLanguageModel`, `OpenAiLanguageModel`, `KernelLanguageModel`);
 * - `ModelError` and `AiError`, both ways (`AiErrors`).
 *
 * An effect/ai `Toolkit` as kernel tools is its own entry,
 * `@agent-kernel/ai/ToolkitProvider`: it runs tools through
 * @agent-kernel/plugins, which the rest does not need.
 *
 * @since 0.1.0
 */
export * as AiErrors from "./AiErrors.js"
export * as AnthropicLanguageModel from "./AnthropicLanguageModel.js"
export * as KernelLanguageModel from "./KernelLanguageModel.js"
export * as LanguageModelProvider from "./LanguageModelProvider.js"
export * as OpenAiLanguageModel from "./OpenAiLanguageModel.js"
export * as SingleRequest from "./SingleRequest.js"
