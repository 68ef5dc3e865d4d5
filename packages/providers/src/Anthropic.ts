/**
 * The Anthropic Messages API as a kernel `ModelProvider`, built directly on
 * `effect/http`'s `HttpClient` (no vendor SDK, no retries: only the kernel
 * retries).
 *
 * @since 0.1.0
 */
import type { Content } from "@agent-kernel/kernel"
import { ModelProvider } from "@agent-kernel/kernel"
import type * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as Classification from "./Classification.js"
import * as Wire from "./internal/anthropicWire.js"
import * as Exchange from "./internal/exchange.js"
import * as Http from "./internal/http.js"
import * as RequestOptions from "./internal/requestOptions.js"
import type * as Timeouts from "./Timeouts.js"
import { layerHttpClient, type Transport } from "./Transport.js"

/**
 * Options of the Anthropic provider. Every field has a default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Default: `Config.redacted("ANTHROPIC_API_KEY")`. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** The base URL without `/v1`. Default: `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com`. */
  readonly baseUrl?: string | undefined
  /** Stream over SSE. Default: `true`. */
  readonly stream?: boolean | undefined
  readonly timeouts?: Timeouts.Options | undefined
  /** Largest response body (or single SSE event) accepted. Default: 32 MiB. */
  readonly maxBodyBytes?: number | undefined
  /** `max_tokens` when the request sets no `max_output_tokens`. Default: 4096. */
  readonly defaultMaxTokens?: number | undefined
  /** The `anthropic-version` header. Default: `2023-06-01`. */
  readonly version?: string | undefined
  /** The provider name in errors and events. Default: `anthropic`. */
  readonly name?: string | undefined
  /** Extra request headers (for example `anthropic-beta`). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * The default base URL.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBaseUrl = "https://api.anthropic.com"

const cacheOf = (cache: Content.CacheControl | undefined): { readonly cache_control?: Content.CacheControl } =>
  cache === undefined ? {} : { cache_control: cache }

const sourceOf = (source: Content.MediaSource): Record<string, unknown> =>
  source.type === "base64"
    ? { type: "base64", media_type: source.media_type, data: source.data }
    : { type: "url", url: source.url }

const toWireBlocks = (block: Content.ContentBlock): ReadonlyArray<Record<string, unknown>> => {
  switch (block.type) {
    case "text":
      // The API rejects empty text blocks.
      return block.text.length === 0 ? [] : [{ type: "text", text: block.text, ...cacheOf(block.cache_control) }]
    case "tool_use":
      return [
        { type: "tool_use", id: block.id, name: block.name, input: block.input ?? {}, ...cacheOf(block.cache_control) }
      ]
    case "tool_result":
      return [
        {
          type: "tool_result",
          tool_use_id: block.tool_use_id,
          content: block.content,
          is_error: block.is_error,
          ...cacheOf(block.cache_control)
        }
      ]
    case "thinking":
      // Thinking can only be sent back with its signature.
      return block.signature === undefined
        ? []
        : [{ type: "thinking", thinking: block.thinking, signature: block.signature }]
    case "redacted_thinking":
      // Sent back verbatim: the API needs it to continue a turn that used thinking.
      return [{ type: "redacted_thinking", data: block.data }]
    case "image":
    case "document":
      return [{ type: block.type, source: sourceOf(block.source), ...cacheOf(block.cache_control) }]
  }
}

const systemOf = (system: Content.System | undefined): Record<string, unknown> => {
  if (system === undefined) return {}
  if (typeof system === "string") return system.length > 0 ? { system } : {}
  const blocks = system.flatMap((block) =>
    block.text.length === 0 ? [] : [{ type: "text", text: block.text, ...cacheOf(block.cache_control) }]
  )
  return blocks.length > 0 ? { system: blocks } : {}
}

/**
 * Translates a kernel request to the Messages API body: the conversation
 * (text, tool use and results, thinking with its signature, redacted
 * thinking verbatim, images and documents, `cache_control` where the request
 * sets it), then the request options. Fails, naming the option, when the
 * request sets one Anthropic lacks (`reasoning_effort`, a temperature above
 * 1) or an `extra` key that collides with a modelled field.
 *
 * @since 0.1.0
 * @category wire
 */
export const toWire = (
  request: ModelProvider.ModelRequest,
  options: { readonly stream: boolean; readonly defaultMaxTokens: number; readonly provider?: string | undefined }
): Result.Result<Record<string, unknown>, RequestOptions.Unsupported> =>
  Result.map(RequestOptions.anthropic(request, options.provider ?? "anthropic"), (fields) => ({
    model: request.model,
    max_tokens: request.max_output_tokens ?? options.defaultMaxTokens,
    ...systemOf(request.system),
    messages: request.messages.map((message) => ({
      role: message.role,
      content: message.content.flatMap(toWireBlocks)
    })),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: tool.input_schema,
            ...cacheOf(tool.cache_control)
          }))
        }
      : {}),
    ...fields,
    ...(options.stream ? { stream: true } : {})
  }))

/**
 * The error facts of an Anthropic error body (`{type: "error", error: {type, message}}`).
 *
 * @since 0.1.0
 * @category wire
 */
export const errorFacts: (body: unknown) => Option.Option<Omit<Classification.Facts, "status">> = Wire.errorFacts

/**
 * Builds the provider from options and `Config`.
 *
 * @example
 * ```ts
 * import { Anthropic } from "@agent-kernel/providers"
 * import { NodeTransport } from "@agent-kernel/providers/node"
 * import { Effect, Layer } from "effect"
 *
 * const ModelLive = Anthropic.layer({ stream: true, timeouts: { idle: "30 seconds" } }).pipe(
 *   Layer.provide(NodeTransport.layer())
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<ModelProvider.Service, Config.ConfigError, Transport> =
  Effect.fnUntraced(function* (options?: Options) {
    const { transport, apiKey, baseUrl, name, stream, callOf } = yield* Http.configure(options, {
      name: "anthropic",
      keyVariable: "ANTHROPIC_API_KEY",
      baseUrlVariable: "ANTHROPIC_BASE_URL",
      defaultBaseUrl,
      table: Classification.anthropic
    })
    const defaultMaxTokens = options?.defaultMaxTokens ?? 4096
    const url = `${baseUrl}/v1/messages`

    const streamResponse = (request: ModelProvider.ModelRequest) =>
      Stream.unwrap(
        Effect.gen(function* () {
          const call = yield* callOf(request.model)
          const body = toWire(request, { stream, defaultMaxTokens, provider: name })
          if (Result.isFailure(body)) return yield* Effect.fail(Http.unsupported(call, body.failure))
          return Exchange.exchange(transport, call, Wire.decoder, {
            url,
            headers: {
              ...options?.headers,
              "x-api-key": Redacted.value(apiKey),
              "anthropic-version": options?.version ?? "2023-06-01",
              accept: stream ? "text/event-stream" : "application/json"
            },
            body: body.success
          })
        })
      ).pipe(Stream.withSpan("Anthropic.stream", { attributes: { provider: name, model: request.model, stream } }))

    return ModelProvider.make(name, streamResponse)
  })

/**
 * The provider as a layer. Requires a `Transport`: `NodeTransport.layer()` on Node, or
 * `Transport.layerHttpClient` over any `HttpClient`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<ModelProvider.ModelProvider, Config.ConfigError, Transport> =>
  Layer.effect(ModelProvider.ModelProvider, make(options))

/**
 * The provider as a layer that needs nothing: it sends over effect's fetch
 * `HttpClient` (`FetchHttpClient.layer` under `Transport.layerHttpClient`),
 * so there is no transport to pick. The key is read with `Config` from
 * `ANTHROPIC_API_KEY` and the base URL from `ANTHROPIC_BASE_URL` (else
 * `https://api.anthropic.com`) unless `options` give them; a missing key fails the
 * layer with a `ConfigError` naming the variable. Fetch cannot report when
 * a socket is connected, so the first-byte timeout also covers connecting:
 * on Node, `layer` over `NodeTransport.layer()` tells the two apart.
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { Anthropic } from "@agent-kernel/providers"
 *
 * const agent = Agent.layer({ model: "claude-sonnet-4-5", provider: Anthropic.layerFetch() })
 * ```
 *
 * @since 0.5.0
 * @category layers
 */
export const layerFetch = (options?: Options): Layer.Layer<ModelProvider.ModelProvider, Config.ConfigError> =>
  layer(options).pipe(Layer.provide(layerHttpClient), Layer.provide(FetchHttpClient.layer))
