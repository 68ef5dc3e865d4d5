/**
 * What `agent simulate` prints (see simulate.ts): the timeline of one seed,
 * the distribution over many, an ASCII histogram and, with `--svg`, an SVG
 * chart. Every run is the real kernel on a virtual clock.
 */
import { RetryPolicy, type Settings } from "@agent-kernel/kernel"
import { Simulator } from "@agent-kernel/kernel/testing"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Input } from "./simulate.js"
import { loadSettings } from "./settingsOptions.js"
import { escapeXml } from "./svg.js"
import { ensureWritable, UsageError, writeOutput } from "./usage.js"

/** The value at percentile `p` (0-100) of sorted values, by the nearest-rank method. */
export const percentile = Simulator.percentile

/** A histogram bin. */
export interface Bin {
  readonly from: number
  readonly to: number
  readonly count: number
}

/** Equal-width bins over the values' range; one bin when they are all equal. */
export const histogram = (values: ReadonlyArray<number>, bins = 12): ReadonlyArray<Bin> => {
  if (values.length === 0) return []
  const lo = Math.min(...values)
  const hi = Math.max(...values)
  if (hi - lo < 1e-9) return [{ from: lo, to: hi, count: values.length }]
  const width = (hi - lo) / bins
  const counts = Array.from({ length: bins }, () => 0)
  for (const value of values) counts[Math.min(bins - 1, Math.floor((value - lo) / width))]! += 1
  return counts.map((count, i) => ({ from: lo + i * width, to: lo + (i + 1) * width, count }))
}

const BAR = 40

/** An ASCII histogram, one line per bin. */
export const asciiHistogram = (bins: ReadonlyArray<Bin>): string => {
  const most = Math.max(1, ...bins.map((bin) => bin.count))
  const labels = bins.map((bin) => `${Simulator.formatMs(bin.from)} - ${Simulator.formatMs(bin.to)}`)
  const width = Math.max(...labels.map((label) => label.length))
  return bins
    .map((bin, i) => {
      const bar = "#".repeat(Math.round((bin.count / most) * BAR))
      return `  ${labels[i]!.padStart(width)} | ${bar.padEnd(BAR)} ${bin.count}`
    })
    .join("\n")
}

/** An SVG bar chart of the bins, with the p50, p90 and p99 marked. */
export const svgHistogram = (
  bins: ReadonlyArray<Bin>,
  marks: ReadonlyArray<{ readonly label: string; readonly value: number }>,
  title: string
): string => {
  const [w, h, left, bottom, top] = [640, 320, 56, 40, 36]
  const plotW = w - left - 16
  const plotH = h - top - bottom
  const lo = bins[0]?.from ?? 0
  const hi = Math.max(bins.at(-1)?.to ?? 1, lo + 1)
  const most = Math.max(1, ...bins.map((bin) => bin.count))
  const x = (value: number) => left + ((value - lo) / (hi - lo)) * plotW
  const barW = plotW / Math.max(1, bins.length)
  const bars = bins.map((bin, i) => {
    const barH = (bin.count / most) * plotH
    return `<rect x="${(left + i * barW + 1).toFixed(1)}" y="${(top + plotH - barH).toFixed(1)}" width="${Math.max(1, barW - 2).toFixed(1)}" height="${barH.toFixed(1)}" fill="#4c78a8"><title>${escapeXml(`${Simulator.formatMs(bin.from)} - ${Simulator.formatMs(bin.to)}: ${bin.count}`)}</title></rect>`
  })
  const lines = marks.map(
    (mark, i) =>
      `<line x1="${x(mark.value).toFixed(1)}" x2="${x(mark.value).toFixed(1)}" y1="${top}" y2="${top + plotH}" stroke="#e45756" stroke-dasharray="4 3"/>` +
      `<text x="${(x(mark.value) + 3).toFixed(1)}" y="${top + 12 + i * 13}" font-size="11" fill="#e45756">${escapeXml(`${mark.label} ${Simulator.formatMs(mark.value)}`)}</text>`
  )
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif">`,
    `<rect width="${w}" height="${h}" fill="white"/>`,
    `<text x="${left}" y="22" font-size="14">${escapeXml(title)}</text>`,
    `<line x1="${left}" x2="${left + plotW}" y1="${top + plotH}" y2="${top + plotH}" stroke="black"/>`,
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}" stroke="black"/>`,
    `<text x="${left}" y="${h - 14}" font-size="11">${escapeXml(Simulator.formatMs(lo))}</text>`,
    `<text x="${left + plotW}" y="${h - 14}" font-size="11" text-anchor="end">${escapeXml(Simulator.formatMs(hi))}</text>`,
    `<text x="${left - 6}" y="${top + 10}" font-size="11" text-anchor="end">${most}</text>`,
    `<text x="${left + plotW / 2}" y="${h - 4}" font-size="11" text-anchor="middle">total wait per run</text>`,
    ...bars,
    ...lines,
    "</svg>",
    ""
  ].join("\n")
}

const describeSettings = (settings: Settings.Settings): string =>
  [
    `base_delay_ms=${settings.base_delay_ms}`,
    `backoff_factor=${settings.backoff_factor}`,
    `max_retries=${settings.max_retries}`,
    `max_delay_ms=${settings.max_delay_ms}`,
    `jitter=${settings.jitter}`,
    `max_retry_wait_ms=${settings.max_retry_wait_ms}`,
    `max_session_retries=${settings.max_session_retries}`,
    `fallback_models=[${settings.fallback_models.join(", ")}]`,
    ...(settings.max_wall_clock_ms !== undefined ? [`max_wall_clock_ms=${settings.max_wall_clock_ms}`] : [])
  ].join(" ")

const distributionLine = (name: string, figure: Simulator.Percentiles, format: (n: number) => string) =>
  `  ${name.padEnd(11)} p50 ${format(figure.p50)}, p90 ${format(figure.p90)}, p99 ${format(figure.p99)}, max ${format(figure.max)}`

/**
 * The report `input` asks for, on stdout (as text, or with `--json` as one
 * `Simulator.Report` JSON document). A bad fault plan or settings fail with a
 * `UsageError`, which the command line reports once on stderr.
 */
export const report = (input: Input) =>
  Effect.gen(function* () {
    if (input.runs < 1) return yield* new UsageError({ message: `--runs must be at least 1 (got ${input.runs})` })
    const settings = yield* loadSettings(input.settings, input.set)
    const faults = yield* Simulator.parseFaults(input.faults).pipe(
      Effect.mapError((error) => new UsageError({ message: error.message }))
    )
    const policy = RetryPolicy.fromSettings(settings)
    const simulate = (seed: number) => Simulator.simulate(policy, faults, { seed, settings })

    const svgFile = Option.getOrUndefined(input.svg)
    if (svgFile !== undefined) yield* ensureWritable(svgFile)
    const one = yield* simulate(input.seed)
    // One seed, as text and without a chart, needs no distribution.
    const rest =
      input.runs === 1 && svgFile === undefined && !input.json
        ? []
        : yield* Effect.forEach(
            Array.from({ length: input.runs - 1 }, (_, i) => input.seed + 1 + i),
            simulate
          )
    const all: readonly [Simulator.Simulation, ...Array<Simulator.Simulation>] = [one, ...rest]
    const waits = all.map((run) => run.outcome.total_wait_ms).sort((a, b) => a - b)
    // Fewer runs than bins would draw mostly empty rows.
    const bins = histogram(waits, Math.min(12, Math.ceil(Math.sqrt(input.runs))))
    const writeChart = (file: string) => {
      const marks = [50, 90, 99].map((p) => ({ label: `p${p}`, value: percentile(waits, p) }))
      const title = `total wait over ${input.runs} seeds: ${input.faults.trim()}`
      return writeOutput(file, svgHistogram(bins, marks, title))
    }

    if (input.json) {
      yield* Console.log(Simulator.toJson(Simulator.reportOf(all, settings)).trimEnd())
      if (svgFile !== undefined) yield* writeChart(svgFile)
      return
    }
    yield* Console.log(`settings: ${describeSettings(settings)}`)
    yield* Console.log(`faults:   ${input.faults.trim() || "(none)"}`)
    yield* Console.log(`\ntimeline (seed ${input.seed}):`)
    yield* Console.log(Simulator.formatTimeline(one.timeline))
    yield* Console.log(`outcome: ${Simulator.formatOutcome(one.outcome)}`)

    if (input.runs === 1 && svgFile === undefined) return
    const distribution = Simulator.distribution(all)
    yield* Console.log(`\nover ${input.runs} seeds (${input.seed} to ${input.seed + input.runs - 1}):`)
    yield* Console.log(distributionLine("total wait", distribution.total_wait_ms, Simulator.formatMs))
    yield* Console.log(distributionLine("attempts", distribution.attempts, String))
    yield* Console.log(
      `  outcomes    ${Object.entries(distribution.outcomes)
        .map(([status, n]) => `${status} ${n} (${((100 * n) / input.runs).toFixed(1)}%)`)
        .join(", ")}`
    )
    yield* Console.log("\ntotal wait per run:")
    yield* Console.log(asciiHistogram(bins))
    if (svgFile !== undefined) {
      yield* writeChart(svgFile)
      yield* Console.log(`\nwrote ${svgFile}`)
    }
  })
