/**
 * agent-kernel's Anthropic provider as an effect/ai `LanguageModel`, in one
 * Layer: an Effect 4 app gets `LanguageModel.generateText`, `streamText`,
 * `Chat` and tool calls over the Messages API, with every failure an
 * `AiError` whose reason is the kernel's classification (rate limits with
 * the server's `retryAfter`, quota and auth errors that say they are not
 * retryable, overloads, context overflows, the content filter).
 *
 * `layer` sends over the `fetch` of the runtime (effect's `FetchHttpClient`),
 * so an app needs nothing but `effect`. For the Node transport (connect and
 * first-byte timeouts told apart) or another `HttpClient`, build
 * `KernelLanguageModel.layer` over `Anthropic.layer` and a `Transport`.
 *
 * @since 0.4.0
 */
import { Anthropic, Transport } from "@agent-kernel/providers"
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Config from "effect/Config"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as KernelLanguageModel from "./KernelLanguageModel.js"

/**
 * The model and its call defaults, and the provider's options (the API key,
 * from `ANTHROPIC_API_KEY` by default; the base URL; timeouts...).
 *
 * @since 0.4.0
 * @category models
 */
export interface Options extends KernelLanguageModel.Options, Anthropic.Options {}

/**
 * The `LanguageModel`, over `fetch`.
 *
 * @example
 * ```ts
 * import { AnthropicLanguageModel } from "@agent-kernel/ai"
 * import { Effect, Redacted } from "effect"
 * import { LanguageModel } from "effect/ai"
 *
 * const ModelLive = AnthropicLanguageModel.layer({
 *   model: "claude-sonnet-4-5",
 *   apiKey: Redacted.make("sk-ant-..."),
 *   config: { max_output_tokens: 1024 }
 * })
 *
 * const program = LanguageModel.generateText({ prompt: "Name a prime number." }).pipe(
 *   Effect.map((response) => response.text),
 *   Effect.provide(ModelLive)
 * )
 * ```
 *
 * @since 0.4.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, Config.ConfigError> =>
  KernelLanguageModel.layer(options).pipe(
    Layer.provide(Anthropic.layer(options)),
    Layer.provide(Transport.layerHttpClient),
    Layer.provide(FetchHttpClient.layer)
  )
