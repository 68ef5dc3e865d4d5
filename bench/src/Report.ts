/**
 * Plain-text tables for the benchmark's output.
 *
 * @since 0.1.0
 */
import type * as Goal from "./Goal.js"

/**
 * A figure for a table: one decimal below 1,000, whole numbers with thousands
 * separators above; "—" for a figure that was not measured.
 *
 * @since 0.1.0
 * @category formatting
 */
export const figure = (value: number | undefined): string => {
  if (value === undefined || !Number.isFinite(value)) return "—"
  if (Math.abs(value) >= 1_000) return Math.round(value).toLocaleString("en-US")
  if (Math.abs(value) >= 10) return value.toFixed(1)
  return value.toFixed(2)
}

/**
 * A ratio for a table, such as "52.3x".
 *
 * @since 0.1.0
 * @category formatting
 */
export const times = (value: number | undefined): string =>
  value === undefined || !Number.isFinite(value) ? "—" : `${figure(value)}x`

/**
 * A table: the first column left-aligned, the others right-aligned.
 *
 * @since 0.1.0
 * @category formatting
 */
export const table = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length))
  )
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join("  ")
      .trimEnd()
  return [line(headers), ...rows.map(line)].join("\n")
}

const withUnit = (value: number, unit: string): string =>
  unit === "x" ? times(value) : `${figure(value)} ${unit}`.trimEnd()

const mark = (status: Goal.Status): string =>
  status === "met" ? "met" : status === "not met" ? "NOT MET" : "not measured"

/**
 * The goals beside their figures, with the verdict computed from them.
 *
 * @since 0.1.0
 * @category formatting
 */
export const verdicts = (all: ReadonlyArray<Goal.Verdict>): string =>
  table(
    ["goal", "figure", "target", "verdict", "set in"],
    all.map(({ goal, figure: value, status }) => [
      goal.name,
      value === undefined || !Number.isFinite(value) ? "—" : withUnit(value, goal.unit),
      `${goal.comparison} ${withUnit(goal.limit, goal.unit)}`,
      mark(status),
      goal.source
    ])
  )
