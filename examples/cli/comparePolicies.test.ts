/**
 * End-to-end tests of `agent compare-policies`, run as a subprocess exactly
 * as a user runs it.
 */
import { PolicyComparison } from "@agent-kernel/kernel/testing"
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { adaptiveLimiter, contendersOf, svgChart } from "./comparison.js"
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

const dir = mkdtempSync(path.join(tmpdir(), "agent-compare-"))

/** The scenario and settings of the kernel's golden report (packages/kernel/test/PolicyComparison.test.ts). */
const goldenArgs = [
  "compare-policies",
  ...["--clients", "200", "--capacity", "20", "--turns", "3", "--arrival-ms", "5000", "--seed", "7"],
  ...["--set", "jitter=full", "--set", "max_retries=8", "--set", "max_session_retries=30"]
]
const golden = path.join(root, "packages/kernel/test/fixtures/policy-comparison.golden.json")
/** The same scenario with `--limiter adaptive` (UPDATE_GOLDEN=1 rewrites it). */
const adaptiveGolden = path.join(root, "examples/cli/fixtures/policy-comparison-adaptive.golden.json")

describe("agent compare-policies", () => {
  it("writes the golden JSON report for its scenario, prints one table row a policy, and draws the chart", async () => {
    const json = path.join(dir, "report.json")
    const svg = path.join(dir, "report.svg")
    const { code, stdout, stderr } = await agent(...goldenArgs, "--json", json, "--svg", svg)
    assert.strictEqual(code, 0, stderr)
    assert.strictEqual(readFileSync(json, "utf8"), readFileSync(golden, "utf8"))
    const lines = stdout.split("\n")
    assert.strictEqual(
      lines[0],
      "scenario: 200 clients x 3 turns against 20 req/s, arriving over 5.00 s, retry-after in ms, seed 7"
    )
    assert.match(lines[1]!, /^policy +completion +attempts\/success +p50 +p99 +retries\/client +budget out$/)
    assert.deepStrictEqual(
      lines.slice(2, 6).map((line) => line.split(/ {2,}/)[0]),
      ["agent-kernel default", "Anthropic SDK", "Vercel AI SDK", "your settings"]
    )
    const chart = readFileSync(svg, "utf8")
    assert.match(chart, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
    assert.include(chart, "200 clients x 3 turns against 20 req/s, arriving over 5.00 s, retry-after in ms, seed 7")
    for (const panel of ["completion", "attempts per success", "p50 run time", "p99 run time"])
      assert.include(chart, `>${panel}</text>`)
    // A bar for each of the four policies in each of the four panels.
    assert.strictEqual(chart.match(/<rect [^>]*><title>/g)?.length, 16)
    assert.include(chart, "your settings (real kernel)")
    assert.include(chart, "Vercel AI SDK (documented loop)")
  })

  it("prints only the JSON report with --json -, which decodes through its Schema; no settings, no 'yours'", async () => {
    const { code, stdout, stderr } = await agent(
      "compare-policies",
      ...["--clients", "30", "--capacity", "5", "--turns", "2", "--retry-after", "none", "--json", "-"]
    )
    assert.strictEqual(code, 0, stderr)
    const report = Schema.decodeUnknownSync(PolicyComparison.Report)(JSON.parse(stdout))
    assert.deepStrictEqual(report.scenario, {
      clients: 30,
      capacity_rps: 5,
      turns: 2,
      arrival_ms: 0,
      retry_after: "none",
      seed: 1
    })
    assert.deepStrictEqual(
      report.policies.map((policy) => policy.name),
      ["kernel-default", "anthropic-sdk", "vercel-ai-sdk"]
    )
    for (const policy of report.policies) {
      const f = policy.figures
      assert.strictEqual(f.attempts - f.successes, f.retries + (30 - f.completed), policy.name)
    }
  })

  it("prints the table docs/compare-policies.md shows for its command", async () => {
    const guide = readFileSync(path.join(root, "docs/compare-policies.md"), "utf8")
    const mine = path.join(dir, "mine.json")
    writeFileSync(mine, JSON.stringify({ jitter: "full", max_retries: 8, max_delay_ms: 16000 }))
    assert.include(guide, '`mine.json` is `{ "jitter": "full", "max_retries": 8, "max_delay_ms": 16000 }`')
    const args = ["--clients", "1000", "--capacity", "50", "--turns", "3", "--arrival-ms", "30000"]
    assert.include(guide, `agent compare-policies ${args.join(" ")}`)
    const { code, stdout, stderr } = await agent("compare-policies", ...args, "--settings", mine)
    assert.strictEqual(code, 0, stderr)
    const shown = /```\n(scenario: [\s\S]*?)\nwrote /.exec(guide)?.[1]
    assert.strictEqual(shown, stdout.trimEnd())
  })

  it("--limiter adaptive writes the golden report: the same rows as without it, and the limiter's row last", async () => {
    const json = path.join(dir, "adaptive.json")
    const { code, stdout, stderr } = await agent(...goldenArgs, "--limiter", "adaptive", "--json", json)
    assert.strictEqual(code, 0, stderr)
    const written = readFileSync(json, "utf8")
    if (process.env["UPDATE_GOLDEN"] === "1") writeFileSync(adaptiveGolden, written)
    assert.strictEqual(written, readFileSync(adaptiveGolden, "utf8"))
    const report = Schema.decodeUnknownSync(PolicyComparison.Report)(JSON.parse(written))
    const bare = Schema.decodeUnknownSync(PolicyComparison.Report)(JSON.parse(readFileSync(golden, "utf8")))
    assert.deepStrictEqual(report.policies.slice(0, -1), bare.policies)
    const limited = report.policies.at(-1)
    assert.strictEqual(limited?.name, "kernel-default-adaptive-limiter")
    assert.strictEqual(limited?.runs_as === "kernel" ? limited.in_front : undefined, adaptiveLimiter.label)
    assert.include(stdout, "agent-kernel default + adaptive limiter")
  })

  it("prints the table docs/compare-policies.md shows for --limiter adaptive", async () => {
    const guide = readFileSync(path.join(root, "docs/compare-policies.md"), "utf8")
    const args = [
      "--clients",
      "1000",
      "--capacity",
      "50",
      "--turns",
      "3",
      "--arrival-ms",
      "30000",
      "--limiter",
      "adaptive"
    ]
    assert.include(guide, `agent compare-policies ${args.join(" ")}`)
    const { code, stdout, stderr } = await agent("compare-policies", ...args)
    assert.strictEqual(code, 0, stderr)
    const shown = /```\n(scenario: [^`]*?adaptive limiter ran as[^`]*?)\n```/.exec(guide)?.[1]
    assert.strictEqual(shown, stdout.trimEnd())
  })

  it("rejects bad scenario flags with every problem named by its flag, once, exit code 2", async () => {
    const { code, stdout, stderr } = await agent(
      "compare-policies",
      ...["--clients", "0", "--capacity", "0", "--turns", "1001", "--arrival-ms", "-5"]
    )
    assert.strictEqual(code, 2)
    assert.strictEqual(stdout, "")
    assert.strictEqual(stderr.split("--clients:").length - 1, 1, stderr)
    assert.include(stderr, "--clients: Expected a positive integer, got 0")
    assert.include(stderr, "--capacity: Expected a positive integer, got 0")
    assert.include(stderr, "--turns: Expected at most 1000 turns, got 1001")
    assert.include(stderr, "--arrival-ms: Expected a non-negative number, got -5")
  })

  it("rejects a fleet of more than a million calls, naming --turns and both factors, exit code 2", async () => {
    const { code, stdout, stderr } = await agent("compare-policies", "--clients", "100000", "--turns", "1000")
    assert.strictEqual(code, 2)
    assert.strictEqual(stdout, "")
    assert.include(
      stderr,
      "--turns: Expected at most 1000000 successful calls in all (clients x turns), got 100000 x 1000"
    )
  })

  it("rejects a value that is not a number, a misspelt flag and invalid settings with exit code 2", async () => {
    const [notNumber, typo, settings] = await Promise.all([
      agent("compare-policies", "--clients", "many"),
      agent("compare-policies", "--client", "5"),
      agent("compare-policies", "--clients", "5", "--set", "max_retris=3")
    ])
    assert.strictEqual(notNumber.code, 2)
    assert.include(notNumber.stderr, "clients")
    assert.strictEqual(typo.code, 2)
    assert.include(typo.stderr, "--clients")
    assert.strictEqual(settings.code, 2)
    assert.include(settings.stderr, 'max_retris: unknown key (did you mean "max_retries"?)')
  })

  it("rejects an --svg or --json in a missing folder before comparing anything, exit code 2", async () => {
    const missing = path.join(dir, "no-such-folder")
    const [svg, json] = await Promise.all([
      agent("compare-policies", "--clients", "5", "--svg", path.join(missing, "chart.svg")),
      agent("compare-policies", "--clients", "5", "--json", path.join(missing, "report.json"))
    ])
    for (const [result, file] of [
      [svg, "chart.svg"],
      [json, "report.json"]
    ] as const) {
      assert.strictEqual(result.code, 2)
      assert.strictEqual(result.stdout, "")
      assert.include(result.stderr, `cannot write ${path.join(missing, file)}`)
    }
  })

  it("is not loaded by the command line's start-up: the bundle's static imports from main reach neither the comparison nor the kernel's fleet simulator", () => {
    const meta = JSON.parse(readFileSync(path.join(root, "examples/dist/meta.json"), "utf8")) as {
      readonly outputs: Record<
        string,
        { readonly inputs: Record<string, unknown>; readonly imports: ReadonlyArray<{ path: string; kind: string }> }
      >
    }
    const outputs = meta.outputs
    const main = Object.keys(outputs).find((name) => "examples/cli/main.ts" in outputs[name]!.inputs)
    assert.isDefined(main)
    const seen = new Set<string>()
    const stack = [main!]
    while (stack.length > 0) {
      const name = stack.pop()!
      if (seen.has(name)) continue
      seen.add(name)
      for (const imported of outputs[name]!.imports)
        if (imported.kind === "import-statement" && imported.path in outputs) stack.push(imported.path)
    }
    const loaded = [...seen].flatMap((name) => Object.keys(outputs[name]!.inputs))
    assert.isTrue(loaded.includes("examples/cli/comparePolicies.ts"))
    assert.isFalse(loaded.some((input) => input.endsWith("examples/cli/comparison.ts")))
    assert.isFalse(loaded.some((input) => input.endsWith("PolicyComparison.ts")))
  })
})

describe("the kernel's default behind the adaptive limiter", () => {
  // 300 clients of 3 calls arriving over 45 s ask for 20 requests a second of a provider that admits 10.
  const overloaded: PolicyComparison.Scenario = {
    ...PolicyComparison.defaultScenario,
    clients: 300,
    capacity_rps: 10,
    turns: 3,
    arrival_ms: 45_000
  }
  const [bare, limited] = contendersOf({ limiter: "adaptive" }, undefined).filter(
    (contender) => contender._tag === "Kernel"
  )

  it.effect(
    "paces a fleet asking twice the capacity: fewer attempts per success and retries than the bare default, no fewer completions",
    () =>
      Effect.gen(function* () {
        const without = (yield* PolicyComparison.runContender(overloaded, bare!)).figures
        const behind = (yield* PolicyComparison.runContender(overloaded, limited!)).figures
        assert.isBelow(behind.attempts_per_success!, without.attempts_per_success!)
        assert.isBelow(behind.retries, without.retries)
        assert.isAtLeast(behind.completed, without.completed)
      })
  )

  it.effect("gives the same bytes for the same seed, and another report for another seed", () =>
    Effect.gen(function* () {
      const small = { ...overloaded, clients: 60 }
      const run = (seed: number) =>
        Effect.map(PolicyComparison.compare({ ...small, seed }, [limited!]), PolicyComparison.toJson)
      const first = yield* run(1)
      assert.strictEqual(yield* run(1), first)
      assert.notStrictEqual(yield* run(2), first)
    })
  )

  it("is not in the comparison unless asked for", () => {
    assert.deepStrictEqual(
      contendersOf({ limiter: "none" }, undefined).map((contender) => contender.name),
      ["kernel-default", "anthropic-sdk", "vercel-ai-sdk"]
    )
  })
})

describe("the chart", () => {
  it("labels a figure no run could give n/a, draws no bar for it, and escapes the labels", () => {
    const figures: PolicyComparison.Figures = {
      completed: 0,
      completion_pct: 0,
      attempts: 9,
      successes: 0,
      attempts_per_success: null,
      latency_p50_ms: null,
      latency_p99_ms: null,
      retries: 6,
      retries_per_client: 2,
      budget_exhausted: 0,
      outcomes: { retries_exhausted: 3 },
      makespan_ms: 6_000
    }
    const chart = svgChart({
      format: "agent-kernel/policy-comparison@1",
      scenario: { ...PolicyComparison.defaultScenario, clients: 3 },
      policies: [
        { name: "a", label: "<mine> & co", runs_as: "anchor", parameters: PolicyComparison.vercelAiSdk, figures }
      ]
    })
    assert.strictEqual(chart.match(/>n\/a<\/text>/g)?.length, 3)
    assert.strictEqual(chart.match(/height="0\.0"/g)?.length, 4)
    assert.include(chart, "&lt;mine&gt; &amp; co (documented loop)")
    assert.notInclude(chart, "<mine>")
  })
})
