/**
 * fast-check arbitraries (through effect's `FastCheck`) for model errors,
 * fault sequences and settings, for property tests of policies and of the
 * kernel; and for streaming: responses, their parts cut at arbitrary
 * boundaries, and model calls whose attempts fail mid-stream.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as FastCheck from "effect/FastCheck"
import * as Content from "../Content.js"
import * as ModelError from "../ModelError.js"
import type * as ModelProvider from "../ModelProvider.js"
import * as ResponsePart from "../ResponsePart.js"
import * as Settings from "../Settings.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ModelErrorOptions {
  /** Which categories to draw from. Default: all. */
  readonly categories?: ReadonlyArray<ModelError.Category> | undefined
  /** Whether errors may carry a retryAfter. Default true. */
  readonly retryAfter?: boolean | undefined
  /**
   * The largest retryAfter, in milliseconds. Default 120000. Most hints are
   * short (up to a second, what servers usually send); some reach this.
   */
  readonly maxRetryAfterMs?: number | undefined
  /** Whether errors may be marked `retryable: false` (the server said not to retry). Default true. */
  readonly notRetryable?: boolean | undefined
  /** Whether errors may have failed mid-stream, after a 200. Default true. */
  readonly midStream?: boolean | undefined
}

/**
 * Any model error, with or without a retryAfter (mostly short hints, a few
 * long ones), sometimes marked not retryable, sometimes failed mid-stream.
 *
 * @since 0.1.0
 * @category arbitraries
 */
export const modelError = (options: ModelErrorOptions = {}): FastCheck.Arbitrary<ModelError.ModelError> => {
  const categories = options.categories ?? ModelError.Category.literals
  const longest = options.maxRetryAfterMs ?? 120_000
  const retryAfter =
    options.retryAfter === false
      ? FastCheck.constant(undefined)
      : FastCheck.oneof(
          // Cross-shrinking towards the first arbitrary: a counterexample loses a hint it does not need.
          { withCrossShrink: true },
          { arbitrary: FastCheck.constant(undefined), weight: 4 },
          { arbitrary: FastCheck.integer({ min: 0, max: Math.min(1_000, longest) }), weight: 4 },
          { arbitrary: FastCheck.integer({ min: 0, max: longest }), weight: 2 }
        )
  const retryable =
    options.notRetryable === false
      ? FastCheck.constant(undefined)
      : FastCheck.oneof(
          { withCrossShrink: true },
          { arbitrary: FastCheck.constant(undefined), weight: 9 },
          { arbitrary: FastCheck.constant(false), weight: 1 }
        )
  const midStream =
    options.midStream === false
      ? FastCheck.constant(undefined)
      : FastCheck.oneof(
          { withCrossShrink: true },
          { arbitrary: FastCheck.constant(undefined), weight: 3 },
          { arbitrary: FastCheck.constant(true), weight: 1 }
        )
  return FastCheck.record({
    category: FastCheck.constantFrom(...categories),
    retryAfterMs: retryAfter,
    retryable,
    midStream,
    status: FastCheck.option(FastCheck.integer({ min: 400, max: 599 }), { nil: undefined })
  }).map(({ category, retryAfterMs, retryable, midStream, status }) =>
    ModelError.make(category, {
      provider: "arbitrary",
      model: "arbitrary",
      message: `arbitrary ${category}`,
      status,
      retryable,
      midStream,
      retryAfter: retryAfterMs === undefined ? undefined : Duration.millis(retryAfterMs)
    })
  )
}

/**
 * Transient errors only (the categories the kernel retries).
 *
 * @since 0.1.0
 * @category arbitraries
 */
export const transientError = (options: Omit<ModelErrorOptions, "categories"> = {}) =>
  modelError({
    ...options,
    categories: ModelError.Category.literals.filter((category) => ModelError.reactionOf(category) === "retry")
  })

/**
 * A fault: an error, or `"ok"` for a successful call.
 *
 * @since 0.1.0
 * @category models
 */
export type Fault = ModelError.ModelError | "ok"

/**
 * A sequence of faults shaped like real trouble: bursts of one transient
 * error (long enough to reach a per-call cap), single errors of any
 * category, and successes.
 *
 * @since 0.1.0
 * @category arbitraries
 */
export const faults = (
  options: ModelErrorOptions & { readonly maxLength?: number | undefined } = {}
): FastCheck.Arbitrary<ReadonlyArray<Fault>> => {
  const maxLength = options.maxLength ?? 12
  const transient = ModelError.Category.literals.filter(
    (category) => ModelError.reactionOf(category) === "retry" && (options.categories?.includes(category) ?? true)
  )
  const burst =
    transient.length === 0
      ? modelError(options).map((error) => [error])
      : FastCheck.tuple(modelError({ ...options, categories: transient }), FastCheck.integer({ min: 1, max: 6 })).map(
          ([error, length]) => Array.from({ length }, () => error)
        )
  return FastCheck.array(
    FastCheck.oneof(
      { arbitrary: burst, weight: 4 },
      { arbitrary: modelError(options).map((error) => [error]), weight: 1 },
      { arbitrary: FastCheck.constant(["ok" as const]), weight: 1 }
    ),
    { maxLength }
  ).map((groups): ReadonlyArray<Fault> => groups.flat().slice(0, maxLength))
}

/**
 * @since 0.2.0
 * @category models
 */
export interface SettingsOptions {
  /**
   * Whether `settings` also generates the run's `bounds` (turns, wall clock,
   * cost). Default false: a property that assumes a run reaches its faults
   * (one request per fault, say) stays true.
   */
  readonly bounds?: boolean | undefined
  /**
   * The models to price in `prices`, so that a generated `max_cost_usd` can
   * be reached: a cost bound counts only the calls of a priced model.
   * Default: none (a cost bound is still generated, and warned about).
   */
  readonly pricedModels?: ReadonlyArray<string> | undefined
}

/**
 * The run's bounds, each set in about a quarter of the cases and small when
 * set, so runs end on them too: `max_turns` (1 or 2), `max_wall_clock_ms` (5 s
 * to 10 minutes, shorter than many outages' waits) and `max_cost_usd` (a
 * few calls' worth at the generated prices). Unset, a bound keeps its
 * default.
 *
 * @since 0.2.0
 * @category arbitraries
 */
export const bounds = (
  options: SettingsOptions = {}
): FastCheck.Arbitrary<Pick<Settings.Settings, "max_turns" | "max_wall_clock_ms" | "max_cost_usd" | "prices">> => {
  const sometimes = <A>(arbitrary: FastCheck.Arbitrary<A>) =>
    FastCheck.oneof(
      { withCrossShrink: true },
      { arbitrary: FastCheck.constant(undefined), weight: 3 },
      { arbitrary, weight: 1 }
    )
  // ScriptedModel reports 10 input and 5 output tokens a call: at these prices a call costs $0.0002 to $0.02.
  const price = FastCheck.record({
    input_per_mtok: FastCheck.integer({ min: 10, max: 1_000 }),
    output_per_mtok: FastCheck.integer({ min: 20, max: 2_000 })
  })
  return FastCheck.record({
    max_turns: sometimes(FastCheck.integer({ min: 1, max: 2 })),
    max_wall_clock_ms: sometimes(FastCheck.integer({ min: 5_000, max: 600_000 })),
    max_cost_usd: sometimes(FastCheck.double({ min: 0, max: 0.05, noNaN: true })),
    price
  }).map(({ max_turns, max_wall_clock_ms, max_cost_usd, price }) => ({
    max_turns: max_turns ?? Settings.defaults.max_turns,
    ...(max_wall_clock_ms !== undefined ? { max_wall_clock_ms } : {}),
    ...(max_cost_usd !== undefined ? { max_cost_usd } : {}),
    prices: Object.fromEntries((options.pricedModels ?? []).map((model) => [model, price]))
  }))
}

/**
 * Settings with small, realistic retry figures, valid by construction: caps
 * small enough that generated outages reach them, and a longest wait that is
 * sometimes below the hints and backoffs (so waits past it are met too); and,
 * with `bounds: true`, the run's `bounds`, sometimes set.
 *
 * @since 0.1.0
 * @category arbitraries
 */
export const settings = (options: SettingsOptions = {}): FastCheck.Arbitrary<Settings.Settings> => {
  const retries = FastCheck.record({
    base_delay_ms: FastCheck.integer({ min: 0, max: 5_000 }),
    backoff_factor: FastCheck.double({ min: 1, max: 4, noNaN: true }),
    max_retries: FastCheck.oneof(
      { arbitrary: FastCheck.constant(0), weight: 1 },
      { arbitrary: FastCheck.integer({ min: 1, max: 4 }), weight: 4 },
      { arbitrary: FastCheck.integer({ min: 5, max: 8 }), weight: 2 }
    ),
    max_delay_ms: FastCheck.integer({ min: 0, max: 60_000 }),
    jitter: FastCheck.constantFrom(...Settings.JitterKind.literals),
    max_retry_wait_ms: FastCheck.oneof(
      { arbitrary: FastCheck.integer({ min: 0, max: 2_000 }), weight: 1 },
      { arbitrary: FastCheck.integer({ min: 2_000, max: 120_000 }), weight: 3 }
    ),
    max_session_retries: FastCheck.integer({ min: 0, max: 30 }),
    session_retries_refill: FastCheck.boolean(),
    max_context_reductions: FastCheck.integer({ min: 0, max: 4 })
  })
  // Without bounds, the same draws as before they existed: seeded samples elsewhere stay as they were.
  return options.bounds === true
    ? FastCheck.tuple(retries, bounds(options)).map(([overrides, limits]) => ({
        ...Settings.defaults,
        ...overrides,
        ...limits
      }))
    : retries.map((overrides) => ({ ...Settings.defaults, ...overrides }))
}

/**
 * A fault plan shaped like an outage: mostly transient errors (so retries,
 * per-call caps, fallbacks and the session budget are all reached), some
 * errors of any category, and a few successes.
 *
 * @since 0.1.0
 * @category arbitraries
 */
export const faultPlan = (
  options: Omit<ModelErrorOptions, "categories"> & {
    /** Categories besides the transient ones. Default: all. */
    readonly categories?: ReadonlyArray<ModelError.Category> | undefined
    readonly maxLength?: number | undefined
  } = {}
): FastCheck.Arbitrary<ReadonlyArray<Fault>> =>
  FastCheck.array(
    FastCheck.oneof(
      { arbitrary: transientError(options), weight: 8 },
      { arbitrary: modelError(options), weight: 1 },
      { arbitrary: FastCheck.constant("ok" as const), weight: 1 }
    ),
    { maxLength: options.maxLength ?? 16 }
  )

/**
 * @since 0.3.0
 * @category models
 */
export interface ResponseOptions {
  /** Whether a signed thinking block may open the answer. Default true. */
  readonly thinking?: boolean | undefined
  /** The most tool calls an answer may ask for. Default 2. */
  readonly maxToolCalls?: number | undefined
  /** The tool the calls name. Default `"echo"`. */
  readonly toolName?: string | undefined
  /** The answer's text. Default: up to 60 characters, sometimes none. */
  readonly text?: FastCheck.Arbitrary<string> | undefined
}

/** A tool input: a small JSON object whose string values may hold quotes and escapes. */
const toolInput: FastCheck.Arbitrary<Record<string, unknown>> = FastCheck.dictionary(
  FastCheck.constantFrom("word", "n", "flag", "path"),
  FastCheck.oneof(FastCheck.string({ maxLength: 12 }), FastCheck.integer(), FastCheck.boolean()),
  { maxKeys: 3 }
)

/**
 * A model response as a provider would stream it: maybe a signed thinking
 * block, then text, then tool calls (ids `call_0`, `call_1`, ...).
 *
 * @since 0.3.0
 * @category arbitraries
 */
export const response = (options: ResponseOptions = {}): FastCheck.Arbitrary<ModelProvider.ModelResponse> => {
  const thinking =
    options.thinking === false
      ? FastCheck.constant(undefined)
      : FastCheck.option(
          FastCheck.record({
            thinking: FastCheck.string({ minLength: 1, maxLength: 30 }),
            signature: FastCheck.string({ minLength: 1, maxLength: 8 })
          }),
          { nil: undefined }
        )
  const name = options.toolName ?? "echo"
  return FastCheck.record({
    thinking,
    text: options.text ?? FastCheck.string({ maxLength: 60 }),
    inputs: FastCheck.array(toolInput, { maxLength: options.maxToolCalls ?? 2 })
  }).map(
    ({ thinking, text, inputs }): ModelProvider.ModelResponse => ({
      model: "arbitrary",
      content: [
        ...(thinking === undefined ? [] : [{ type: "thinking" as const, ...thinking }]),
        ...(text.length > 0 ? [Content.text(text)] : []),
        ...inputs.map((input, i) => Content.toolUse(`call_${i}`, name, input))
      ],
      stop_reason: inputs.length > 0 ? "tool_use" : "end_turn",
      usage: { input_tokens: 10, output_tokens: 5 }
    })
  )
}

/**
 * A string cut at arbitrary positions into non-empty pieces, at most
 * `maxPieces` of them; joined, they give the string back. An empty string is
 * one empty piece.
 *
 * @since 0.3.0
 * @category arbitraries
 */
export const pieces = (text: string, maxPieces = 8): FastCheck.Arbitrary<ReadonlyArray<string>> =>
  text.length <= 1 || maxPieces <= 1
    ? FastCheck.constant([text])
    : FastCheck.uniqueArray(FastCheck.integer({ min: 1, max: text.length - 1 }), {
        maxLength: Math.min(maxPieces - 1, text.length - 1)
      }).map((cuts) => {
        const at = [0, ...[...cuts].sort((a, b) => a - b), text.length]
        return at.slice(1).map((end, i) => text.slice(at[i], end))
      })

/** The text a delta part carries, to be cut; undefined for a part that is not cut. */
const deltaText = (part: ResponsePart.ResponsePart): string | undefined => {
  switch (part.type) {
    case "text_delta":
    case "thinking_delta":
      return part.text
    case "tool_input_delta":
      return part.json
    default:
      return undefined
  }
}

const withDelta = (part: ResponsePart.ResponsePart, piece: string): ResponsePart.ResponsePart => {
  switch (part.type) {
    case "text_delta":
    case "thinking_delta":
      return { ...part, text: piece }
    case "tool_input_delta":
      return { ...part, json: piece }
    default:
      return part
  }
}

/**
 * The parts of a response in the order a provider streams them, each text,
 * thinking and tool-input delta cut into arbitrary pieces (a tool's JSON
 * input may be cut anywhere, inside a string or an escape). Folded through
 * `ResponsePart`'s accumulator they give the response back.
 *
 * @since 0.3.0
 * @category arbitraries
 */
export const chunked = (
  response: ModelProvider.ModelResponse,
  options: { readonly maxPieces?: number | undefined } = {}
): FastCheck.Arbitrary<ReadonlyArray<ResponsePart.ResponsePart>> =>
  FastCheck.tuple(
    ...ResponsePart.fromResponse(response).map((part) => {
      const text = deltaText(part)
      return text === undefined
        ? FastCheck.constant([part])
        : pieces(text, options.maxPieces).map((cut) => cut.map((piece) => withDelta(part, piece)))
    })
  ).map((groups): ReadonlyArray<ResponsePart.ResponsePart> => groups.flat())

/**
 * One attempt of a model call as it streams: its parts, then, for an attempt
 * that fails, the error its stream fails with.
 *
 * @since 0.3.0
 * @category models
 */
export interface StreamedAttempt {
  readonly parts: ReadonlyArray<ResponsePart.ResponsePart>
  readonly failure: ModelError.ModelError | undefined
}

/**
 * A model call that streams: attempts that fail mid-stream, then one that
 * completes with `response`.
 *
 * @since 0.3.0
 * @category models
 */
export interface StreamedCall {
  /** The failed attempts, then the last one, which completes. */
  readonly attempts: ReadonlyArray<StreamedAttempt>
  /** What the last attempt answers. */
  readonly response: ModelProvider.ModelResponse
}

/**
 * A streamed model call with up to `maxFailures` (default 3) attempts that
 * fail mid-stream with a transient error the kernel retries (no retry hint),
 * each after an arbitrary number of its parts: before any delta, inside a
 * block, or after its finish. A failed attempt streams its own arbitrary
 * answer (a retry rarely repeats itself); every answer is cut with
 * `chunked`. Feed each attempt to `ScriptedModel.streamed`.
 *
 * @since 0.3.0
 * @category arbitraries
 */
export const streamedCall = (
  options: ResponseOptions & {
    readonly maxFailures?: number | undefined
    readonly maxPieces?: number | undefined
  } = {}
): FastCheck.Arbitrary<StreamedCall> => {
  const transient = ModelError.Category.literals.filter((category) => ModelError.reactionOf(category) === "retry")
  const attempt = response(options).chain((answer) => chunked(answer, options).map((parts) => ({ answer, parts })))
  const failedAttempt = FastCheck.tuple(
    attempt,
    FastCheck.constantFrom(...transient),
    // Half of the failures come early (before or at the first parts), the rest anywhere.
    FastCheck.oneof(FastCheck.integer({ min: 0, max: 2 }), FastCheck.nat())
  ).map(
    ([{ parts }, category, at]): StreamedAttempt => ({
      parts: parts.slice(0, at % (parts.length + 1)),
      failure: ModelError.make(category, {
        provider: "arbitrary",
        model: "arbitrary",
        message: `arbitrary ${category} mid-stream`,
        midStream: true
      })
    })
  )
  return FastCheck.tuple(FastCheck.array(failedAttempt, { maxLength: options.maxFailures ?? 3 }), attempt).map(
    ([failed, last]) => ({
      attempts: [...failed, { parts: last.parts, failure: undefined }],
      response: last.answer
    })
  )
}
