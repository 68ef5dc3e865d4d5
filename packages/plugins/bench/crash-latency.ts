/**
 * Crash-to-error-result latency: how long after a plugin server is SIGKILLed
 * mid-call the in-flight call comes back as an error, for agent-kernel's
 * McpStdio and, measured in the same run as the baseline, the stock SDK
 * client (`StdioClientTransport`).
 *
 * Two cases: the server is our direct child; the server runs under a
 * launcher that outlives it (`bash -c 'node server; sleep 30'`). The stock
 * client sees no pipe close in the second case and waits for its request
 * timeout, capped here at CAP_MS.
 *
 * Run: pnpm run bench:crash  (RUNS=30 by default; Node 24 through pnpm)
 *
 * Robust under load: a setup call that fails (a respawn slower than its timeout, say) is retried
 * and counted, never taken for a pid, and a run that goes wrong is reported as failed rather than
 * ending the benchmark.
 */
import { Content } from "@agent-kernel/kernel"
import { NodeServices } from "@effect/platform-node"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { McpStdio, PluginToolbox } from "../src/index.js"

const RUNS = Number(process.env["RUNS"] ?? "30")
const WARMUP = 2
/** How long the stock client may wait for a call its server will never answer (its own default is 60 s). */
const CAP_MS = 5_000
/** Our tool timeout: only a safety net, a crash ends the call long before; generous for respawns under load. */
const OUR_TIMEOUT_MS = 30_000
const SETUP_ATTEMPTS = 5
const server = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "test", "fixtures", "server.mjs")
const node = process.execPath
const wrapperScript = `'${node}' '${server}'; sleep 30`

const now = () => performance.now()
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const textOf = (result: unknown): string => {
  if (typeof result !== "object" || result === null || !("content" in result) || !Array.isArray(result.content))
    return ""
  const first: unknown = result.content[0]
  return typeof first === "object" && first !== null && "text" in first && typeof first.text === "string"
    ? first.text
    : ""
}

const PidAnswer = Schema.fromJsonString(Schema.Struct({ pid: Schema.Number }))
const decodePid = Schema.decodeUnknownResult(PidAnswer)

/** The pid in a `pid` tool answer, or why there is none (an error result is text, not JSON). */
const pidIn = (text: string): Result.Result<number, string> =>
  Result.mapBoth(decodePid(text), {
    onFailure: () => `not a pid answer: ${text.slice(0, 120)}`,
    onSuccess: (answer) => answer.pid
  })

/** Children of a process, from /proc: the stock client leaves a launcher's children behind. */
const descendants = (pid: number): Array<number> => {
  const children = Fs.readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = Fs.readFileSync(`/proc/${entry}/stat`, "utf8")
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid ? [Number(entry)] : []
      } catch {
        return []
      }
    })
  return children.flatMap((child) => [child, ...descendants(child)])
}
const killTree = (pid: number) => {
  for (const p of [...descendants(pid), pid]) {
    try {
      process.kill(p, "SIGKILL")
    } catch {}
  }
}

interface Sample {
  readonly ms: number
  readonly capped: boolean
}

/** A run that could not be measured, and why. */
interface Failed {
  readonly failed: string
}

type Outcome = Sample | Failed

// ---- agent-kernel ----------------------------------------------------------------

/** One provider for all runs: each run kills the server, and the next call respawns it. */
const oursSampler = (config: McpStdio.Config) =>
  Effect.gen(function* () {
    const provider = yield* McpStdio.make(config)
    const box = yield* PluginToolbox.make({
      providers: [Effect.succeed(provider)],
      settings: { tool_timeout_ms: OUR_TIMEOUT_MS, breaker_consecutive_failures: 1_000, breaker_total_failures: 1_000 }
    })
    const invoke = (name: string, input: unknown = {}) => box.invoke(Content.toolUse(`b${now()}`, name, input))
    // Under load a respawn can fail or time out: ask again, a bounded number of times.
    const pid = Effect.gen(function* () {
      let last = ""
      for (let attempt = 0; attempt < SETUP_ATTEMPTS; attempt++) {
        const answer = pidIn((yield* invoke("pid")).content)
        if (Result.isSuccess(answer)) return answer
        last = answer.failure
      }
      return Result.fail(`no pid after ${SETUP_ATTEMPTS} attempts (${last})`)
    })
    return Effect.gen(function* () {
      const server = yield* pid
      if (Result.isFailure(server)) return { failed: server.failure } satisfies Failed
      const call = yield* Effect.forkChild(Effect.map(invoke("hang"), (result) => ({ result, at: now() })))
      while (Number((yield* invoke("inflight")).content) < 1) yield* Effect.promise(() => pause(1))
      const killedAt = now()
      process.kill(server.success, "SIGKILL")
      const { result, at } = yield* Fiber.join(call)
      const capped = result.content.includes("timed out")
      if (!capped && !result.content.includes("process_crashed")) {
        return { failed: `unexpected result: ${result.content.slice(0, 120)}` } satisfies Failed
      }
      return { ms: at - killedAt, capped } satisfies Sample
    })
  })

// ---- stock SDK client ------------------------------------------------------------

const stockOnce = async (command: string, args: Array<string>): Promise<Outcome> => {
  const transport = new StdioClientTransport({ command, args, stderr: "ignore" })
  const client = new Client({ name: "bench", version: "1.0.0" })
  try {
    await client.connect(transport)
    const pid = pidIn(textOf(await client.callTool({ name: "pid", arguments: {} })))
    if (Result.isFailure(pid)) return { failed: pid.failure }
    let doneAt = 0
    const pending = client.callTool({ name: "hang", arguments: {} }, undefined, { timeout: CAP_MS }).then(
      () => ({ timedOut: false }),
      (error: unknown) => ({ timedOut: error instanceof Error && /timed out/i.test(error.message) })
    )
    const settled = pending.then((outcome) => {
      doneAt = now()
      return outcome
    })
    while (Number(textOf(await client.callTool({ name: "inflight", arguments: {} }))) < 1) await pause(1)
    const killedAt = now()
    process.kill(pid.success, "SIGKILL")
    const outcome = await settled
    return { ms: doneAt - killedAt, capped: outcome.timedOut }
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) }
  } finally {
    if (transport.pid !== null) killTree(transport.pid)
    await client.close().catch(() => {})
  }
}

const stockCase = async (command: string, args: Array<string>, concurrency: number): Promise<Array<Outcome>> => {
  for (let i = 0; i < WARMUP; i++) await stockOnce(command, args)
  const samples: Array<Outcome> = []
  while (samples.length < RUNS) {
    const batch = Math.min(concurrency, RUNS - samples.length)
    samples.push(...(await Promise.all(Array.from({ length: batch }, () => stockOnce(command, args)))))
  }
  return samples
}

// ---- report ----------------------------------------------------------------------

const isSample = (outcome: Outcome): outcome is Sample => "ms" in outcome

const quantile = (sorted: ReadonlyArray<number>, q: number): number => {
  // Nearest rank: the smallest value with at least q of the samples at or below it.
  const rank = Math.max(1, Math.ceil(q * sorted.length))
  return sorted[rank - 1]!
}

const median = (sorted: ReadonlyArray<number>): number =>
  sorted.length % 2 === 1
    ? sorted[(sorted.length - 1) / 2]!
    : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2

const sortedMs = (outcomes: ReadonlyArray<Outcome>): Array<number> =>
  outcomes
    .filter(isSample)
    .map((s) => s.ms)
    .sort((a, b) => a - b)

const summary = (outcomes: ReadonlyArray<Outcome>): string => {
  const samples = outcomes.filter(isSample)
  const failed = outcomes.length - samples.length
  const failures = failed > 0 ? ` [${failed} failed runs]` : ""
  if (samples.length === 0) return `no samples${failures}`
  const sorted = sortedMs(samples)
  const capped = samples.filter((s) => s.capped).length
  const cap = capped > 0 ? ` (hit the cap ${capped}/${samples.length})` : ""
  return `median ${median(sorted).toFixed(1)} ms, p95 ${quantile(sorted, 0.95).toFixed(1)} ms, worst ${sorted[sorted.length - 1]!.toFixed(1)} ms${cap}${failures}`
}

const firstFailures = (outcomes: ReadonlyArray<Outcome>): Array<string> =>
  outcomes.flatMap((o) => ("failed" in o ? [o.failed] : [])).slice(0, 3)

const main = Effect.gen(function* () {
  console.log(`crash-to-error-result latency, SIGKILL of the server mid-call, ${RUNS} runs each (+${WARMUP} warm-up)`)
  console.log(
    `node ${process.version}, ${process.platform}; stock client = @modelcontextprotocol/sdk StdioClientTransport`
  )
  console.log("agent-kernel and the stock client run interleaved, so machine load hits both alike.\n")
  const wrapper = ["-c", wrapperScript]
  const direct = (name: string): McpStdio.Config => ({ name, command: node, args: [server], shutdownGraceMillis: 300 })
  const wrapped = (name: string): McpStdio.Config => ({
    name,
    command: "bash",
    args: wrapper,
    shutdownGraceMillis: 300
  })
  const samplers = {
    oursDirect: yield* oursSampler(direct("direct")),
    oursWrapper: yield* oursSampler(wrapped("wrapper"))
  }
  const samples = {
    oursDirect: [] as Array<Outcome>,
    stockDirect: [] as Array<Outcome>,
    oursWrapper: [] as Array<Outcome>
  }
  for (let i = 0; i < RUNS + WARMUP; i++) {
    // Interleaved, so that machine load hits every variant alike.
    const round = {
      oursDirect: yield* samplers.oursDirect,
      stockDirect: yield* Effect.promise(() => stockOnce(node, [server])),
      oursWrapper: yield* samplers.oursWrapper
    }
    if (i < WARMUP) continue
    for (const [name, outcome] of Object.entries(round)) samples[name as keyof typeof samples].push(outcome)
  }
  // Each stock wrapper run waits for the cap: run them 10 at a time so the benchmark ends.
  const stockWrapper = yield* Effect.promise(() => stockCase("bash", wrapper, 10))

  const rows = [
    ["case", "agent-kernel", "stock SDK client"],
    ["direct child (node server.mjs)", summary(samples.oursDirect), summary(samples.stockDirect)],
    ["wrapper (bash -c 'node server.mjs; sleep 30')", summary(samples.oursWrapper), summary(stockWrapper)]
  ]
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)))
  for (const row of rows) console.log(row.map((cell, col) => cell.padEnd(widths[col]!)).join(" | "))
  const stock = sortedMs(samples.stockDirect)
  console.log("")
  const ours = sortedMs(samples.oursDirect)
  if (ours.length > 0 && stock.length > 0) {
    console.log(
      `direct case, agent-kernel / stock: median ${(median(ours) / median(stock)).toFixed(2)}x, p95 ${(quantile(ours, 0.95) / quantile(stock, 0.95)).toFixed(2)}x (below 1 is faster)`
    )
  }
  for (const [name, outcomes] of Object.entries({ ...samples, stockWrapper })) {
    for (const failure of firstFailures(outcomes)) console.log(`failed run (${name}): ${failure}`)
  }
}).pipe(Effect.scoped, Effect.provide(NodeServices.layer))

Effect.runPromise(main).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
