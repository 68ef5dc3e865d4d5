/**
 * A kernel `ModelProvider` as an effect/ai `LanguageModel`: the kernel's
 * Anthropic and OpenAI providers (or any other) answer
 * `LanguageModel.generateText`, `streamText` and `Chat`, with tool calls,
 * and fail with `AiError`s whose reasons carry the kernel's classification.
 *
 * Each call is one request to the provider, which sends it once (the
 * kernel's providers never retry): retries, if any, are the app's, with
 * each `AiError`'s `isRetryable` and `retryAfter`, or the kernel's own loop
 * (`Session`) on the provider itself.
 *
 * - The prompt becomes the kernel's request: system messages join the
 *   system prompt, user text and files (images and PDFs), assistant text,
 *   reasoning (with Anthropic's signature, from the part's
 *   `options.anthropic.info`, as effect/ai providers keep it) and tool
 *   calls, tool results (their model output as text, else the result, JSON
 *   unless it is text).
 * - The toolkit's tools are offered with their JSON Schema; the tool choice
 *   maps to the kernel's (`required` is `any`). Provider-defined tools are
 *   refused (`ToolConfigurationError`).
 * - The answer streams as effect/ai parts: text and reasoning deltas (a
 *   signature as a reasoning delta's Anthropic metadata, redacted thinking
 *   as a reasoning start's), tool-call params as they stream, and, at the
 *   finish, each block's end, the tool calls whole, the model and the usage
 *   (cache reads and writes included).
 * - A failure is `AiErrors.toAiError` of the provider's `ModelError`.
 *
 * The model, `max_output_tokens` and the kernel's request options
 * (`temperature`, `top_p`, `top_k`, `stop_sequences`, `thinking`,
 * `reasoning_effort`, `metadata`, `extra`...) come from `Config`: the
 * layer's defaults, overridden per call with `withConfigOverride`.
 *
 * Structured output (`generateObject`) is not supported: the kernel's
 * providers send no response format; it fails with `InvalidRequestError`.
 *
 * @since 0.4.0
 */
import { type ModelError, ModelProvider, type ResponsePart, type Usage } from "@agent-kernel/kernel"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Telemetry from "effect/ai/Telemetry"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as AiErrors from "./AiErrors.js"
import * as Parts from "./internal/parts.js"
import * as Request from "./internal/request.js"
import * as Response from "./internal/response.js"
import type * as LanguageModelProvider from "./LanguageModelProvider.js"

/**
 * A call's settings: the model, the output limit and the kernel's request
 * options.
 *
 * @since 0.4.0
 * @category models
 */
export interface RequestConfig extends ModelProvider.RequestOptions {
  readonly model?: string | undefined
  readonly max_output_tokens?: number | undefined
}

/**
 * The settings of the calls it is provided to, over the layer's defaults.
 *
 * @since 0.4.0
 * @category services
 */
export class Config extends Context.Service<Config, RequestConfig>()("@agent-kernel/ai/KernelLanguageModel/Config") {}

/**
 * Runs an effect with these settings over the ones in context (the fields
 * given win).
 *
 * @example
 * ```ts
 * import { KernelLanguageModel } from "@agent-kernel/ai"
 * import { LanguageModel } from "effect/ai"
 *
 * const brief = LanguageModel.generateText({ prompt: "Say hi." }).pipe(
 *   KernelLanguageModel.withConfigOverride({ max_output_tokens: 64, temperature: 0 })
 * )
 * ```
 *
 * @since 0.4.0
 * @category configuration
 */
export const withConfigOverride: {
  (overrides: RequestConfig): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, Exclude<R, Config>>
  <A, E, R>(self: Effect.Effect<A, E, R>, overrides: RequestConfig): Effect.Effect<A, E, Exclude<R, Config>>
} = dual(
  2,
  <A, E, R>(self: Effect.Effect<A, E, R>, overrides: RequestConfig): Effect.Effect<A, E, Exclude<R, Config>> =>
    Effect.flatMap(Effect.serviceOption(Config), (current) =>
      Effect.provideService(self, Config, { ...Option.getOrElse(current, () => ({})), ...overrides })
    )
)

/**
 * Applies a kernel request's model, output limit and options to a call:
 * the `configure` of `LanguageModelProvider` for a model made here.
 *
 * @since 0.4.0
 * @category configuration
 */
export const configure: LanguageModelProvider.Configure = (request) => {
  const { messages: _messages, system: _system, tools: _tools, ...settings } = request
  return withConfigOverride(settings)
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Options {
  /** The model of every call that does not set one in `Config`. */
  readonly model: string
  /** The defaults of every call. */
  readonly config?: RequestConfig | undefined
}

const settingsOf = (options: Options): Effect.Effect<RequestConfig> =>
  Effect.map(Effect.serviceOption(Config), (current) => ({
    ...options.config,
    ...Option.getOrElse(current, () => ({}))
  }))

/** A call refused before it reached the provider. */
const failure = (method: string, reason: AiError.AiErrorReason) =>
  Effect.fail(AiError.make({ module: "KernelLanguageModel", method, reason }))

/**
 * The kernel request of one call, or the reason it cannot be sent. The
 * call's own tool choice wins over the settings' (`auto`, effect/ai's
 * default, leaves the settings' in place).
 */
const requestOf = (options: Options, method: string, call: LanguageModel.ProviderOptions) =>
  Effect.flatMap(settingsOf(options), (settings): Effect.Effect<ModelProvider.ModelRequest, AiError.AiError> => {
    const unsupported = Request.unsupportedFormat(call)
    if (unsupported !== undefined) return failure(method, unsupported)
    const conversation = Request.fromProviderOptions(call)
    if (Result.isFailure(conversation)) return failure(method, conversation.failure)
    const { model = options.model, ...rest } = settings
    const { tool_choice, ...asked } = conversation.success
    return Effect.succeed({ ...asked, ...rest, ...(tool_choice !== undefined ? { tool_choice } : {}), model })
  })

/** What is asked, on the call's span. */
const annotateRequest = (
  span: LanguageModel.ProviderOptions["span"],
  provider: ModelProvider.Service,
  request: ModelProvider.ModelRequest
) =>
  Effect.sync(() =>
    Telemetry.addGenAIAnnotations(span, {
      provider: { name: provider.name },
      operation: { name: "chat" },
      request: {
        model: request.model,
        maxTokens: request.max_output_tokens,
        temperature: request.temperature,
        topP: request.top_p,
        topK: request.top_k,
        stopSequences: request.stop_sequences
      }
    })
  )

/** The request of one call, its span annotated. */
const annotatedRequest = (
  provider: ModelProvider.Service,
  options: Options,
  method: string,
  call: LanguageModel.ProviderOptions
) => Effect.tap(requestOf(options, method, call), (request) => annotateRequest(call.span, provider, request))

/** What the answer was, on the call's span. */
const annotateAnswer = (
  span: LanguageModel.ProviderOptions["span"],
  answer: {
    readonly model?: string | undefined
    readonly stop?: ModelProvider.StopReason
    readonly usage?: Usage.Usage
  }
) =>
  Telemetry.addGenAIAnnotations(span, {
    ...(answer.model !== undefined || answer.stop !== undefined
      ? {
          response: {
            model: answer.model,
            finishReasons: answer.stop === undefined ? undefined : [Response.finishReasonOf(answer.stop)]
          }
        }
      : {}),
    ...(answer.usage !== undefined
      ? { usage: { inputTokens: answer.usage.input_tokens, outputTokens: answer.usage.output_tokens } }
      : {})
  })

const aiErrorOf =
  (method: string) =>
  (error: ModelError.ModelError): AiError.AiError =>
    AiErrors.toAiError(error, { method })

/** Each usage and finish part of a stream, on the call's span, as it passes. */
const annotatePart = (span: LanguageModel.ProviderOptions["span"]) => (part: ResponsePart.ResponsePart) =>
  Effect.sync(() => {
    if (part.type === "usage") annotateAnswer(span, { usage: part.usage })
    if (part.type === "finish") annotateAnswer(span, { model: part.model, stop: part.stop_reason })
  })

/**
 * The `LanguageModel` of a kernel provider.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = (provider: ModelProvider.Service, options: Options): Effect.Effect<LanguageModel.LanguageModel> =>
  LanguageModel.make({
    // The providers send one system prompt: system messages in the history join it.
    supportsSystemMessagesInHistory: Effect.succeed(false),
    generateText: (call) =>
      Effect.flatMap(annotatedRequest(provider, options, "generateText", call), (request) =>
        ModelProvider.generate(provider, request).pipe(
          Effect.mapError(aiErrorOf("generateText")),
          Effect.tap((response) =>
            Effect.sync(() =>
              annotateAnswer(call.span, { model: response.model, stop: response.stop_reason, usage: response.usage })
            )
          ),
          Effect.map(Parts.fromResponse)
        )
      ),
    streamText: (call) =>
      Stream.unwrap(
        Effect.map(annotatedRequest(provider, options, "streamText", call), (request) =>
          provider
            .stream(request)
            .pipe(
              Stream.mapError(aiErrorOf("streamText")),
              Stream.tap(annotatePart(call.span)),
              Stream.mapAccum(Parts.initial, Parts.step)
            )
        )
      )
  })

/**
 * The `LanguageModel` of the kernel `ModelProvider` in context: any of the
 * kernel's providers, on any transport.
 *
 * @example
 * ```ts
 * import { KernelLanguageModel } from "@agent-kernel/ai"
 * import { Anthropic } from "@agent-kernel/providers"
 * import { NodeTransport } from "@agent-kernel/providers/node"
 * import { Layer } from "effect"
 *
 * // The kernel's Anthropic provider on the Node transport (connect and first-byte timeouts told apart).
 * const ModelLive = KernelLanguageModel.layer({ model: "claude-sonnet-4-5" }).pipe(
 *   Layer.provide(Anthropic.layer()),
 *   Layer.provide(NodeTransport.layer())
 * )
 * ```
 *
 * @since 0.4.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, ModelProvider.ModelProvider> =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.flatMap(ModelProvider.ModelProvider, (provider) => make(provider, options))
  )
