/**
 * Arbitraries (Effect's `effect/Arbitrary`) for model errors, fault
 * sequences and settings, for property tests of policies and of the kernel;
 * and for streaming: responses, their parts cut at arbitrary boundaries, and
 * model calls whose attempts fail mid-stream. Pass them to `@effect/vitest`'s
 * `it.prop`/`it.effect.prop`, `Arbitrary.checkEffect` or `Arbitrary.sampleEffect`.
 *
 * @since 0.1.0
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Content from "../Content.js"
import * as ModelError from "../ModelError.js"
import type * as ModelProvider from "../ModelProvider.js"
import * as ResponsePart from "../ResponsePart.js"
import * as Settings from "../Settings.js"

/**
 * Integers from `minimum` to `maximum`, both included; shrinks towards the
 * one nearest zero.
 *
 * @since 0.4.0
 * @category arbitraries
 */
export const integer = (minimum: number, maximum: number): Arbitrary.Arbitrary<number> =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))

/** Finite numbers in [min, max]. */
const double = (minimum: number, maximum: number): Arbitrary.Arbitrary<number> =>
  Arbitrary.schema(Schema.Finite.check(Schema.isBetween({ minimum, maximum })))

const boolean: Arbitrary.Arbitrary<boolean> = Arbitrary.schema(Schema.Boolean)

/** Strings of `minLength` to `maxLength` printable ASCII characters (quotes and backslashes included). */
const string = (options: { readonly minLength?: number; readonly maxLength: number }): Arbitrary.Arbitrary<string> =>
  Arbitrary.schema(
    Schema.String.check(
      Schema.isPattern(/^[ -~]*$/),
      Schema.isMinLength(options.minLength ?? 0),
      Schema.isMaxLength(options.maxLength)
    )
  )

/** One of the values, each as likely; shrinks towards the first. */
const constantFrom = <const A>(values: ReadonlyArray<A>): Arbitrary.Arbitrary<A> =>
  Arbitrary.map(integer(0, values.length - 1), (index) => values[index] as A)

/**
 * One of the arbitraries, drawn by weight. Every choice is drawn and the
 * weighted index picks one, so each shrinks on its own: the index towards
 * the first choice (a counterexample loses what it does not need when the
 * first is the plain case), the picked value within its choice.
 */
const weighted = <A>(
  ...choices: ReadonlyArray<readonly [weight: number, arbitrary: Arbitrary.Arbitrary<A>]>
): Arbitrary.Arbitrary<A> => {
  // Where each choice's share of the draws ends.
  let total = 0
  const ends = choices.map(([weight]) => (total += weight))
  const index = Arbitrary.map(integer(0, total - 1), (draw) => ends.findIndex((end) => draw < end))
  return Arbitrary.map(
    Arbitrary.all([index, Arbitrary.all(choices.map(([, arbitrary]) => arbitrary))]),
    ([picked, values]) => values[picked] as A
  )
}

/** The value in `weight` cases out of `weight + 1`, else `undefined`. */
const sometimesUndefined = <A>(arbitrary: Arbitrary.Arbitrary<A>, undefinedWeight = 1, weight = 5) =>
  weighted<A | undefined>([undefinedWeight, Arbitrary.Constant(undefined)], [weight, arbitrary])

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
export const modelError = (options: ModelErrorOptions = {}): Arbitrary.Arbitrary<ModelError.ModelError> => {
  const categories = options.categories ?? ModelError.Category.literals
  const longest = options.maxRetryAfterMs ?? 120_000
  const none = Arbitrary.Constant(undefined)
  const retryAfter: Arbitrary.Arbitrary<number | undefined> =
    options.retryAfter === false
      ? none
      : weighted<number | undefined>(
          // No hint first: a counterexample loses a hint it does not need.
          [4, none],
          [4, integer(0, Math.min(1_000, longest))],
          [2, integer(0, longest)]
        )
  const retryable: Arbitrary.Arbitrary<false | undefined> =
    options.notRetryable === false ? none : weighted<false | undefined>([9, none], [1, Arbitrary.Constant(false)])
  const midStream: Arbitrary.Arbitrary<true | undefined> =
    options.midStream === false ? none : weighted<true | undefined>([3, none], [1, Arbitrary.Constant(true)])
  return Arbitrary.all({
    category: constantFrom(categories),
    retryAfterMs: retryAfter,
    retryable,
    midStream,
    status: sometimesUndefined(integer(400, 599))
  }).pipe(
    Arbitrary.map(({ category, retryAfterMs, retryable, midStream, status }) =>
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
): Arbitrary.Arbitrary<ReadonlyArray<Fault>> => {
  const maxLength = options.maxLength ?? 12
  const transient = ModelError.Category.literals.filter(
    (category) => ModelError.reactionOf(category) === "retry" && (options.categories?.includes(category) ?? true)
  )
  const single = Arbitrary.map(modelError(options), (error): ReadonlyArray<Fault> => [error])
  const burst =
    transient.length === 0
      ? single
      : Arbitrary.map(
          Arbitrary.all([modelError({ ...options, categories: transient }), integer(1, 6)]),
          ([error, length]): ReadonlyArray<Fault> => Array.from({ length }, () => error)
        )
  return Arbitrary.map(
    Arbitrary.array(weighted<ReadonlyArray<Fault>>([4, burst], [1, single], [1, Arbitrary.Constant(["ok"])]), {
      maxLength
    }),
    (groups): ReadonlyArray<Fault> => groups.flat().slice(0, maxLength)
  )
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
 * set, so runs end on them too: `max_turns` (1 or 2), `max_wall_clock_ms` (1 s
 * to 10 minutes, mostly under 10 s, shorter than many outages' waits) and `max_cost_usd` (a
 * few calls' worth at the generated prices). Unset, a bound keeps its
 * default.
 *
 * @since 0.2.0
 * @category arbitraries
 */
export const bounds = (
  options: SettingsOptions = {}
): Arbitrary.Arbitrary<Pick<Settings.Settings, "max_turns" | "max_wall_clock_ms" | "max_cost_usd" | "prices">> => {
  const sometimes = <A>(arbitrary: Arbitrary.Arbitrary<A>) => sometimesUndefined(arbitrary, 3, 1)
  // ScriptedModel reports 10 input and 5 output tokens a call: at these prices a call costs $0.0002 to $0.02.
  const price = Arbitrary.all({ input_per_mtok: integer(10, 1_000), output_per_mtok: integer(20, 2_000) })
  return Arbitrary.all({
    max_turns: sometimes(integer(1, 2)),
    // Mostly a few seconds, which many generated outages outlast; sometimes up to ten minutes.
    max_wall_clock_ms: sometimes(weighted([3, integer(1_000, 10_000)], [1, integer(10_000, 600_000)])),
    max_cost_usd: sometimes(double(0, 0.05)),
    price
  }).pipe(
    Arbitrary.map(({ max_turns, max_wall_clock_ms, max_cost_usd, price }) => ({
      max_turns: max_turns ?? Settings.defaults.max_turns,
      ...(max_wall_clock_ms !== undefined ? { max_wall_clock_ms } : {}),
      ...(max_cost_usd !== undefined ? { max_cost_usd } : {}),
      prices: Object.fromEntries((options.pricedModels ?? []).map((model) => [model, price]))
    }))
  )
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
export const settings = (options: SettingsOptions = {}): Arbitrary.Arbitrary<Settings.Settings> => {
  const retries = Arbitrary.all({
    base_delay_ms: integer(0, 5_000),
    backoff_factor: double(1, 4),
    max_retries: weighted([1, Arbitrary.Constant(0)], [4, integer(1, 4)], [2, integer(5, 8)]),
    max_delay_ms: integer(0, 60_000),
    jitter: constantFrom(Settings.JitterKind.literals),
    max_retry_wait_ms: weighted([1, integer(0, 2_000)], [3, integer(2_000, 120_000)]),
    max_session_retries: integer(0, 30),
    session_retries_refill: boolean,
    max_context_reductions: integer(0, 4)
  })
  return options.bounds === true
    ? Arbitrary.map(Arbitrary.all([retries, bounds(options)]), ([overrides, limits]) => ({
        ...Settings.defaults,
        ...overrides,
        ...limits
      }))
    : Arbitrary.map(retries, (overrides) => ({ ...Settings.defaults, ...overrides }))
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
): Arbitrary.Arbitrary<ReadonlyArray<Fault>> =>
  Arbitrary.array(
    weighted<Fault>([8, transientError(options)], [1, modelError(options)], [1, Arbitrary.Constant("ok")]),
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
  readonly text?: Arbitrary.Arbitrary<string> | undefined
}

/** An integer as JSON carries it: never -0, which JSON writes as 0. */
const jsonInteger = Arbitrary.map(Arbitrary.schema(Schema.Int), (n) => (Object.is(n, -0) ? 0 : n))

/** A tool input: a small JSON object whose string values may hold quotes and escapes. */
const toolInput: Arbitrary.Arbitrary<Record<string, unknown>> = Arbitrary.map(
  Arbitrary.array(
    Arbitrary.all([
      constantFrom(["word", "n", "flag", "path"]),
      weighted<unknown>([1, string({ maxLength: 12 })], [1, jsonInteger], [1, boolean])
    ]),
    { maxLength: 3 }
  ),
  (entries) => Object.fromEntries(entries)
)

/**
 * A model response as a provider would stream it: maybe a signed thinking
 * block, then text, then tool calls (ids `call_0`, `call_1`, ...).
 *
 * @since 0.3.0
 * @category arbitraries
 */
export const response = (options: ResponseOptions = {}): Arbitrary.Arbitrary<ModelProvider.ModelResponse> => {
  const thinking =
    options.thinking === false
      ? Arbitrary.Constant(undefined)
      : sometimesUndefined(
          Arbitrary.all({
            thinking: string({ minLength: 1, maxLength: 30 }),
            signature: string({ minLength: 1, maxLength: 8 })
          })
        )
  const name = options.toolName ?? "echo"
  return Arbitrary.all({
    thinking,
    text: options.text ?? string({ maxLength: 60 }),
    inputs: Arbitrary.array(toolInput, { maxLength: options.maxToolCalls ?? 2 })
  }).pipe(
    Arbitrary.map(
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
export const pieces = (text: string, maxPieces = 8): Arbitrary.Arbitrary<ReadonlyArray<string>> =>
  text.length <= 1 || maxPieces <= 1
    ? Arbitrary.Constant([text])
    : Arbitrary.map(
        Arbitrary.array(integer(1, text.length - 1), { maxLength: Math.min(maxPieces - 1, text.length - 1) }),
        (cuts) => {
          const at = [0, ...[...new Set(cuts)].sort((a, b) => a - b), text.length]
          return at.slice(1).map((end, i) => text.slice(at[i], end))
        }
      )

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
): Arbitrary.Arbitrary<ReadonlyArray<ResponsePart.ResponsePart>> =>
  Arbitrary.map(
    Arbitrary.all(
      ResponsePart.fromResponse(response).map((part): Arbitrary.Arbitrary<ReadonlyArray<ResponsePart.ResponsePart>> => {
        const text = deltaText(part)
        return text === undefined
          ? Arbitrary.Constant([part])
          : Arbitrary.map(pieces(text, options.maxPieces), (cut) => cut.map((piece) => withDelta(part, piece)))
      })
    ),
    (groups): ReadonlyArray<ResponsePart.ResponsePart> => groups.flat()
  )

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
): Arbitrary.Arbitrary<StreamedCall> => {
  const transient = ModelError.Category.literals.filter((category) => ModelError.reactionOf(category) === "retry")
  const attempt = Arbitrary.flatMap(response(options), (answer) =>
    Arbitrary.map(chunked(answer, options), (parts) => ({ answer, parts }))
  )
  const failedAttempt = Arbitrary.map(
    Arbitrary.all([
      attempt,
      constantFrom(transient),
      // Half of the failures come early (before or at the first parts), the rest anywhere.
      weighted([1, integer(0, 2)], [1, integer(0, Number.MAX_SAFE_INTEGER)])
    ]),
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
  return Arbitrary.map(
    Arbitrary.all([Arbitrary.array(failedAttempt, { maxLength: options.maxFailures ?? 3 }), attempt]),
    ([failed, last]) => ({
      attempts: [...failed, { parts: last.parts, failure: undefined }],
      response: last.answer
    })
  )
}

/**
 * What a property's cases reached: how many cases ran, and the share of
 * them (0 to 1) that reached each label.
 *
 * @since 0.4.0
 * @category models
 */
export interface Reach {
  readonly cases: number
  readonly share: (label: string) => number
  /** Every label with its share, for an assertion's message: `open 41 %, half-open 35 % of 100 cases`. */
  readonly summary: string
}

/**
 * A property failed on a case. The message names the shrunk case and the
 * replay token.
 *
 * @since 0.4.0
 * @category errors
 */
export class PropertyFalsified extends Data.TaggedError("PropertyFalsified")<{ readonly message: string }> {}

/**
 * Checks a property as `Arbitrary.checkEffect` does, and measures what its
 * cases reach. The property returns the labels of what its case reached
 * (say `"open"` when a call came while a breaker was open); a failed
 * assertion in it falsifies the case, which is shrunk and reported. Assert
 * on the shares that the property reaches the cases it names: a generator
 * that stops producing them then fails the test instead of passing it
 * vacuously.
 *
 * @example
 * ```ts
 * import { Arbitraries } from "@agent-kernel/kernel/testing"
 * import * as Effect from "effect/Effect"
 *
 * // Fails with PropertyFalsified if a case breaks the property; else `reach.share("retried")` is about 0.9.
 * const program = Effect.gen(function* () {
 *   const reach = yield* Arbitraries.checkReach(Arbitraries.integer(0, 9), (retries) =>
 *     Effect.succeed(retries > 0 ? ["retried"] : [])
 *   )
 *   return reach.summary
 * })
 * ```
 *
 * @since 0.4.0
 * @category checking
 */
export const checkReach = <A, E, R>(
  arbitrary: Arbitrary.Arbitrary<A>,
  property: (value: A) => Effect.Effect<Iterable<string>, E, R>,
  options?: Arbitrary.CheckOptions
): Effect.Effect<Reach, PropertyFalsified, R> =>
  Effect.suspend(() => {
    const counts = new Map<string, number>()
    let cases = 0
    const tally = (labels: Iterable<string>) => {
      cases++
      for (const label of new Set(labels)) counts.set(label, (counts.get(label) ?? 0) + 1)
      return true
    }
    const checked = (value: A) =>
      property(value).pipe(
        Effect.map(tally),
        Effect.catchDefect((defect) => Effect.fail(defect))
      )
    return Effect.flatMap(Arbitrary.checkEffect(arbitrary, checked, options), (result) => {
      if (result._tag !== "Passed")
        return Effect.fail(new PropertyFalsified({ message: Arbitrary.formatCheckFailure(result) ?? result._tag }))
      const share = (label: string) => (cases === 0 ? 0 : (counts.get(label) ?? 0) / cases)
      const shares = [...counts.keys()].map((label) => `${label} ${Math.round(share(label) * 100)} %`)
      return Effect.succeed({ cases, share, summary: `${shares.join(", ") || "nothing"} of ${cases} cases` })
    })
  })
