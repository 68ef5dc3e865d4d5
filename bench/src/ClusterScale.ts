/**
 * Scale-out: sessions per second and turn latency of the example
 * service (`examples/service`) at 1, 2 and 3 runner processes, in one run.
 *
 * Setup, once: a throwaway PostgreSQL (`TempPostgres`), one database per
 * runner count, and every runner process of every count started together
 * (1 + 2 + 3 = 6 processes), each set waiting until its runners hold all 300
 * shards between them. One fake provider over real HTTP in this process
 * answers every model call after a fixed latency, streaming, for all of them.
 *
 * A sample: `sessions` new sessions, one prompt each (a one-turn run: the
 * fake answers with text), posted over HTTP with at most `concurrency` in
 * flight, round-robin over the runners' HTTP ports as a load balancer would;
 * each request reads its NDJSON stream to `run_ended`. A turn's latency is
 * from the POST to the end of that stream; the sample's rate is its
 * sessions over its wall time. Runs that end other than `completed` are
 * counted and printed with their status (under heavy load some end
 * `interrupted`, see the README); an answer without `run_ended` fails the
 * benchmark.
 *
 * Samples are taken in interleaved rounds (each round samples every runner
 * count once, in a rotating order) after one warm-up sample each, so the
 * machine's noise falls on all of them alike; the medians over rounds are
 * printed with ratios to 1 runner. The idle runners of the other counts keep
 * running meanwhile (polling their store): the same background for every
 * count.
 *
 * What the core count limits: every runner is a node process with one
 * JavaScript thread, and Postgres, the fake provider and this client share
 * the same cores. On 2 cores a second runner can add at most one core's
 * worth of work; a third only competes for CPU with the others.
 *
 * @since 0.1.0
 */
import { TempPostgres } from "@agent-kernel/cluster/testing"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as os from "node:os"
import { performance } from "node:perf_hooks"
import * as Api from "../../examples/service/Api.js"
import * as RunnerProcess from "../../examples/service/RunnerProcess.js"
import * as Measure from "./Measure.js"
import * as Report from "./Report.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  readonly runners: ReadonlyArray<number>
  readonly sessions: number
  readonly concurrency: number
  readonly rounds: number
  /** The fake provider's wait before each answer. */
  readonly modelLatencyMs: number
}

/**
 * @since 0.1.0
 * @category plans
 */
export const plans: { readonly full: Plan; readonly quick: Plan } = {
  full: { runners: [1, 2, 3], sessions: 100, concurrency: 40, rounds: 3, modelLatencyMs: 100 },
  quick: { runners: [1, 2, 3], sessions: 40, concurrency: 20, rounds: 1, modelLatencyMs: 100 }
}

/** One sample of one runner count. */
interface Sample {
  readonly sessionsPerSecond: number
  readonly latencies: ReadonlyArray<number>
  /** The runs' own `wall_ms`, from `run_ended`: the time inside the runner that ran it. */
  readonly runWalls: ReadonlyArray<number>
  /** Sessions that ran on a runner other than the one that took the request. */
  readonly forwarded: number
  /** The status of every run that did not end `completed`. */
  readonly notCompleted: ReadonlyArray<string>
}

/**
 * The `q` quantile (0 to 1) by the nearest rank; `NaN` for no values.
 *
 * @since 0.1.0
 * @category statistics
 */
export const quantile = (values: ReadonlyArray<number>, q: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN
}

const decodeLine = Schema.decodeUnknownSync(Schema.fromJsonString(Api.Line))

/** One turn as the client saw it. */
interface Turn {
  readonly ms: number
  readonly wall: number
  readonly status: string
  readonly forwarded: boolean
}

/** Posts one prompt and reads its stream to `run_ended`; fails on any other answer. */
const turn = async (target: RunnerProcess.RunnerProcess, id: string): Promise<Turn> => {
  const started = performance.now()
  const response = await fetch(`${target.http}/sessions/${id}/prompt`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ prompt: "hello" })
  })
  const text = await response.text()
  const ms = performance.now() - started
  const lines = text
    .trimEnd()
    .split("\n")
    .map((line) => decodeLine(line))
  const last = lines[lines.length - 1]
  if (response.status !== 200 || last === undefined || !("event" in last) || last.event.type !== "run_ended") {
    throw new Error(`session ${id}: ${response.status} ${text.slice(0, 500)}`)
  }
  return { ms, wall: last.event.wall_ms, status: last.event.status, forwarded: last.runner !== target.runner }
}

/** Runs `sessions` one-turn sessions with `concurrency` in flight, round-robin over `targets`. */
const sample = async (
  targets: ReadonlyArray<RunnerProcess.RunnerProcess>,
  prefix: string,
  plan: Pick<Plan, "sessions" | "concurrency">
): Promise<Sample> => {
  const results: Array<Turn> = []
  let next = 0
  const worker = async () => {
    while (next < plan.sessions) {
      const index = next++
      const target = targets[index % targets.length]
      if (target === undefined) throw new Error("no runner")
      results.push(await turn(target, `${prefix}-${index}`))
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: plan.concurrency }, worker))
  const seconds = (performance.now() - started) / 1_000
  return {
    sessionsPerSecond: plan.sessions / seconds,
    latencies: results.map((result) => result.ms),
    runWalls: results.map((result) => result.wall),
    forwarded: results.filter((result) => result.forwarded).length,
    notCompleted: results.filter((result) => result.status !== "completed").map((result) => result.status)
  }
}

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")

/**
 * Runs the plan and prints its table.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (plan: Plan): Promise<void> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const setupStarted = performance.now()
        const postgres = yield* TempPostgres.start()
        const provider = yield* FakeProvider.make(
          FaultPlan.make([{ kind: "reply", text: "Hello.", delay_ms: plan.modelLatencyMs }], { after: "repeat_last" })
        )
        const clusters = yield* Effect.forEach(
          plan.runners,
          (count) =>
            Effect.gen(function* () {
              const databaseUrl = yield* RunnerProcess.freshDatabase(postgres.url, `scale_${count}`)
              const runners = yield* Effect.forEach(
                Array.from({ length: count }),
                () => RunnerProcess.start({ databaseUrl, providerUrl: provider.url }),
                { concurrency: "unbounded" }
              )
              yield* RunnerProcess.awaitShards(databaseUrl, count, { timeout: "5 minutes" })
              return { count, runners }
            }),
          { concurrency: "unbounded" }
        )
        console.log(
          `set up ${clusters.reduce((sum, cluster) => sum + cluster.count, 0)} runner processes in ` +
            `${((performance.now() - setupStarted) / 1_000).toFixed(0)} s; load average ${load()}`
        )
        const samples = yield* Effect.promise(async () => {
          for (const cluster of clusters)
            await sample(cluster.runners, `warm-${cluster.count}`, { sessions: 20, concurrency: 10 })
          let round = 0
          return Measure.interleave(
            clusters.map((cluster) => ({
              name: `${cluster.count}`,
              samples: plan.rounds,
              measure: () => sample(cluster.runners, `r${round++}-${cluster.count}`, plan)
            })),
            plan.rounds
          )
        })
        const rows = clusters.map((cluster, index) => {
          const taken = samples[index] ?? []
          return {
            count: cluster.count,
            rate: Measure.median(taken.map((s) => s.sessionsPerSecond)),
            p50: Measure.median(taken.map((s) => quantile(s.latencies, 0.5))),
            p99: Measure.median(taken.map((s) => quantile(s.latencies, 0.99))),
            runWall: Measure.median(taken.map((s) => quantile(s.runWalls, 0.5))),
            forwarded: Measure.median(taken.map((s) => s.forwarded / s.latencies.length)),
            notCompleted: taken.flatMap((s) => s.notCompleted)
          }
        })
        const base = rows[0]
        console.log(
          `\n${plan.sessions} one-turn sessions a sample, ${plan.concurrency} in flight, model latency ${plan.modelLatencyMs} ms; ` +
            `medians of ${plan.rounds} interleaved rounds; ${os.availableParallelism()} cores`
        )
        console.log(
          Report.table(
            [
              "runners",
              "sessions/s",
              "vs 1",
              "turn p50 ms",
              "vs 1",
              "turn p99 ms",
              "vs 1",
              "run wall p50 ms",
              "ran elsewhere",
              "not completed"
            ],
            rows.map((row) => [
              `${row.count}`,
              Report.figure(row.rate),
              Report.times(row.rate / (base?.rate ?? Number.NaN)),
              Report.figure(row.p50),
              Report.times(row.p50 / (base?.p50 ?? Number.NaN)),
              Report.figure(row.p99),
              Report.times(row.p99 / (base?.p99 ?? Number.NaN)),
              Report.figure(row.runWall),
              `${Math.round(row.forwarded * 100)} %`,
              row.notCompleted.length === 0
                ? "0"
                : `${row.notCompleted.length} (${[...new Set(row.notCompleted)].join(", ")})`
            ])
          )
        )
        console.log(`load average ${load()} at the end; model requests ${(yield* provider.requests).length}`)
      })
    )
  )
