/**
 * The model provider service: one request in, a stream of response parts out,
 * ending with the response complete or failing with a classified
 * `ModelError`. Providers never retry; only the kernel does, so that a quota
 * error is never multiplied by stacked retry layers.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Content from "./Content.js"
import * as responsePart from "./internal/responsePart.js"
import * as ModelError from "./ModelError.js"
import type * as ResponsePart from "./ResponsePart.js"
import * as Settings from "./Settings.js"
import * as UsageModule from "./Usage.js"

/**
 * A tool offered to the model: its name, description and JSON Schema input.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolDefinition = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  input_schema: Schema.Record(Schema.String, Schema.Unknown),
  cache_control: Schema.optional(Content.CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolDefinition extends Schema.Schema.Type<typeof ToolDefinition> {}

/**
 * Token usage reported by the provider. Defined in `Usage`, and re-exported
 * here where it has always been.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Usage = UsageModule.Usage

/**
 * @since 0.1.0
 * @category models
 */
export type Usage = UsageModule.Usage

/**
 * No tokens: `Usage.empty`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const emptyUsage: Usage = UsageModule.empty

/**
 * Adds two usages: `Usage.add`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const addUsage: (self: Usage, that: Usage) => Usage = UsageModule.add

/**
 * Why the model stopped. `content_filtered` is a refusal or a content filter
 * that still returned a (possibly partial) response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StopReason = Schema.Literals(["end_turn", "tool_use", "max_tokens", "stop_sequence", "content_filtered"])

/**
 * @since 0.1.0
 * @category models
 */
export type StopReason = typeof StopReason.Type

/**
 * Which tool the model may or must call: `auto` (its choice), `any` (some
 * tool; OpenAI's `required`), `none`, or one named tool.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ToolChoice = Schema.Union([
  Schema.Struct({ type: Schema.Literal("auto") }),
  Schema.Struct({ type: Schema.Literal("any") }),
  Schema.Struct({ type: Schema.Literal("none") }),
  Schema.Struct({ type: Schema.Literal("tool"), name: Schema.String })
])

/**
 * @since 0.3.0
 * @category models
 */
export type ToolChoice = Schema.Schema.Type<typeof ToolChoice>

/**
 * OpenAI's reasoning effort.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ReasoningEffort = Schema.Literals(["minimal", "low", "medium", "high"])

/**
 * @since 0.3.0
 * @category models
 */
export type ReasoningEffort = typeof ReasoningEffort.Type

/**
 * The options of a request beyond its conversation, all optional. A session
 * applies its `request` defaults to every call. An option a provider lacks
 * (`top_k` on OpenAI, `reasoning_effort` on Anthropic, ...) is an
 * `InvalidRequest` error raised before anything is sent, never a silent drop.
 *
 * - `temperature`, `top_p`, `top_k` (Anthropic), `stop_sequences`: sampling.
 * - `tool_choice`, `parallel_tool_calls`: how the model may call tools.
 * - `thinking`: Anthropic extended thinking, with its token budget.
 * - `reasoning_effort`: OpenAI reasoning effort.
 * - `metadata.user_id`: Anthropic `metadata.user_id`, OpenAI `user`.
 * - `extra`: fields merged into the wire body as they are, for what is not
 *   modelled; a key that collides with a modelled field is an error.
 *
 * @since 0.3.0
 * @category schemas
 */
export const RequestOptions = Schema.Struct({
  temperature: Schema.optional(Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 2 }))),
  top_p: Schema.optional(Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 }))),
  top_k: Schema.optional(Schema.Int.check(Schema.isGreaterThan(0))),
  stop_sequences: Schema.optional(Schema.Array(Schema.String)),
  tool_choice: Schema.optional(ToolChoice),
  parallel_tool_calls: Schema.optional(Schema.Boolean),
  thinking: Schema.optional(Schema.Struct({ budget_tokens: Schema.Int.check(Schema.isGreaterThan(0)) })),
  reasoning_effort: Schema.optional(ReasoningEffort),
  metadata: Schema.optional(Schema.Struct({ user_id: Schema.optional(Schema.String) })),
  extra: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
})

/**
 * @since 0.3.0
 * @category models
 */
export interface RequestOptions extends Schema.Schema.Type<typeof RequestOptions> {}

/**
 * One request to a model: the conversation, the tools offered, and the
 * request options.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelRequest = Schema.Struct({
  model: Schema.String,
  system: Schema.optional(Content.System),
  messages: Content.History,
  tools: Schema.Array(ToolDefinition),
  max_output_tokens: Schema.optional(Schema.Number),
  ...RequestOptions.fields
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
  /**
   * Sends one request and streams the response's parts as they arrive,
   * ending after a `finish` part. Never retries. A failure after some parts
   * is the stream failing with a `ModelError` (`midStream: true`, the usage
   * so far in `usage`).
   */
  readonly stream: (request: ModelRequest) => Stream.Stream<ResponsePart.ResponsePart, ModelError.ModelError>
  /**
   * The one-shot call, for a provider that has one cheaper than folding its
   * stream (`fromGenerate` sets it). When present, `generate` and the kernel
   * use it, and the kernel publishes the response's parts when it completes,
   * which is when such a provider's stream would emit them anyway. It must
   * agree with `stream`.
   */
  readonly generate?: (request: ModelRequest) => Effect.Effect<ModelResponse, ModelError.ModelError>
}

/**
 * The model provider service. A session requires one: there is no default.
 *
 * @since 0.1.0
 * @category tags
 */
export class ModelProvider extends Context.Service<ModelProvider, Service>()("@agent-kernel/kernel/ModelProvider") {}

/**
 * A provider from a streaming function.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  name: string,
  stream: (request: ModelRequest) => Stream.Stream<ResponsePart.ResponsePart, ModelError.ModelError>
): Service => ({ name, stream })

/**
 * A provider from a one-shot function: its stream emits the parts of the
 * whole response at once (`ResponsePart.fromResponse`) when the call
 * completes. For tests and providers without streaming.
 *
 * @since 0.3.0
 * @category constructors
 */
export const fromGenerate = (
  name: string,
  generate: (request: ModelRequest) => Effect.Effect<ModelResponse, ModelError.ModelError>
): Service => ({
  name,
  generate,
  stream: (request) =>
    Stream.flatMap(Stream.fromEffect(Effect.suspend(() => generate(request))), (response) =>
      Stream.fromIterable(responsePart.fromResponse(response))
    )
})

/**
 * The one-shot call: the provider's stream folded into the complete
 * response (or the provider's own `generate`, when it has one). A stream that ends without a `finish` part was cut short: a
 * transient `ServerError` (`midStream`), with the usage reported so far.
 *
 * @since 0.3.0
 * @category combinators
 */
export const generate = (
  provider: Service,
  request: ModelRequest
): Effect.Effect<ModelResponse, ModelError.ModelError> =>
  provider.generate !== undefined ? provider.generate(request) : fold(provider, request)

const fold = (provider: Service, request: ModelRequest): Effect.Effect<ModelResponse, ModelError.ModelError> =>
  Effect.suspend(() => {
    // The response so far, for a stream that fails: a content filter's error keeps its text.
    let reached = responsePart.empty
    return Stream.suspend(() => provider.stream(request)).pipe(
      Stream.runFold(
        () => responsePart.empty,
        (state, part) => {
          reached = responsePart.add(state, part)
          return reached
        }
      ),
      Effect.mapError((error) => keepPartialText(error, reached)),
      Effect.flatMap((state) =>
        responsePart.isFinished(state)
          ? Effect.succeed(responsePart.toResponse(state, request.model))
          : Effect.fail(unfinished(provider.name, request.model, responsePart.usage(state)))
      )
    )
  })

/**
 * The error a stream failed with, given the response it had reached: a
 * content filter's error (`ContentFiltered`) carries the text written before
 * it as `partialText`, unless the provider set it already. Every other error
 * is returned as it is: a failed attempt's text is never kept.
 *
 * @since 0.3.0
 * @category combinators
 */
export const keepPartialText = (
  error: ModelError.ModelError,
  reached: ResponsePart.Accumulator
): ModelError.ModelError => {
  if (error._tag !== "ContentFiltered" || error.partialText !== undefined) return error
  const text = responsePart.text(reached)
  return text.length === 0
    ? error
    : new ModelError.ContentFiltered({ ...error, message: error.message, partialText: text })
}

/**
 * The error for a stream that ended without its `finish` part.
 *
 * @since 0.3.0
 * @category constructors
 */
export const unfinished = (provider: string, model: string, usage: Usage | undefined): ModelError.ModelError =>
  ModelError.make("server_error", {
    provider,
    model,
    message: "the response stream ended before its finish part",
    midStream: true,
    usage
  })

/**
 * A layer providing a provider built with `make`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  name: string,
  stream: (request: ModelRequest) => Stream.Stream<ResponsePart.ResponsePart, ModelError.ModelError>
): Layer.Layer<ModelProvider> => Layer.succeed(ModelProvider, make(name, stream))

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
export const CurrentCallTimeouts: Context.Reference<CallTimeouts> = Context.Reference<CallTimeouts>(
  "@agent-kernel/kernel/ModelProvider/CurrentCallTimeouts",
  { defaultValue: () => callTimeoutsFrom(Settings.defaults) }
)

/** The settings the call timeouts come from. */
type TimeoutSettings = Pick<
  Settings.Settings,
  "model_connect_timeout_ms" | "model_first_byte_timeout_ms" | "model_idle_timeout_ms" | "model_attempt_timeout_ms"
>

/**
 * The call timeouts a session's settings ask for.
 *
 * @since 0.2.0
 * @category constructors
 */
export const callTimeoutsFrom = (settings: TimeoutSettings): CallTimeouts => ({
  connect: Duration.millis(settings.model_connect_timeout_ms),
  firstByte: Duration.millis(settings.model_first_byte_timeout_ms),
  idle: Duration.millis(settings.model_idle_timeout_ms),
  attempt: Duration.millis(settings.model_attempt_timeout_ms)
})
