// @ts-check
/**
 * The agent command's start: wall time of whole commands, interleaved (one
 * run of each per round, in turn), medians and the ratios the start is held
 * to, all measured in the same run:
 *
 *   - `agent --version` (start, parse, exit) against `node -e 0`: at most 2x;
 *   - the README's form, `pnpm --silent agent --version` (the `agent` script:
 *     `build-cli.mjs --if-stale`, then the bundle), against the bundle alone
 *     once it is built: at most 1.5x; and the same through `npx -y pnpm@12.4.2`, which adds npx's start;
 *   - `agent --scenario happy --json`: the fake provider, one plugin process,
 *     two model calls.
 *
 * Also the CPU time (user + system, the command's children included, from
 * /usr/bin/time), which a loaded machine stretches far less than the wall
 * time.
 *
 * Usage: node scripts/bench-cli-startup.mjs [ROUNDS]   (default 10; builds the bundle if stale)
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as os from "node:os"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")
const rounds = Number(process.argv[2] ?? 10)
execFileSync(process.execPath, [path.join(root, "scripts/build-cli.mjs"), "--if-stale"], { stdio: "inherit" })

const bundle = "examples/dist/agent.mjs"
// The pnpm running this script (`pnpm run bench:cli`), as the README's form runs it; else the one on PATH.
const execpath = process.env["npm_execpath"]
const pnpm =
  execpath === undefined || !path.basename(execpath).startsWith("pnpm")
    ? { command: "pnpm", args: /** @type {Array<string>} */ ([]) }
    : /\.[cm]?js$/.test(execpath)
      ? { command: process.execPath, args: [execpath] }
      : { command: execpath, args: [] }

/** @type {ReadonlyArray<{ readonly name: string; readonly command: string; readonly args: ReadonlyArray<string> }>} */
const commands = [
  { name: "node -e 0", command: process.execPath, args: ["-e", "0"] },
  { name: "agent --version", command: process.execPath, args: [bundle, "--version"] },
  {
    name: "pnpm --silent agent --version",
    command: pnpm.command,
    args: [...pnpm.args, "--silent", "agent", "--version"]
  },
  {
    name: "npx -y pnpm@12.4.2 --silent agent",
    command: "npx",
    args: ["-y", "pnpm@12.4.2", "--silent", "agent", "--version"]
  },
  { name: "agent --scenario happy", command: process.execPath, args: [bundle, "--scenario", "happy", "--json"] }
]

const env = { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", NO_COLOR: "1" }
/** @type {Map<string, { wall: Array<number>; cpu: Array<number> }>} */
const samples = new Map(commands.map(({ name }) => [name, { wall: [], cpu: [] }]))
for (let round = 0; round < rounds; round++) {
  for (const { name, command, args } of commands) {
    const started = process.hrtime.bigint()
    const result = spawnSync("/usr/bin/time", ["-f", "cpu %U %S", command, ...args], {
      cwd: root,
      env,
      encoding: "utf8"
    })
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    if (result.status !== 0) throw new Error(`${name} exited ${result.status}: ${result.stderr}`)
    const [user, system] = (/cpu (\S+) (\S+)\s*$/.exec(result.stderr) ?? []).slice(1).map(Number)
    samples.get(name)?.wall.push(ms)
    samples.get(name)?.cpu.push(((user ?? Number.NaN) + (system ?? Number.NaN)) * 1000)
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
for (const metric of /** @type {const} */ (["wall", "cpu"])) {
  for (const { name } of commands) {
    const values = samples.get(name)?.[metric] ?? []
    const range = `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}`
    console.log(
      `${metric.padEnd(4)} ${name.padEnd(34)} median ${median(values).toFixed(0).padStart(6)} ms (range ${range})`
    )
  }
}
/** @param {string} name */
const wall = (name) => median(samples.get(name)?.wall ?? [])
console.log(
  `agent --version / node -e 0: ${(wall("agent --version") / wall("node -e 0")).toFixed(2)}x (goal: at most 2x)`
)
console.log(
  `pnpm --silent agent --version / agent --version: ${(wall("pnpm --silent agent --version") / wall("agent --version")).toFixed(2)}x (goal: at most 1.5x)`
)
console.log(
  `npx -y pnpm@12.4.2 --silent agent --version / agent --version: ${(wall("npx -y pnpm@12.4.2 --silent agent") / wall("agent --version")).toFixed(2)}x (npx's and pnpm's own starts included)`
)
