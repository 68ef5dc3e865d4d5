/**
 * fast-check arbitraries (through effect's `FastCheck`) for model errors,
 * fault sequences and settings, for property tests of policies and of the
 * kernel.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as FastCheck from "effect/FastCheck"
import * as ModelError from "../ModelError.js"
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
 * Settings with small, realistic retry figures, valid by construction: caps
 * small enough that generated outages reach them, and a longest wait that is
 * sometimes below the hints and backoffs (so waits past it are met too).
 *
 * @since 0.1.0
 * @category arbitraries
 */
export const settings = (): FastCheck.Arbitrary<Settings.Settings> =>
  FastCheck.record({
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
  }).map((overrides) => ({ ...Settings.defaults, ...overrides }))

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
