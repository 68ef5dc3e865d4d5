/**
 * End-to-end tests of `agent simulate`, run as a subprocess exactly as a user
 * runs it, plus the pure pieces of its report.
 */
import { Simulator } from "@agent-kernel/kernel/testing"
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { asciiHistogram, histogram, percentile } from "./simulation.js"
import { ensureBundle, entry } from "./testBundle.js"

const root = path.resolve(import.meta.dirname, "../..")
// node on the bundle of these sources (see testBundle.ts).
beforeAll(ensureBundle)

interface Result {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const agent = (...args: ReadonlyArray<string>): Promise<Result> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [entry, ...args],
      { cwd: root, env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    )
  })

const dir = mkdtempSync(path.join(tmpdir(), "agent-simulate-"))

describe("agent simulate", () => {
  it("prints the exact timeline of a plan without jitter, and its distribution over seeds", async () => {
    const settings = path.join(dir, "settings.json")
    // A fixed budget: the final success refunds nothing.
    writeFileSync(settings, JSON.stringify({ jitter: "none", max_session_retries: 10, session_retries_refill: false }))
    const { code, stdout, stderr } = await agent(
      "simulate",
      "--settings",
      settings,
      "--faults",
      "429:retry_after=2,529,529,ok",
      "--runs",
      "20"
    )
    assert.strictEqual(code, 0, stderr)
    const timeline = stdout.split("\n").filter((line) => /^\d+ +1 +\d+ +primary/.test(line))
    assert.lengthOf(timeline, 4)
    assert.match(
      timeline[0]!,
      /^1 +1 +0 +primary +rate_limited \(retry-after 2000 ms\) +retry in 2\.00 s \(retry_after\); budget left 9$/
    )
    assert.match(timeline[1]!, /^2 +1 +2000 +primary +overloaded +retry in 1\.00 s \(backoff\); budget left 8$/)
    assert.match(timeline[2]!, /^3 +1 +3000 +primary +overloaded +retry in 2\.00 s \(backoff\); budget left 7$/)
    assert.match(timeline[3]!, /^4 +1 +5000 +primary +ok +end; budget left 7$/)
    assert.include(stdout, "outcome: status completed, 4 attempts, 3 retries, 0 fallbacks, waited 5.00 s")
    // No jitter: every seed waits the same.
    assert.include(stdout, "total wait  p50 5.00 s, p90 5.00 s, p99 5.00 s, max 5.00 s")
    assert.include(stdout, "attempts    p50 4, p90 4, p99 4, max 4")
    assert.include(stdout, "outcomes    completed 20 (100.0%)")
    assert.match(stdout, /5\.00 s - 5\.00 s \| #{40} 20/)
  })

  it("is deterministic for a seed, spreads with jitter over seeds, and writes an SVG chart", async () => {
    const svg = path.join(dir, "chart.svg")
    const args = ["simulate", "--faults", "529,529,529,503,ok", "--set", "jitter=full", "--runs", "200", "--seed", "7"]
    const [first, second] = await Promise.all([agent(...args, "--svg", svg), agent(...args)])
    assert.strictEqual(first.code, 0, first.stderr)
    assert.strictEqual(second.code, 0, second.stderr)
    assert.strictEqual(first.stdout.split("\nwrote")[0]?.trimEnd(), second.stdout.trimEnd())
    assert.include(first.stdout, "timeline (seed 7):")
    assert.include(first.stdout, "over 200 seeds (7 to 206):")
    const [, p50, p99] = /total wait {2}p50 ([\d.]+) s, p90 [\d.]+ s, p99 ([\d.]+) s/.exec(first.stdout) ?? []
    assert.isBelow(Number(p50), Number(p99))
    const bars = first.stdout.split("\n").filter((line) => / \| #* *\d+$/.test(line))
    assert.lengthOf(bars, 12)
    assert.strictEqual(
      bars.reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0),
      200
    )
    const chart = readFileSync(svg, "utf8")
    assert.match(chart, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
    assert.strictEqual(chart.match(/<rect x=/g)?.length, 12)
    for (const mark of ["p50", "p90", "p99"]) assert.include(chart, `>${mark} `)
  })

  it("--json prints one document that decodes through Simulator.Report: the seed's timeline, its outcome, the distribution", async () => {
    const { code, stdout, stderr } = await agent(
      "simulate",
      ...["--faults", "429:retry_after=2,529,529,ok", "--set", "jitter=none", "--runs", "20", "--seed", "3", "--json"]
    )
    assert.strictEqual(code, 0, stderr)
    const report = Schema.decodeUnknownSync(Simulator.Report)(JSON.parse(stdout))
    assert.strictEqual(report.format, "agent-kernel/simulation@1")
    assert.strictEqual(report.faults, "rate_limited:retry_after=2,overloaded,overloaded,ok")
    assert.strictEqual(report.seed, 3)
    assert.strictEqual(report.settings.jitter, "none")
    assert.deepStrictEqual(
      report.timeline.map((step) => [step.at_ms, step.result, step.action, step.delay_ms, step.source]),
      [
        [0, "rate_limited", "retry", 2_000, "retry_after"],
        [2_000, "overloaded", "retry", 1_000, "backoff"],
        [3_000, "overloaded", "retry", 2_000, "backoff"],
        [5_000, "ok", "end", 0, null]
      ]
    )
    assert.deepStrictEqual(
      [report.outcome.status, report.outcome.attempts, report.outcome.total_wait_ms],
      ["completed", 4, 5_000]
    )
    assert.deepStrictEqual(report.distribution, {
      runs: 20,
      first_seed: 3,
      total_wait_ms: { p50: 5_000, p90: 5_000, p99: 5_000, max: 5_000 },
      attempts: { p50: 4, p90: 4, p99: 4, max: 4 },
      outcomes: { completed: 20 }
    })
  })

  it("rejects a bad fault plan with every problem on stderr, once, and exit code 2", async () => {
    const { code, stdout, stderr } = await agent("simulate", "--faults", "429,418,nope,529:retry_after=soon")
    assert.strictEqual(code, 2)
    assert.strictEqual(stdout, "")
    assert.strictEqual(stderr.split('fault 2 ("418")').length - 1, 1, stderr)
    assert.include(stderr, 'fault 2 ("418"): no category for HTTP status 418')
    assert.include(stderr, 'fault 3 ("nope"): expected an HTTP status, a category')
    assert.include(stderr, 'fault 4 ("529:retry_after=soon"): unknown option "retry_after=soon"')
  })

  it("rejects an --svg in a missing folder before simulating, exit code 2", async () => {
    const chart = path.join(dir, "no-such-folder", "chart.svg")
    const { code, stdout, stderr } = await agent("simulate", "--faults", "529,ok", "--svg", chart)
    assert.strictEqual(code, 2)
    assert.strictEqual(stdout, "")
    assert.include(stderr, `cannot write ${chart}`)
  })

  it("rejects invalid settings and a missing --faults with exit code 2", async () => {
    const bad = path.join(dir, "bad.json")
    writeFileSync(bad, JSON.stringify({ base_delay_ms: -1, max_retris: 3 }))
    const [settings, missing] = await Promise.all([
      agent("simulate", "--settings", bad, "--faults", "529"),
      agent("simulate", "--runs", "5")
    ])
    assert.strictEqual(settings.code, 2)
    assert.include(settings.stderr, 'max_retris: unknown key (did you mean "max_retries"?)')
    assert.include(settings.stderr, "base_delay_ms: Expected a non-negative number, actual -1")
    assert.strictEqual(missing.code, 2)
    assert.include(missing.stderr, "--faults")
  })
})

describe("the report's pieces", () => {
  it("percentile is nearest-rank", () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1)
    assert.deepStrictEqual(
      [50, 90, 99, 100].map((p) => percentile(sorted, p)),
      [50, 90, 99, 100]
    )
    assert.strictEqual(percentile([7], 99), 7)
  })

  it("histogram bins cover every value, and the longest bar is the fullest bin", () => {
    const values = [0, 1, 1, 2, 9, 10]
    const bins = histogram(values, 5)
    assert.deepStrictEqual(
      bins.map((bin) => bin.count),
      [3, 1, 0, 0, 2]
    )
    const lines = asciiHistogram(bins).split("\n")
    assert.match(lines[0]!, /\| #{40} 3$/)
    assert.match(lines[4]!, /\| #{27} {14}2$/)
  })
})
