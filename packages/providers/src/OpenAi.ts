/**
 * OpenAI Chat Completions as a kernel `ModelProvider`, built directly on
 * `effect/http`'s `HttpClient`. Works with OpenAI-compatible servers
 * through the base URL. It never retries: only the kernel does.
 *
 * Mapping notes:
 * - tool results (kernel `tool_result` blocks in user messages) become
 *   `role: "tool"` messages; an error result's content is prefixed with
 *   `Error: `, since the format has no error flag.
 * - thinking blocks are not sent (the format has no place for them).
 * - usage: `input_tokens` excludes cached prompt tokens, which are reported
 *   as `cache_read_tokens`, as Anthropic does.
 *
 * @since 0.1.0
 */
import { Content, ModelProvider } from "@agent-kernel/kernel"
import type * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as Classification from "./Classification.js"
import * as Exchange from "./internal/exchange.js"
import * as Http from "./internal/http.js"
import * as Wire from "./internal/openAiWire.js"
import * as RequestOptions from "./internal/requestOptions.js"
import type * as Timeouts from "./Timeouts.js"
import { layerHttpClient, type Transport } from "./Transport.js"

/**
 * Options of the OpenAI provider. Every field has a default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Default: `Config.redacted("OPENAI_API_KEY")`. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** The base URL including `/v1`. Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  readonly baseUrl?: string | undefined
  /** Stream over SSE. Default: `true`. */
  readonly stream?: boolean | undefined
  readonly timeouts?: Timeouts.Options | undefined
  /** Largest response body (or single SSE event) accepted. Default: 32 MiB. */
  readonly maxBodyBytes?: number | undefined
  /**
   * The field carrying `max_output_tokens`. Default: `max_completion_tokens`;
   * some compatible servers only know `max_tokens`.
   */
  readonly maxTokensField?: "max_completion_tokens" | "max_tokens" | undefined
  /**
   * Ask for usage in the stream (`stream_options.include_usage`). Default:
   * `true`; turn off for compatible servers that reject `stream_options`.
   */
  readonly streamUsage?: boolean | undefined
  /** The provider name in errors and events. Default: `openai`. */
  readonly name?: string | undefined
  /** Extra request headers (for example `OpenAI-Organization`). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * The default base URL.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBaseUrl = "https://api.openai.com/v1"

const textOf = (blocks: ReadonlyArray<Content.ContentBlock>): string =>
  blocks.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("")

const dataUrl = (source: Content.MediaSource & { readonly type: "base64" }): string =>
  `data:${source.media_type};base64,${source.data}`

/** A user message's content: a string, or content parts when it carries images or documents. */
const userContent = (
  blocks: ReadonlyArray<Content.ContentBlock>,
  provider: string
): Result.Result<string | ReadonlyArray<Record<string, unknown>> | undefined, RequestOptions.Unsupported> => {
  const media = blocks.filter((block) => block.type === "image" || block.type === "document")
  const text = textOf(blocks)
  if (media.length === 0) return Result.succeed(text.length > 0 || blocks.length === 0 ? text : undefined)
  const parts: Array<Record<string, unknown>> = []
  for (const block of blocks) {
    if (block.type === "text" && block.text.length > 0) parts.push({ type: "text", text: block.text })
    if (block.type === "image") {
      parts.push({
        type: "image_url",
        image_url: { url: block.source.type === "base64" ? dataUrl(block.source) : block.source.url }
      })
    }
    if (block.type === "document") {
      if (block.source.type === "url") {
        return Result.fail({
          option: "document",
          reason: `a document by URL is not supported by ${provider} (send it as base64)`
        })
      }
      parts.push({ type: "file", file: { filename: `document-${parts.length}`, file_data: dataUrl(block.source) } })
    }
  }
  return Result.succeed(parts)
}

const hasCacheControl = (request: ModelProvider.ModelRequest): boolean =>
  (typeof request.system === "object" && request.system.some((block) => block.cache_control !== undefined)) ||
  request.tools.some((tool) => tool.cache_control !== undefined) ||
  request.messages.some((message) =>
    message.content.some((block) => "cache_control" in block && block.cache_control !== undefined)
  )

/**
 * Translates the kernel's messages to Chat Completions messages: text, tool
 * calls and results, images (as `image_url`, base64 as a data URL) and
 * base64 documents (as `file`). Thinking blocks are Anthropic's and are not
 * sent. Fails on what the format cannot carry (a document by URL).
 *
 * @since 0.1.0
 * @category wire
 */
export const toWireMessages = (
  system: Content.System | undefined,
  messages: ReadonlyArray<Content.Message>,
  provider = "openai"
): Result.Result<ReadonlyArray<Record<string, unknown>>, RequestOptions.Unsupported> => {
  const out: Array<Record<string, unknown>> = []
  const systemText = system === undefined ? "" : Content.systemText(system)
  if (systemText.length > 0) out.push({ role: "system", content: systemText })
  for (const message of messages) {
    if (message.role === "assistant") {
      const text = textOf(message.content)
      const toolCalls = message.content.flatMap((block) =>
        block.type === "tool_use"
          ? [
              {
                id: block.id,
                type: "function",
                function: { name: block.name, arguments: block.invalid_input ?? JSON.stringify(block.input ?? {}) }
              }
            ]
          : []
      )
      out.push({
        role: "assistant",
        content: text.length > 0 ? text : null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {})
      })
      continue
    }
    // Tool results must directly follow the assistant message that asked for them.
    for (const block of message.content) {
      if (block.type === "tool_result") {
        out.push({
          role: "tool",
          tool_call_id: block.tool_use_id,
          content: block.is_error ? `Error: ${block.content}` : block.content
        })
      }
    }
    const content = userContent(message.content, provider)
    if (Result.isFailure(content)) return Result.fail(content.failure)
    if (content.success !== undefined) out.push({ role: "user", content: content.success })
  }
  return Result.succeed(out)
}

/**
 * Translates a kernel request to the Chat Completions body, then the
 * request options. Fails, naming the option, on what OpenAI lacks
 * (`top_k`, `thinking`, `cache_control`, more than four stop sequences, a
 * document by URL) and on an `extra` key that collides with a modelled field.
 *
 * @since 0.1.0
 * @category wire
 */
export const toWire = (
  request: ModelProvider.ModelRequest,
  options: {
    readonly stream: boolean
    readonly maxTokensField: "max_completion_tokens" | "max_tokens"
    readonly streamUsage?: boolean | undefined
    readonly provider?: string | undefined
  }
): Result.Result<Record<string, unknown>, RequestOptions.Unsupported> => {
  const provider = options.provider ?? "openai"
  if (hasCacheControl(request)) {
    return Result.fail({ option: "cache_control", reason: `cache_control is not supported by ${provider}` })
  }
  return Result.flatMap(toWireMessages(request.system, request.messages, provider), (messages) =>
    Result.map(RequestOptions.openAi(request, provider), (fields) => ({
      model: request.model,
      messages,
      ...(request.tools.length > 0
        ? {
            tools: request.tools.map((tool) => ({
              type: "function",
              function: { name: tool.name, description: tool.description, parameters: tool.input_schema }
            }))
          }
        : {}),
      ...(request.max_output_tokens !== undefined ? { [options.maxTokensField]: request.max_output_tokens } : {}),
      ...fields,
      ...(options.stream
        ? { stream: true, ...(options.streamUsage !== false ? { stream_options: { include_usage: true } } : {}) }
        : {})
    }))
  )
}

/**
 * The error facts of an OpenAI error body (`{error: {message, type, code}}`).
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
 * import { OpenAi } from "@agent-kernel/providers"
 * import { NodeTransport } from "@agent-kernel/providers/node"
 * import { Layer } from "effect"
 *
 * // An OpenAI-compatible server (vLLM, Ollama...) through its base URL.
 * const ModelLive = OpenAi.layer({ baseUrl: "http://localhost:11434/v1", maxTokensField: "max_tokens" }).pipe(
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
      name: "openai",
      keyVariable: "OPENAI_API_KEY",
      baseUrlVariable: "OPENAI_BASE_URL",
      defaultBaseUrl,
      table: Classification.openAi
    })
    const maxTokensField = options?.maxTokensField ?? "max_completion_tokens"
    const url = `${baseUrl}/chat/completions`

    const streamResponse = (request: ModelProvider.ModelRequest) =>
      Stream.unwrap(
        Effect.gen(function* () {
          const call = yield* callOf(request.model)
          const body = toWire(request, { stream, maxTokensField, streamUsage: options?.streamUsage, provider: name })
          if (Result.isFailure(body)) return yield* Effect.fail(Http.unsupported(call, body.failure))
          return Exchange.exchange(transport, call, Wire.decoder, {
            url,
            headers: {
              ...options?.headers,
              authorization: `Bearer ${Redacted.value(apiKey)}`,
              accept: stream ? "text/event-stream" : "application/json"
            },
            body: body.success
          })
        })
      ).pipe(Stream.withSpan("OpenAi.stream", { attributes: { provider: name, model: request.model, stream } }))

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
 * `OPENAI_API_KEY` and the base URL from `OPENAI_BASE_URL` (else
 * `https://api.openai.com/v1`) unless `options` give them; a missing key fails the
 * layer with a `ConfigError` naming the variable. Fetch cannot report when
 * a socket is connected, so the first-byte timeout also covers connecting:
 * on Node, `layer` over `NodeTransport.layer()` tells the two apart.
 *
 * @example
 * ```ts
 * import { Agent } from "@agent-kernel/kernel"
 * import { OpenAi } from "@agent-kernel/providers"
 *
 * const agent = Agent.layer({ model: "gpt-4.1", provider: OpenAi.layerFetch() })
 * ```
 *
 * @since 0.5.0
 * @category layers
 */
export const layerFetch = (options?: Options): Layer.Layer<ModelProvider.ModelProvider, Config.ConfigError> =>
  layer(options).pipe(Layer.provide(layerHttpClient), Layer.provide(FetchHttpClient.layer))
