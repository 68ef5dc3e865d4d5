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
