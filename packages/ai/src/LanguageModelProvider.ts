/**
 * A kernel `ModelProvider` from an effect/ai `LanguageModel`, so a model
 * layer written for effect/ai gets the kernel's recovery: one retry layer,
 * the retry-after floor, no retry and no fallback on auth and quota errors,
 * context reduction on overflow, the content filter surfaced.
 *
 * Each call is one `LanguageModel.streamText` call, its parts mapped to the
 * kernel's `ResponsePart`s as they arrive (the one-shot
 * `ModelProvider.generate` folds them):
 * - the request's system prompt, messages (text, files, tool calls, tool
 *   results, thinking with its Anthropic signature) and tools (their JSON
 *   Schema, as given) become a `Prompt` and a toolkit that only describes
 *   the tools: `disableToolCallResolution` is always set, since the kernel
 *   runs tools, and `toolCallValidation` is `"deferred"`, since the kernel's
 *   toolbox validates a call's name and input;
 * - the answer's text, thinking (its signature; redacted thinking kept
 *   whole), tool calls, usage (cache reads and writes) and finish reason
 *   become response parts;
 * - an `AiError` becomes a `ModelError` through `AiErrors.toModelError`,
 *   named for the adapter (`name`) and the request's model, even when it
 *   carries a kernel error whole;
 * - the attempt runs under `SingleRequest.CurrentAttempt`, so a client built
 *   on `SingleRequest.layer` sends exactly one request, whatever retry sits
 *   above its `HttpClient`.
 *
 * The model and `max_output_tokens` of a request are provider settings in
 * effect/ai (a provider's `withConfigOverride`), so `configure` applies
 * them. Without it, the layer's own model answers every request (fallback
 * models do not switch it), and a request that sets `max_output_tokens` or
 * any request option (`temperature`, `top_p`, `top_k`, `stop_sequences`,
 * `tool_choice`, `parallel_tool_calls`, `thinking`, `reasoning_effort`,
 * `metadata`, `extra`) is refused as `invalid_request`, naming the option,
 * rather than sent without it. With it, `configure` receives the whole
 * request and applies what it supports.
 *
 * @since 0.1.0
 */
import { ModelError, ModelProvider, type ResponsePart } from "@agent-kernel/kernel"
import type * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as AiErrors from "./AiErrors.js"
import * as Errors from "./internal/errors.js"
import * as Prompt from "./internal/prompt.js"
import * as StreamParts from "./internal/streamParts.js"
import * as SingleRequest from "./SingleRequest.js"

/**
 * Applies a request's settings to one `streamText` call, typically with
 * the provider's `withConfigOverride`.
 *
 * @since 0.1.0
 * @category models
 */
export type Configure = (
  request: ModelProvider.ModelRequest
) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The provider name in errors and events. Default: `effect-ai`. */
  readonly name?: string | undefined
  /** Which classification table reads HTTP failures. Default: from the client's module. */
  readonly dialect?: AiErrors.Dialect | undefined
  /** Applies the request's model, `max_output_tokens` and options; see the module docs. */
  readonly configure?: Configure | undefined
  /**
   * Secrets to redact from errors. The credentials a request carried are
   * redacted anyway when the client is built on `SingleRequest.layer`.
   */
  readonly redact?: ReadonlyArray<Redacted.Redacted<string>> | undefined
}

/**
 * The request options that are provider settings in effect/ai (its
 * `withConfigOverride`): only `configure` can apply them, so without it a
 * request that sets one is refused, never sent without it.
 */
const configuredOptions = [
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "tool_choice",
  "parallel_tool_calls",
  "thinking",
  "reasoning_effort",
  "metadata",
  "extra"
] as const

const unguardedNote =
  "the effect/ai client answered, but no request passed SingleRequest's guard: build the client on SingleRequest.layer, or its own retries multiply the kernel's"

const blockedNote =
  "a retry layer above the HttpClient tried to re-send within one kernel attempt; SingleRequest stopped it, so the kernel stays the one retry layer"

/** One call of the adapter: what it was asked, and what it has seen so far. */
interface Call {
  readonly name: string
  readonly request: ModelProvider.ModelRequest
  readonly options: Options
  readonly guarded: SingleRequest.Service
  readonly attempt: SingleRequest.Attempt
  /** Whether a part reached the kernel: a failure after one is mid-stream. */
  readonly emitted: Ref.Ref<boolean>
}

const refusal = (call: Call, message: string, details: Record<string, unknown>) =>
  ModelError.make("invalid_request", { provider: call.name, model: call.request.model, message, details })

/** A request the adapter cannot send as asked, refused before anything is sent. */
const refusalOf = (call: Call): ModelError.ModelError | undefined => {
  const { request, options, name } = call
  if (options.configure !== undefined) return undefined
  if (request.max_output_tokens !== undefined) {
    return refusal(call, "max_output_tokens needs the adapter's configure option to reach the provider", {
      rule: "effect_ai.max_output_tokens_unconfigured"
    })
  }
  const unconfigured = configuredOptions.find((option) => request[option] !== undefined)
  return unconfigured === undefined
    ? undefined
    : refusal(
        call,
        `${unconfigured} is not supported by ${name} without the adapter's configure option to reach the provider`,
        { rule: "request.unsupported_option", option: unconfigured, provider: name }
      )
}

/** How errors of this call are attributed, redacted, and whether they came mid-stream. */
const errorOptions = (call: Call): Effect.Effect<AiErrors.Options> =>
  Effect.map(Effect.all([Ref.get(call.attempt.credentials), Ref.get(call.emitted)]), ([credentials, midStream]) => ({
    provider: call.name,
    model: call.request.model,
    dialect: call.options.dialect,
    redact: [...(call.options.redact ?? []), ...credentials],
    midStream
  }))

/**
 * An error the adapter returns, named for the adapter and the request's
 * model: a kernel error `toModelError` restored whole (a `LanguageModel`
 * made by `KernelLanguageModel`) names the provider under it.
 */
const attributed = (call: Call, error: ModelError.ModelError): ModelError.ModelError => {
  const names = { provider: call.name, model: call.request.model }
  if (error.provider === names.provider && error.model === names.model) return error
  return Errors.editModelError(error, (json) => (Predicate.isObject(json) ? { ...json, ...names } : json))
}

/** Fails when an HTTP answer (or HTTP error) came while no request of this attempt went through the guard. */
const unguarded = (call: Call): Effect.Effect<void, ModelError.ModelError> =>
  Effect.flatMap(Ref.get(call.attempt.sent), (sent) =>
    call.guarded.sendsHttp && sent === 0
      ? Effect.fail(
          ModelError.make("unknown", {
            provider: call.name,
            model: call.request.model,
            message: "the effect/ai client is not built on SingleRequest.layer",
            details: { rule: "effect_ai.unguarded_client", note: unguardedNote }
          })
        )
      : Effect.void
  )

/** The first request's recorded failure, when the guard stopped a second one. */
const blocked = (call: Call) =>
  Effect.flatMap(errorOptions(call), (options) =>
    Effect.flatMap(
      Effect.flatMap(Ref.get(call.attempt.firstFailure), (first) =>
        Option.match(first, {
          onSome: (failure) => AiErrors.fromFailure(failure, options, { source: "SingleRequest", note: blockedNote }),
          onNone: () =>
            Effect.succeed(
              ModelError.make("unknown", {
                provider: options.provider,
                model: options.model,
                message: "a second request was stopped after a first that did not fail at the HTTP level",
                details: { rule: "effect_ai.resend_after_success", note: blockedNote }
              })
            )
        })
      ),
      Effect.fail
    )
  )

/** Whether an `AiError` came from the HTTP exchange: an answer the guard must have seen. */
const isHttpAnswer = (error: AiError.AiError): boolean => error.reason._tag === "NetworkError" || "http" in error.reason

/** A failure of the model's stream, as the kernel's error. */
const failureOf = (call: Call, cause: Cause.Cause<AiError.AiError | ModelError.ModelError>) => {
  const error = Cause.findErrorOption(cause)
  if (Option.isSome(error)) {
    const failed = error.value
    if (ModelError.isModelError(failed)) return Stream.fail(failed)
    return Stream.fromEffect(
      Effect.andThen(
        isHttpAnswer(failed) ? unguarded(call) : Effect.void,
        Effect.flatMap(errorOptions(call), (options) =>
          Effect.flatMap(AiErrors.toModelError(failed, options), (error) => Effect.fail(attributed(call, error)))
        )
      )
    )
  }
  const unfailed = cause.reasons.filter((reason): reason is Cause.Die | Cause.Interrupt => !Cause.isFailReason(reason))
  const resend = unfailed.some((reason) => Cause.isDieReason(reason) && SingleRequest.isResendBlocked(reason.defect))
  return resend ? Stream.fromEffect(blocked(call)) : Stream.failCause(Cause.fromReasons<never>(unfailed))
}

/** One effect/ai part in, the kernel parts it makes out; a part that ends the stream fails it. */
const stepped = (call: Call) => (state: StreamParts.State, part: Parameters<typeof StreamParts.step>[1]) => {
  const next = StreamParts.step(state, part)
  switch (next._tag) {
    case "Parts":
      return next.parts.length === 0
        ? Effect.succeed([next.state, next.parts] as const)
        : Effect.as(Ref.set(call.emitted, true), [next.state, next.parts] as const)
    case "FinishedWithError":
      return Effect.fail(
        ModelError.make("unknown", {
          provider: call.name,
          model: call.request.model,
          message: 'the provider finished with reason "error"',
          usage: next.usage,
          details: { rule: "effect_ai.finish.error", note: "a finish reason of error carries no cause; not retried" }
        })
      )
    case "ErrorPart":
      return Effect.flatMap(errorOptions(call), (options) =>
        Effect.flatMap(AiErrors.fromStreamError(next.error, options), Effect.fail)
      )
  }
}

const streamOf = (
  model: LanguageModel.LanguageModel,
  call: Call
): Stream.Stream<ResponsePart.ResponsePart, ModelError.ModelError> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const refused = refusalOf(call)
      if (refused !== undefined) return yield* Effect.fail(refused)
      const converted = Prompt.fromRequest(call.request)
      if (Result.isFailure(converted)) {
        return yield* Effect.fail(
          refusal(call, `cannot express the request as an effect/ai prompt: ${converted.failure.reason}`, {
            rule: "effect_ai.prompt",
            message_index: converted.failure.message
          })
        )
      }
      // The request's settings (the provider's config override) and the attempt, as the context the stream runs in.
      const configure = call.options.configure?.(call.request) ?? (<A, E, R>(self: Effect.Effect<A, E, R>) => self)
      const context = Context.add(yield* configure(Effect.context<never>()), SingleRequest.CurrentAttempt, call.attempt)
      return model
        .streamText({
          prompt: converted.success.prompt,
          toolkit: converted.success.toolkit,
          disableToolCallResolution: true,
          toolCallValidation: "deferred"
        })
        .pipe(
          Stream.mapAccumEffect(() => StreamParts.initial(call.request.model), stepped(call)),
          Stream.catchCause((cause) => failureOf(call, cause)),
          // A stream that ended with no request through the guard came from an unguarded client.
          Stream.concat(Stream.fromEffectDrain(unguarded(call))),
          Stream.provideContext(context)
        )
    })
  )

/**
 * A provider from a `LanguageModel` service value and the proof that its
 * client is guarded (the `SingleRequest.Guarded` service).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromLanguageModel = (
  model: LanguageModel.LanguageModel,
  guarded: SingleRequest.Service,
  options: Options = {}
): ModelProvider.Service => {
  const name = options.name ?? "effect-ai"
  return ModelProvider.make(name, (request) =>
    Stream.unwrap(
      Effect.map(Effect.all([SingleRequest.makeAttempt, Ref.make(false)]), ([attempt, emitted]) =>
        streamOf(model, { name, request, options, guarded, attempt, emitted })
      )
    )
  )
}

/**
 * A provider from the `LanguageModel` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options?: Options
): Effect.Effect<ModelProvider.Service, never, LanguageModel.LanguageModel | SingleRequest.Guarded> =>
  Effect.zipWith(LanguageModel.LanguageModel, SingleRequest.Guarded, (model, guarded) =>
    fromLanguageModel(model, guarded, options)
  )

/**
 * The kernel's `ModelProvider`, from the `LanguageModel` in context.
 *
 * @example
 * ```ts
 * import { LanguageModelProvider, SingleRequest } from "@agent-kernel/ai"
 * import { Effect, Layer, Stream } from "effect"
 * import { LanguageModel } from "effect/ai"
 *
 * // A LanguageModel that answers from memory: it sends no HTTP, so its proof is layerNoHttp.
 * const InMemory = Layer.effect(
 *   LanguageModel.LanguageModel,
 *   LanguageModel.make({
 *     generateText: () => Effect.succeed([]),
 *     streamText: () =>
 *       Stream.make(
 *         { type: "text-delta", id: "t", delta: "Hello." },
 *         { type: "finish", reason: "stop", usage: { inputTokens: {}, outputTokens: {} } }
 *       )
 *   })
 * )
 * const ModelLive = LanguageModelProvider.layer({ name: "in-memory" }).pipe(
 *   Layer.provide(InMemory),
 *   Layer.provide(SingleRequest.layerNoHttp)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<ModelProvider.ModelProvider, never, LanguageModel.LanguageModel | SingleRequest.Guarded> =>
  Layer.effect(ModelProvider.ModelProvider, make(options))
