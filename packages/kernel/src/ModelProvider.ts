/**
 * The model provider service: one request in, one complete response or a
 * classified `ModelError` out. Providers never retry; only the kernel does,
 * so that a quota error is never multiplied by stacked retry layers.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Content from "./Content.js"
import * as Settings from "./Settings.js"
import type * as ModelError from "./ModelError.js"

/**
 * A tool offered to the model: its name, description and JSON Schema input.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolDefinition = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  input_schema: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolDefinition extends Schema.Schema.Type<typeof ToolDefinition> {}

/**
 * Token usage reported by the provider.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Usage = Schema.Struct({
  input_tokens: Schema.Number,
  output_tokens: Schema.Number,
  cache_read_tokens: Schema.optional(Schema.Number),
  cache_write_tokens: Schema.optional(Schema.Number)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface Usage extends Schema.Schema.Type<typeof Usage> {}

/**
 * @since 0.1.0
 * @category constructors
 */
export const emptyUsage: Usage = { input_tokens: 0, output_tokens: 0 }

/**
 * Adds two usages.
 *
 * @since 0.1.0
 * @category combinators
 */
export const addUsage = (self: Usage, that: Usage): Usage => ({
  input_tokens: self.input_tokens + that.input_tokens,
  output_tokens: self.output_tokens + that.output_tokens,
  cache_read_tokens: (self.cache_read_tokens ?? 0) + (that.cache_read_tokens ?? 0),
  cache_write_tokens: (self.cache_write_tokens ?? 0) + (that.cache_write_tokens ?? 0)
})

/**
 * Why the model stopped. `content_filtered` is a refusal or a content filter
 * that still returned a (possibly partial) response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StopReason = Schema.Literal("end_turn", "tool_use", "max_tokens", "stop_sequence", "content_filtered")

/**
 * @since 0.1.0
 * @category models
 */
export type StopReason = typeof StopReason.Type

/**
 * One request to a model.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelRequest = Schema.Struct({
  model: Schema.String,
  system: Schema.optional(Schema.String),
  messages: Content.History,
  tools: Schema.Array(ToolDefinition),
  max_output_tokens: Schema.optional(Schema.Number)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface ModelRequest extends Schema.Schema.Type<typeof ModelRequest> {}

/**
 * One complete model response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelResponse = Schema.Struct({
  model: Schema.String,
  content: Schema.Array(Content.ContentBlock),
  stop_reason: StopReason,
  usage: Usage
})

/**
 * @since 0.1.0
 * @category models
 */
export interface ModelResponse extends Schema.Schema.Type<typeof ModelResponse> {}

/**
 * What a model provider does.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** A short name used in errors and events, such as `anthropic`. */
  readonly name: string
  /** Sends one request. Never retries. */
  readonly generate: (request: ModelRequest) => Effect.Effect<ModelResponse, ModelError.ModelError>
}

/**
 * The model provider service. A session requires one: there is no default.
 *
 * @since 0.1.0
 * @category tags
 */
export class ModelProvider extends Context.Tag("@agent-kernel/kernel/ModelProvider")<ModelProvider, Service>() {}

/**
 * A provider from a plain `generate` function.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  name: string,
  generate: (request: ModelRequest) => Effect.Effect<ModelResponse, ModelError.ModelError>
): Service => ({ name, generate })

/**
 * A layer providing a provider built with `make`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  name: string,
  generate: (request: ModelRequest) => Effect.Effect<ModelResponse, ModelError.ModelError>
): Layer.Layer<ModelProvider> => Layer.succeed(ModelProvider, make(name, generate))

/**
 * The time bounds of one model call. The kernel enforces `attempt` around
 * every attempt, for any provider; an HTTP provider enforces the other three
 * itself: `connect` (TCP and TLS), `firstByte` (request sent to response
 * headers) and `idle` (between content-bearing stream events, from the
 * headers on; pings, comments and keep-alives never restart it). Each
 * expiry is a `Timeout` error, which is transient.
 *
 * A session provides these from its settings (`model_*_timeout_ms`) to every
 * call of a run; the default is the settings' defaults.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallTimeouts {
  readonly connect: Duration.Duration
  readonly firstByte: Duration.Duration
  readonly idle: Duration.Duration
  readonly attempt: Duration.Duration
}

/**
 * The call timeouts in context, read by providers at call time.
 *
 * @since 0.2.0
 * @category references
 */
export class CurrentCallTimeouts extends Context.Reference<CurrentCallTimeouts>()(
  "@agent-kernel/kernel/ModelProvider/CurrentCallTimeouts",
  {
    defaultValue: (): CallTimeouts => callTimeoutsFrom(Settings.defaults)
  }
) {}

/**
 * The call timeouts a session's settings ask for.
 *
 * @since 0.2.0
 * @category constructors
 */
export const callTimeoutsFrom = (
  settings: Pick<
    Settings.Settings,
    "model_connect_timeout_ms" | "model_first_byte_timeout_ms" | "model_idle_timeout_ms" | "model_attempt_timeout_ms"
  >
): CallTimeouts => ({
  connect: Duration.millis(settings.model_connect_timeout_ms),
  firstByte: Duration.millis(settings.model_first_byte_timeout_ms),
  idle: Duration.millis(settings.model_idle_timeout_ms),
  attempt: Duration.millis(settings.model_attempt_timeout_ms)
})
