/**
 * A kernel `ModelProvider` from an @effect/ai `LanguageModel`, so an Effect
 * AI model layer (Anthropic, OpenAI, or any other) gets the kernel's
 * recovery: one retry layer, the retry-after floor, no retry and no
 * fallback on auth and quota errors, context reduction on overflow, the
 * content filter surfaced.
 *
 * Each call is one `LanguageModel.streamText` call, its parts mapped to the
 * kernel's `ResponsePart`s as they arrive (the one-shot
 * `ModelProvider.generate` folds them):
 * - the request's system prompt, messages (text, tool calls, tool results,
 *   thinking with its Anthropic signature) and tools (their JSON Schema, as
 *   given) become a `Prompt` and a toolkit that only describes the tools:
 *   `disableToolCallResolution` is always set, since the kernel runs tools;
 * - the answer's text, thinking (its signature; redacted thinking kept
 *   whole), tool calls, usage (cache reads and, for Anthropic, cache writes)
 *   and finish reason become response parts;
 * - an `AiError` becomes a `ModelError` through `AiErrors.toModelError`;
 * - the attempt runs under `SingleRequest.CurrentAttempt`, so a client built
 *   on `SingleRequest.layer` sends exactly one request, whatever retry sits
 *   above its `HttpClient`.
 *
 * The model and `max_output_tokens` of a request are provider settings in
 * @effect/ai (`AnthropicLanguageModel.withConfigOverride`,
 * `OpenAiLanguageModel.withConfigOverride`), so `configure` applies them.
 * Without it, the layer's own model answers every request (fallback models
 * do not switch it), and a request that sets `max_output_tokens` or any
 * request option (`temperature`, `top_p`, `top_k`, `stop_sequences`,
 * `tool_choice`, `parallel_tool_calls`, `thinking`, `reasoning_effort`,
 * `metadata`, `extra`) is refused as `invalid_request`, naming the option,
 * rather than sent without it. With it, `configure` receives the whole
 * request and applies what it supports.
 *
 * @since 0.1.0
 */
import { ModelError, ModelProvider } from "@agent-kernel/kernel"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as AiErrors from "./AiErrors.js"
import * as Prompt from "./internal/prompt.js"
import * as StreamParts from "./internal/streamParts.js"
import * as SingleRequest from "./SingleRequest.js"

/**
 * Applies a request's settings to one `generateText` call, typically with
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
  /** Which classification table reads HTTP failures. Default: from the @effect/ai client's module. */
  readonly dialect?: AiErrors.Dialect | undefined
  /** Applies the request's model and `max_output_tokens`; see the module docs. */
  readonly configure?: Configure | undefined
  /**
   * Secrets to redact from errors. The credentials a request carried are
   * redacted anyway when the client is built on `SingleRequest.layer`.
   */
  readonly redact?: ReadonlyArray<Redacted.Redacted<string>> | undefined
}

/**
 * The request options that are provider settings in @effect/ai (its
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
  "the @effect/ai client answered, but no request passed SingleRequest's guard: build the client on SingleRequest.layer, or its own retries multiply the kernel's"

const blockedNote =
  "a retry layer above the HttpClient tried to re-send within one kernel attempt; SingleRequest stopped it, so the kernel stays the one retry layer"

/**
 * A provider from a `LanguageModel` service value and the proof that its
 * client is guarded (the `SingleRequest.Guarded` service).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromLanguageModel = (
  model: LanguageModel.Service,
  guarded: SingleRequest.Service,
  options: Options = {}
): ModelProvider.Service => {
  const name = options.name ?? "effect-ai"
  return ModelProvider.make(name, (request) =>
    Stream.unwrap(
      Effect.gen(function* () {
        const attempt = yield* SingleRequest.makeAttempt
        const emitted = yield* Ref.make(false)
        // An HTTP answer (or HTTP error) that no request of this attempt sent through the guard.
        const unguarded = Effect.flatMap(Ref.get(attempt.sent), (sent) =>
          guarded.sendsHttp && sent === 0
            ? Effect.fail(
                ModelError.make("unknown", {
                  provider: name,
                  model: request.model,
                  message: "the @effect/ai client is not built on SingleRequest.layer",
                  details: { rule: "effect_ai.unguarded_client", note: unguardedNote }
                })
              )
            : Effect.void
        )
        // A failure after some parts was mid-stream: the kernel restarts the whole request.
        const errorOptions = Effect.map(
          Effect.all([Ref.get(attempt.credentials), Ref.get(emitted)]),
          ([credentials, midStream]): AiErrors.Options => ({
            provider: name,
            model: request.model,
            dialect: options.dialect,
            redact: [...(options.redact ?? []), ...credentials],
            midStream
          })
        )
        const refuse = (message: string, details: Record<string, unknown>) =>
          Effect.fail(ModelError.make("invalid_request", { provider: name, model: request.model, message, details }))
        if (options.configure === undefined && request.max_output_tokens !== undefined) {
          return yield* refuse("max_output_tokens needs the adapter's configure option to reach the provider", {
            rule: "effect_ai.max_output_tokens_unconfigured"
          })
        }
        const unconfigured = configuredOptions.find((option) => request[option] !== undefined)
        if (options.configure === undefined && unconfigured !== undefined) {
          return yield* refuse(
            `${unconfigured} is not supported by ${name} without the adapter's configure option to reach the provider`,
            { rule: "request.unsupported_option", option: unconfigured, provider: name }
          )
        }
        const converted = Prompt.fromRequest(request)
        if (Either.isLeft(converted)) {
          return yield* refuse(`cannot express the request as an @effect/ai prompt: ${converted.left.reason}`, {
            rule: "effect_ai.prompt",
            message_index: converted.left.message
          })
        }
        // The request's settings (the provider's config override) and the attempt, as the context the stream runs in.
        const configure = options.configure?.(request) ?? (<A, E, R>(self: Effect.Effect<A, E, R>) => self)
        const context = Context.add(yield* configure(Effect.context<never>()), SingleRequest.CurrentAttempt, attempt)
        return model
          .streamText({
            prompt: converted.right.prompt,
            toolkit: converted.right.toolkit,
            disableToolCallResolution: true
          })
          .pipe(
            Stream.mapAccumEffect(StreamParts.initial(request.model), (state, part) => {
              const stepped = StreamParts.step(state, part)
              switch (stepped._tag) {
                case "Parts":
                  return stepped.parts.length === 0
                    ? Effect.succeed([stepped.state, stepped.parts] as const)
                    : Effect.as(Ref.set(emitted, true), [stepped.state, stepped.parts] as const)
                case "FinishedWithError":
                  return Effect.fail(
                    ModelError.make("unknown", {
                      provider: name,
                      model: request.model,
                      message: 'the provider finished with reason "error"',
                      usage: stepped.usage,
                      details: {
                        rule: "effect_ai.finish.error",
                        note: "a finish reason of error carries no cause; not retried"
                      }
                    })
                  )
                case "ErrorPart":
                  return Effect.flatMap(errorOptions, (mapping) =>
                    Effect.flatMap(AiErrors.fromStreamError(stepped.error, mapping), Effect.fail)
                  )
              }
            }),
            Stream.flattenIterables,
            Stream.catchAllCause((cause) => {
              const failure = Cause.failureOrCause(cause)
              if (Either.isLeft(failure)) {
                const error = failure.left
                return ModelError.isModelError(error)
                  ? Stream.fail(error)
                  : Stream.fromEffect(
                      Effect.zipRight(
                        error._tag === "HttpRequestError" || error._tag === "HttpResponseError"
                          ? unguarded
                          : Effect.void,
                        Effect.flatMap(errorOptions, (mapping) =>
                          Effect.flatMap(AiErrors.toModelError(error, mapping), Effect.fail)
                        )
                      )
                    )
              }
              const resend = Cause.find(cause, (reason) =>
                reason._tag === "Die" && SingleRequest.isResendBlocked(reason.defect)
                  ? Option.some(reason)
                  : Option.none()
              )
              return Option.isSome(resend)
                ? Stream.fromEffect(Effect.flatMap(errorOptions, (mapping) => blocked(attempt, mapping)))
                : Stream.failCause(failure.right)
            }),
            // A stream that ended with no request through the guard came from an unguarded client.
            Stream.concat(Stream.drain(Stream.fromEffect(unguarded))),
            Stream.provideContext(context)
          )
      })
    )
  )
}

const blocked = (attempt: SingleRequest.Attempt, options: AiErrors.Options) =>
  Effect.flatMap(Ref.get(attempt.firstFailure), (first) =>
    Effect.flatMap(
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
      }),
      Effect.fail
    )
  )

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
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<ModelProvider.ModelProvider, never, LanguageModel.LanguageModel | SingleRequest.Guarded> =>
  Layer.effect(ModelProvider.ModelProvider, make(options))
