/**
 * The benchmark's goals, judged from the figures of the run that printed them.
 * A verdict is computed here and nowhere else, so no mark can be written by
 * hand; a figure that was not measured (a skipped run, a failed one) is
 * "not measured", never "met".
 *
 * @since 0.1.0
 */

/**
 * How a figure is held against its limit.
 *
 * @since 0.1.0
 * @category models
 */
export type Comparison = "at most" | "at least" | "more than" | "less than"

/**
 * A goal: a named figure, a comparison and a limit.
 *
 * @since 0.1.0
 * @category models
 */
export interface Goal {
  readonly name: string
  readonly comparison: Comparison
  readonly limit: number
  /** Printed after the figure and the limit: "µs", "KB", "x". */
  readonly unit: string
  /** Where the goal was set, e.g. "issue 22". */
  readonly source: string
}

/**
 * @since 0.1.0
 * @category models
 */
export type Status = "met" | "not met" | "not measured"

/**
 * A goal with the figure measured for it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Verdict {
  readonly goal: Goal
  /** `undefined` or `NaN` when nothing was measured. */
  readonly figure: number | undefined
  readonly status: Status
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (name: string, comparison: Comparison, limit: number, unit: string, source: string): Goal => ({
  name,
  comparison,
  limit,
  unit,
  source
})

const holds = (comparison: Comparison, figure: number, limit: number): boolean => {
  switch (comparison) {
    case "at most":
      return figure <= limit
    case "at least":
      return figure >= limit
    case "more than":
      return figure > limit
    case "less than":
      return figure < limit
  }
}

/**
 * Judges a figure against its goal.
 *
 * @since 0.1.0
 * @category judging
 */
export const judge = (goal: Goal, figure: number | undefined): Verdict => ({
  goal,
  figure,
  status:
    figure === undefined || !Number.isFinite(figure)
      ? "not measured"
      : holds(goal.comparison, figure, goal.limit)
        ? "met"
        : "not met"
})

/**
 * A ratio of two figures, `undefined` when either is missing or the divisor
 * is zero.
 *
 * @since 0.1.0
 * @category figures
 */
export const ratio = (numerator: number | undefined, denominator: number | undefined): number | undefined =>
  numerator === undefined ||
  denominator === undefined ||
  !Number.isFinite(numerator) ||
  !Number.isFinite(denominator) ||
  denominator === 0
    ? undefined
    : numerator / denominator
