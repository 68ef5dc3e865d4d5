/**
 * OpenAI Chat Completions as a kernel `ModelProvider`, built directly on
 * @effect/platform's `HttpClient`. Works with OpenAI-compatible servers
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
import { Content } from "@agent-kernel/kernel"
import { ModelProvider } from "@agent-kernel/kernel"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Classification from "./Classification.js"
import * as Exchange from "./internal/exchange.js"
import * as Http from "./internal/http.js"
import * as Wire from "./internal/openAiWire.js"
import type * as Timeouts from "./Timeouts.js"
import type { Transport } from "./Transport.js"

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

/**
 * Translates the kernel's messages to Chat Completions messages.
 *
 * @since 0.1.0
 * @category wire
 */
export const toWireMessages = (
  system: string | undefined,
  messages: ReadonlyArray<Content.Message>
): ReadonlyArray<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  if (system !== undefined && system.length > 0) out.push({ role: "system", content: system })
  for (const message of messages) {
    if (message.role === "assistant") {
      const text = textOf(message.content)
      const toolCalls = message.content.flatMap((block) =>
        block.type === "tool_use"
          ? [
              {
                id: block.id,
                type: "function",
                function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) }
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
    const text = textOf(message.content)
    if (text.length > 0 || message.content.length === 0) out.push({ role: "user", content: text })
  }
  return out
}

/**
 * Translates a kernel request to the Chat Completions body.
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
  }
): Record<string, unknown> => ({
  model: request.model,
  messages: toWireMessages(
    request.system === undefined ? undefined : Content.systemText(request.system),
    request.messages
  ),
  ...(request.tools.length > 0
    ? {
        tools: request.tools.map((tool) => ({
          type: "function",
          function: { name: tool.name, description: tool.description, parameters: tool.input_schema }
        }))
      }
    : {}),
  ...(request.max_output_tokens !== undefined ? { [options.maxTokensField]: request.max_output_tokens } : {}),
  ...(options.stream
    ? { stream: true, ...(options.streamUsage !== false ? { stream_options: { include_usage: true } } : {}) }
    : {})
})

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
export const make = (options?: Options): Effect.Effect<ModelProvider.Service, ConfigError.ConfigError, Transport> =>
  Effect.gen(function* () {
    const { transport, apiKey, baseUrl, name, stream, callOf } = yield* Http.configure(options, {
      name: "openai",
      keyVariable: "OPENAI_API_KEY",
      baseUrlVariable: "OPENAI_BASE_URL",
      defaultBaseUrl,
      table: Classification.openAi
    })
    const maxTokensField = options?.maxTokensField ?? "max_completion_tokens"
    const url = `${baseUrl}/chat/completions`

    const generate = Effect.fn("OpenAi.generate")(function* (request: ModelProvider.ModelRequest) {
      yield* Effect.annotateCurrentSpan({ provider: name, model: request.model, stream })
      const call = yield* callOf(request.model)
      return yield* Exchange.exchange(transport, call, Wire.decoder, {
        url,
        headers: {
          ...options?.headers,
          authorization: `Bearer ${Redacted.value(apiKey)}`,
          accept: stream ? "text/event-stream" : "application/json"
        },
        body: toWire(request, { stream, maxTokensField, streamUsage: options?.streamUsage })
      })
    })

    return ModelProvider.fromGenerate(name, generate)
  })

/**
 * The provider as a layer. Requires a `Transport`: `NodeTransport.layer()` on Node, or
 * `Transport.layerHttpClient` over any `HttpClient`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<ModelProvider.ModelProvider, ConfigError.ConfigError, Transport> =>
  Layer.effect(ModelProvider.ModelProvider, make(options))
