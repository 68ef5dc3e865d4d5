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
  /** The largest retryAfter, in milliseconds. Default 120000. */
  readonly maxRetryAfterMs?: number | undefined
}

/**
 * Any model error, with or without a retryAfter.
 *
 * @since 0.1.0
 * @category arbitraries
 */
export const modelError = (options: ModelErrorOptions = {}): FastCheck.Arbitrary<ModelError.ModelError> => {
  const categories = options.categories ?? ModelError.Category.literals
  const retryAfter =
    options.retryAfter === false
      ? FastCheck.constant(undefined)
      : FastCheck.option(FastCheck.integer({ min: 0, max: options.maxRetryAfterMs ?? 120_000 }), { nil: undefined })
  return FastCheck.record({
    category: FastCheck.constantFrom(...categories),
    retryAfterMs: retryAfter,
    status: FastCheck.option(FastCheck.integer({ min: 400, max: 599 }), { nil: undefined })
  }).map(({ category, retryAfterMs, status }) =>
    ModelError.make(category, {
      provider: "arbitrary",
      model: "arbitrary",
      message: `arbitrary ${category}`,
      status,
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
 * A sequence of faults, ending in success more often than not.
 *
 * @since 0.1.0
 * @category arbitraries
 */
export const faults = (
  options: ModelErrorOptions & { readonly maxLength?: number | undefined } = {}
): FastCheck.Arbitrary<ReadonlyArray<Fault>> =>
  FastCheck.array(
    FastCheck.oneof(
      { arbitrary: modelError(options), weight: 4 },
      { arbitrary: FastCheck.constant("ok" as const), weight: 1 }
    ),
    { maxLength: options.maxLength ?? 12 }
  )

/**
 * Settings with small, realistic retry figures, valid by construction.
 *
 * @since 0.1.0
 * @category arbitraries
 */
export const settings = (): FastCheck.Arbitrary<Settings.Settings> =>
  FastCheck.record({
    base_delay_ms: FastCheck.integer({ min: 0, max: 5_000 }),
    backoff_factor: FastCheck.double({ min: 1, max: 4, noNaN: true }),
    max_retries: FastCheck.integer({ min: 0, max: 8 }),
    max_delay_ms: FastCheck.integer({ min: 0, max: 60_000 }),
    jitter: FastCheck.constantFrom(...Settings.JitterKind.literals),
    max_retry_wait_ms: FastCheck.integer({ min: 0, max: 120_000 }),
    max_session_retries: FastCheck.integer({ min: 0, max: 30 }),
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
