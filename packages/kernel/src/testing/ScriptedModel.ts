/**
 * A scripted model provider for tests: each call takes the next step of a
 * script (a response, an error, or a function of the request), and every
 * request is recorded.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as Content from "../Content.js"
import * as Log from "../internal/log.js"
import * as ModelError from "../ModelError.js"
import * as ModelProvider from "../ModelProvider.js"
import * as ResponsePart from "../ResponsePart.js"

/**
 * One step of a script.
 *
 * @since 0.1.0
 * @category models
 */
export type Step =
  | ModelProvider.ModelResponse
  | ModelError.ModelError
  | Streamed
  | ((request: ModelProvider.ModelRequest) => Effect.Effect<ModelProvider.ModelResponse, ModelError.ModelError>)

/**
 * A streamed step: these parts, the first after `firstPartMs` and each next
 * one `gapMs` after the last, on the Clock (so a test drives them with
 * `TestClock`), then the end of the stream or, with `failure`, the stream
 * failing mid-way.
 *
 * @since 0.3.0
 * @category models
 */
export interface Streamed {
  readonly _tag: "Streamed"
  readonly parts: ReadonlyArray<ResponsePart.ResponsePart>
  readonly gapMs: number
  /** The wait before the first part: the model's time to first token. */
  readonly firstPartMs: number
  readonly failure: ModelError.ModelError | undefined
}

/**
 * How a streamed step is paced, on the Clock: `gapMs` before each part
 * (default 0), and `firstPartMs` before the first instead (default `gapMs`).
 *
 * @since 0.3.0
 * @category models
 */
export interface Pacing {
  readonly gapMs?: number | undefined
  readonly firstPartMs?: number | undefined
}

/**
 * A streamed step from its parts.
 *
 * @since 0.3.0
 * @category steps
 */
export const streamed = (
  parts: ReadonlyArray<ResponsePart.ResponsePart>,
  options: Pacing & { readonly failure?: ModelError.ModelError | undefined } = {}
): Streamed => ({
  _tag: "Streamed",
  parts,
  gapMs: options.gapMs ?? 0,
  firstPartMs: options.firstPartMs ?? options.gapMs ?? 0,
  failure: options.failure
})

/**
 * A response streamed with its text cut into the given chunk sizes (the
 * last chunk takes the rest), optionally failing after `failAfter` parts.
 *
 * @since 0.3.0
 * @category steps
 */
export const chunked = (
  response: ModelProvider.ModelResponse,
  sizes: ReadonlyArray<number>,
  options: Pacing & { readonly failAfter?: number; readonly failure?: ModelError.ModelError } = {}
): Streamed => {
  const parts = ResponsePart.fromResponse(response).flatMap((part): ReadonlyArray<ResponsePart.ResponsePart> => {
    if (part.type !== "text_delta" && part.type !== "thinking_delta") return [part]
    const pieces: Array<ResponsePart.ResponsePart> = []
    let at = 0
    for (const size of sizes) {
      if (at >= part.text.length) break
      pieces.push({ ...part, text: part.text.slice(at, at + Math.max(1, size)) })
      at += Math.max(1, size)
    }
    if (at < part.text.length || pieces.length === 0) pieces.push({ ...part, text: part.text.slice(at) })
    return pieces
  })
  const failure =
    options.failAfter === undefined ? undefined : (options.failure ?? error("overloaded", { midStream: true }))
  return streamed(options.failAfter === undefined ? parts : parts.slice(0, options.failAfter), {
    gapMs: options.gapMs,
    firstPartMs: options.firstPartMs,
    failure
  })
}

const isStreamed = (step: Step): step is Streamed =>
  typeof step === "object" && "_tag" in step && step._tag === "Streamed"

const streamOf = (step: Streamed): Stream.Stream<ResponsePart.ResponsePart, ModelError.ModelError> => {
  const parts = Stream.fromIterable(step.parts)
  const paced =
    step.gapMs > 0 || step.firstPartMs > 0
      ? Stream.tap(Stream.zipWithIndex(parts), ([, i]) =>
          Effect.sleep(Duration.millis(i === 0 ? step.firstPartMs : step.gapMs))
        ).pipe(Stream.map(([part]) => part))
      : parts
  return step.failure === undefined ? paced : Stream.concat(paced, Stream.fail(step.failure))
}

/**
 * A scripted model and what it recorded.
 *
 * @since 0.1.0
 * @category models
 */
export interface ScriptedModel {
  readonly provider: ModelProvider.Service
  readonly layer: Layer.Layer<ModelProvider.ModelProvider>
  /** Every request received, in order. */
  readonly requests: Effect.Effect<ReadonlyArray<ModelProvider.ModelRequest>>
  /** Every request with the Clock time (ms) it arrived at. */
  readonly calls: Effect.Effect<ReadonlyArray<Call>>
}

/**
 * A recorded call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Call {
  readonly at: number
  readonly request: ModelProvider.ModelRequest
}

/**
 * Makes a scripted model. Calls past the end of the script fail with an
 * `Unknown` error that says so.
 *
 * @example
 * ```ts
 * import { Session } from "@agent-kernel/kernel"
 * import { ScriptedModel } from "@agent-kernel/kernel/testing"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const model = yield* ScriptedModel.make([ScriptedModel.rateLimited({ retryAfterMs: 2000 }), ScriptedModel.text("hi")])
 *   const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
 *   return yield* session.run("hello")
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  script: ReadonlyArray<Step>,
  options: { readonly name?: string } = {}
): Effect.Effect<ScriptedModel> =>
  Effect.gen(function* () {
    // Append-only: recording a call costs the same on the thousandth call as on the first.
    const recorded = yield* Ref.make(Log.empty<Call>())
    const name = options.name ?? "scripted"
    const take = (request: ModelProvider.ModelRequest) =>
      Effect.flatMap(Clock.currentTimeMillis, (at) =>
        Ref.modify(recorded, (log) => [log.length, Log.append(log, { at, request })] as const)
      )
    const answer = (
      request: ModelProvider.ModelRequest,
      index: number
    ): Effect.Effect<ModelProvider.ModelResponse, ModelError.ModelError> => {
      const step = script[index]
      if (step === undefined)
        return Effect.fail(
          new ModelError.Unknown({
            provider: name,
            model: request.model,
            message: `ScriptedModel: no step scripted for call ${index + 1} (the script has ${script.length})`
          })
        )
      if (typeof step === "function") return step(request)
      if (isStreamed(step))
        return ModelProvider.generate(
          ModelProvider.make(name, () => streamOf(step)),
          request
        )
      if (ModelError.isModelError(step)) return Effect.fail(step)
      return Effect.succeed({ ...step, model: request.model })
    }
    // A script with streamed steps streams every step; one without keeps the cheap one-shot call.
    const provider = script.some(isStreamed)
      ? ModelProvider.make(name, (request) =>
          Stream.unwrap(
            Effect.map(take(request), (index) => {
              const step = script[index]
              return step !== undefined && isStreamed(step)
                ? streamOf(step)
                : Stream.flatMap(Stream.fromEffect(answer(request, index)), (response) =>
                    Stream.fromIterable(ResponsePart.fromResponse(response))
                  )
            })
          )
        )
      : ModelProvider.fromGenerate(name, (request) => Effect.flatMap(take(request), (index) => answer(request, index)))
    return {
      provider,
      layer: Layer.succeed(ModelProvider.ModelProvider, provider),
      requests: Effect.map(Ref.get(recorded), (log) => Log.toArray(log).map((call) => call.request)),
      calls: Effect.map(Ref.get(recorded), Log.toArray)
    }
  })

const usage: ModelProvider.Usage = { input_tokens: 10, output_tokens: 5 }

/**
 * A response that ends the turn with text.
 *
 * @since 0.1.0
 * @category steps
 */
export const text = (value: string, extra: Partial<ModelProvider.ModelResponse> = {}): ModelProvider.ModelResponse => ({
  model: "scripted",
  content: [Content.text(value)],
  stop_reason: "end_turn",
  usage,
  ...extra
})

/**
 * A response asking for one or more tool calls.
 *
 * @since 0.1.0
 * @category steps
 */
export const toolCalls = (
  ...calls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly input?: unknown }>
): ModelProvider.ModelResponse => ({
  model: "scripted",
  content: calls.map((call) => Content.toolUse(call.id, call.name, call.input ?? {})),
  stop_reason: "tool_use",
  usage
})

/**
 * A refusal: partial text stopped by the content filter.
 *
 * @since 0.1.0
 * @category steps
 */
export const refusal = (partial = ""): ModelProvider.ModelResponse => ({
  model: "scripted",
  content: partial.length > 0 ? [Content.text(partial)] : [],
  stop_reason: "content_filtered",
  usage
})

/**
 * An error of the given category.
 *
 * @since 0.1.0
 * @category steps
 */
export const error = (
  category: ModelError.Category,
  fields: Partial<ModelError.ModelErrorFields> & { readonly retryAfterMs?: number } = {}
): ModelError.ModelError => {
  const { retryAfterMs, ...rest } = fields
  return ModelError.make(category, {
    provider: "scripted",
    model: "scripted",
    message: `scripted ${category}`,
    ...rest,
    ...(retryAfterMs !== undefined ? { retryAfter: Duration.millis(retryAfterMs) } : {})
  })
}

/**
 * A 429 rate limit, optionally with a retry-after.
 *
 * @since 0.1.0
 * @category steps
 */
export const rateLimited = (options: { readonly retryAfterMs?: number } = {}): ModelError.ModelError =>
  error("rate_limited", { status: 429, ...options })

/**
 * A context overflow with the provider's counts.
 *
 * @since 0.1.0
 * @category steps
 */
export const contextOverflow = (promptTokens?: number, maxTokens?: number): ModelError.ModelError =>
  new ModelError.ContextLengthExceeded({
    provider: "scripted",
    model: "scripted",
    message:
      promptTokens !== undefined && maxTokens !== undefined
        ? `prompt is too long: ${promptTokens} tokens > ${maxTokens} maximum`
        : "prompt is too long",
    status: 400,
    ...(promptTokens !== undefined ? { promptTokens } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {})
  })
