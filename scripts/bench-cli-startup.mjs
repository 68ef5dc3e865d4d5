// @ts-check
/**
 * The agent command's start, bundle against tsx: wall time of whole commands,
 * interleaved (one run of each per round, in turn), medians and the ratio to
 * the tsx baseline measured in the same run. Also the CPU time (user + system,
 * the command's children included, from /usr/bin/time), which a loaded
 * machine stretches far less than the wall time.
 *
 *   - `--version`: start, parse, exit; nothing else.
 *   - `--scenario happy`: the fake provider, one plugin process, two model calls.
 *
 * Usage: node scripts/bench-cli-startup.mjs [ROUNDS]   (default 10; builds the bundle if stale)
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as os from "node:os"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")
const rounds = Number(process.argv[2] ?? 10)
execFileSync(process.execPath, [path.join(root, "scripts/build-cli.mjs"), "--if-stale"], { stdio: "inherit" })

const bundle = ["examples/dist/agent.mjs"]
const tsx = ["--import", "tsx", "examples/cli/main.ts"]
const cases = [
  { name: "--version", args: ["--version"] },
  { name: "--scenario happy", args: ["--scenario", "happy", "--json"] }
]
const variants = [
  { name: "tsx (baseline)", argv: tsx },
  { name: "bundle", argv: bundle }
]

const env = { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", NO_COLOR: "1" }
/** @type {Map<string, Array<number>>} */
const samples = new Map()
for (let round = 0; round < rounds; round++) {
  for (const { name, args } of cases) {
    for (const variant of variants) {
      const started = process.hrtime.bigint()
      const result = spawnSync("/usr/bin/time", ["-f", "cpu %U %S", process.execPath, ...variant.argv, ...args], {
        cwd: root,
        env,
        encoding: "utf8"
      })
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      if (result.status !== 0) throw new Error(`${variant.name} ${name} exited ${result.status}: ${result.stderr}`)
      const [user, system] = (/cpu (\S+) (\S+)\s*$/.exec(result.stderr) ?? []).slice(1).map(Number)
      for (const [metric, value] of [
        ["wall", ms],
        ["cpu", ((user ?? Number.NaN) + (system ?? Number.NaN)) * 1000]
      ]) {
        const key = `${name}|${variant.name}|${metric}`
        samples.set(key, [...(samples.get(key) ?? []), Number(value)])
      }
    }
  }
}

/** @param {ReadonlyArray<number>} values */
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(" ")
console.log(`node ${process.version}, ${rounds} interleaved rounds, load average ${load} on ${os.cpus().length} cores`)
for (const metric of ["wall", "cpu"]) {
  for (const { name } of cases) {
    const baseline = median(samples.get(`${name}|${variants[0]?.name}|${metric}`) ?? [])
    for (const variant of variants) {
      const values = samples.get(`${name}|${variant.name}|${metric}`) ?? []
      const m = median(values)
      const range = `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}`
      console.log(
        `${metric.padEnd(4)} ${name.padEnd(18)} ${variant.name.padEnd(15)} median ${m.toFixed(0).padStart(6)} ms (range ${range}), ${(m / baseline).toFixed(2)}x the baseline`
      )
    }
  }
}
