/**
 * What `agent compare-policies` prints and writes (see comparePolicies.ts):
 * the comparison table, the report as JSON (`PolicyComparison.toJson`) and a
 * chart of it as SVG. Kernel policies run as the real kernel, anchors as
 * clients of their documented retry loops, all in virtual time.
 */
import { ProviderLimiter, StateStore } from "@agent-kernel/cluster"
import { Settings } from "@agent-kernel/kernel"
import { PolicyComparison, Simulator } from "@agent-kernel/kernel/testing"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Input } from "./comparePolicies.js"
import { loadSettings } from "./settingsOptions.js"
import { escapeXml } from "./svg.js"
import { ensureWritable, UsageError, writeOutput } from "./usage.js"

/** The flag that sets each scenario field, for a usage message. */
const flagOf: Readonly<Record<string, string>> = {
  clients: "--clients",
  capacity_rps: "--capacity",
  turns: "--turns",
  arrival_ms: "--arrival-ms",
  retry_after: "--retry-after",
  seed: "--seed"
}

const scenarioOf = (input: Input) =>
  PolicyComparison.decodeScenario({
    clients: input.clients,
    capacity_rps: input.capacity,
    turns: input.turns,
    arrival_ms: input.arrivalMs,
    retry_after: input.retryAfter,
    seed: input.seed
  }).pipe(
    Effect.mapError(
      (error) =>
        new UsageError({
          message: `invalid compare-policies options:\n${error.issues
            .map((issue) => `  - ${flagOf[issue.field] ?? issue.field}: ${issue.problem}`)
            .join("\n")}`
        })
    )
  )

/**
 * The cluster's adaptive rate limiter in front of the provider: one limiter
 * for the whole fleet (as one `StateStore` shares it between runners), in a
 * memory store on the fleet's virtual clock, its spread drawn from the
 * fleet's seeded `Random`.
 */
export const adaptiveLimiter: PolicyComparison.Front = {
  label: "adaptive rate limiter (ProviderLimiter adaptive, AdaptiveRate.defaults)",
  make: Effect.map(
    ProviderLimiter.make({ key: "compare-policies", adaptive: true }).pipe(
      Effect.provideServiceEffect(StateStore.StateStore, StateStore.makeMemory)
    ),
    (limiter) => (provider) => ProviderLimiter.limit(provider, limiter)
  )
}

/**
 * The contenders `input` asks for: the kernel's default, the SDKs', yours when given, and with
 * `--limiter adaptive` the kernel's default behind the adaptive rate limiter.
 */
export const contendersOf = (
  input: Pick<Input, "limiter">,
  yours: Settings.Settings | undefined
): ReadonlyArray<PolicyComparison.Contender> => [
  ...PolicyComparison.contenders(yours),
  ...(input.limiter === "adaptive"
    ? [
        {
          _tag: "Kernel",
          name: "kernel-default-adaptive-limiter",
          label: "agent-kernel default + adaptive limiter",
          settings: Settings.defaults,
          front: adaptiveLimiter
        } satisfies PolicyComparison.Contender
      ]
    : [])
]

/** One panel of the chart: a figure of every policy. */
interface Panel {
  readonly title: string
  readonly value: (figures: PolicyComparison.Figures) => number | null
  readonly format: (value: number) => string
  /** The top of the panel's scale; default the largest value. */
  readonly top?: number
}

const panels: ReadonlyArray<Panel> = [
  { title: "completion", value: (f) => f.completion_pct, format: (v) => `${v.toFixed(1)}%`, top: 100 },
  { title: "attempts per success", value: (f) => f.attempts_per_success, format: (v) => v.toFixed(2) },
  { title: "p50 run time", value: (f) => f.latency_p50_ms, format: Simulator.formatMs },
  { title: "p99 run time", value: (f) => f.latency_p99_ms, format: Simulator.formatMs }
]

const colors = ["#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2"]

/**
 * The report as one SVG chart: a panel per figure (completion, attempts per
 * success, p50 and p99 run time of the completed runs), a bar per policy in
 * each, the scenario in the title and the policies in a legend.
 */
export const svgChart = (report: PolicyComparison.Report): string => {
  const [panelW, gap, left, top, plotH] = [200, 24, 24, 84, 200]
  const plotsW = left * 2 + panels.length * panelW + (panels.length - 1) * gap
  const legendY = top + plotH + 44
  const h = legendY + 40
  const count = Math.max(1, report.policies.length)
  const barW = Math.min(40, (panelW - 16) / count - 6)
  const drawn = panels.map((panel, p) => {
    const x0 = left + p * (panelW + gap)
    const values = report.policies.map((policy) => panel.value(policy.figures))
    const most = panel.top ?? Math.max(1e-9, ...values.map((value) => value ?? 0))
    const span = (panelW - count * barW) / (count + 1)
    const bars = values.map((value, i) => {
      const x = x0 + span + i * (barW + span)
      const label = value === null ? "n/a" : panel.format(value)
      const barH = value === null ? 0 : (value / most) * (plotH - 18)
      const y = top + plotH - barH
      const name = report.policies[i]?.label ?? ""
      return [
        `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${barH.toFixed(1)}" fill="${colors[i % colors.length]}"><title>${escapeXml(`${name}: ${label}`)}</title></rect>`,
        `<text x="${(x + barW / 2).toFixed(1)}" y="${(y - 4).toFixed(1)}" font-size="10" text-anchor="middle">${escapeXml(label)}</text>`
      ].join("\n")
    })
    return [
      `<text x="${(x0 + panelW / 2).toFixed(1)}" y="${top - 12}" font-size="12" font-weight="bold" text-anchor="middle">${escapeXml(panel.title)}</text>`,
      `<line x1="${x0}" x2="${x0 + panelW}" y1="${top + plotH}" y2="${top + plotH}" stroke="black"/>`,
      ...bars
    ].join("\n")
  })
  // Each legend entry is as wide as its text (about 7 px a character at 12 px).
  const legendTexts = report.policies.map(
    (policy) => `${policy.label} (${policy.runs_as === "kernel" ? "real kernel" : "documented loop"})`
  )
  const legendXs = legendTexts.map((_, i) =>
    legendTexts.slice(0, i).reduce((x, text) => x + 18 + text.length * 7 + 20, left)
  )
  const legend = legendTexts.map((text, i) =>
    [
      `<rect x="${legendXs[i]}" y="${legendY - 10}" width="12" height="12" fill="${colors[i % colors.length]}"/>`,
      `<text x="${(legendXs[i] ?? left) + 18}" y="${legendY}" font-size="12">${escapeXml(text)}</text>`
    ].join("\n")
  )
  const w = Math.max(plotsW, (legendXs.at(-1) ?? left) + 18 + (legendTexts.at(-1)?.length ?? 0) * 7 + left)
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif">`,
    `<rect width="${w}" height="${h}" fill="white"/>`,
    `<text x="${left}" y="22" font-size="15">${escapeXml("Retry policies compared, in virtual time")}</text>`,
    `<text x="${left}" y="40" font-size="12" fill="#444">${escapeXml(PolicyComparison.describeScenario(report.scenario))}</text>`,
    ...drawn,
    ...legend,
    `<text x="${left}" y="${legendY + 24}" font-size="11" fill="#444">${escapeXml("Run times are those of the completed runs. Kernel policies ran as the real kernel; the SDKs as clients of their documented retry loops.")}</text>`,
    "</svg>",
    ""
  ].join("\n")
}

/**
 * The comparison `input` asks for: the table on stdout (or the JSON, with `--json -`), the files it names. A bad
 * flag or settings fail with a `UsageError`, which the command line reports once on stderr.
 */
export const report = (input: Input) =>
  Effect.gen(function* () {
    const scenario = yield* scenarioOf(input)
    const json = Option.getOrUndefined(input.json)
    for (const file of [json === "-" ? undefined : json, Option.getOrUndefined(input.svg)])
      if (file !== undefined) yield* ensureWritable(file)
    // The user's own policy joins when they gave settings of their own.
    const yours =
      Option.isSome(input.settings) || input.set.length > 0 ? yield* loadSettings(input.settings, input.set) : undefined
    const result = yield* PolicyComparison.compare(scenario, contendersOf(input, yours))
    if (json === "-") yield* Console.log(PolicyComparison.toJson(result).trimEnd())
    else {
      yield* Console.log(`scenario: ${PolicyComparison.describeScenario(scenario)}`)
      yield* Console.log(PolicyComparison.formatTable(result))
      yield* Console.log(
        "kernel policies ran as the real kernel; the SDKs' as clients of their documented retry loops (docs/compare-policies.md)"
      )
      if (input.limiter === "adaptive")
        yield* Console.log(
          "the adaptive limiter ran as the cluster's ProviderLimiter, one for the fleet, in front of the provider"
        )
    }
    if (json !== undefined && json !== "-") {
      yield* writeOutput(json, PolicyComparison.toJson(result))
      yield* Console.log(`wrote ${json}`)
    }
    if (Option.isSome(input.svg)) {
      yield* writeOutput(input.svg.value, svgChart(result))
      if (json !== "-") yield* Console.log(`wrote ${input.svg.value}`)
    }
  })
