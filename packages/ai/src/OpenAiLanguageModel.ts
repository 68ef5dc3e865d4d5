/**
 * agent-kernel's OpenAI provider as an effect/ai `LanguageModel`, in one
 * Layer: an Effect 4 app gets `LanguageModel.generateText`, `streamText`,
 * `Chat` and tool calls over the Chat Completions API (or a compatible
 * server), with every failure an `AiError` whose reason is the kernel's
 * classification (rate limits with
 * the server's `retryAfter`, quota and auth errors that say they are not
 * retryable, overloads, context overflows, the content filter).
 *
 * `layer` sends over the `fetch` of the runtime (effect's `FetchHttpClient`),
 * so an app needs nothing but `effect`. For the Node transport (connect and
 * first-byte timeouts told apart) or another `HttpClient`, build
 * `KernelLanguageModel.layer` over `OpenAi.layer` and a `Transport`.
 *
 * @since 0.4.0
 */
import { OpenAi, Transport } from "@agent-kernel/providers"
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Config from "effect/Config"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as KernelLanguageModel from "./KernelLanguageModel.js"

/**
 * The model and its call defaults, and the provider's options (the API key,
 * from `OPENAI_API_KEY` by default; the base URL; timeouts...).
 *
 * @since 0.4.0
 * @category models
 */
export interface Options extends KernelLanguageModel.Options, OpenAi.Options {}

/**
 * The `LanguageModel`, over `fetch`.
 *
 * @example
 * ```ts
 * import { OpenAiLanguageModel } from "@agent-kernel/ai"
 * import { Effect, Redacted } from "effect"
 * import { LanguageModel } from "effect/ai"
 *
 * const ModelLive = OpenAiLanguageModel.layer({
 *   model: "gpt-5",
 *   apiKey: Redacted.make("sk-..."),
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
    Layer.provide(OpenAi.layer(options)),
    Layer.provide(Transport.layerHttpClient),
    Layer.provide(FetchHttpClient.layer)
  )
