/**
 * The adaptive limiter against static ones: many sessions share one provider
 * account that admits `capacity` requests a second, once with the capacity
 * steady and once with it halving mid-run.
 *
 * The provider is the fake provider server over real HTTP on 127.0.0.1 in
 * its capacity mode (429 with a retry-after above the capacity; with a
 * capacity change for the halving). Every session is one run of one model
 * call, all started together, through the Anthropic provider with the
 * kernel's retry policy (base delay 200 ms, full jitter, 5 retries a call):
 * per-session budgets only, so that the limiter is the one difference.
 *
 * - no limiter: each session retries on its own.
 * - static, set right: `ProviderLimiter` at the provider's (first) capacity.
 * - static, 2x too high: at twice that.
 * - adaptive: `ProviderLimiter` with `adaptive` and the default policy, told
 *   nothing about the capacity.
 *
 * Figures: attempts per success (requests the server saw ÷ completed runs),
 * completion (completed runs ÷ sessions), p50 and p99 of a session's run
 * time, the 429s, and with the halving the time to converge: the whole
 * seconds from the halving to the first second from which at most 10 % of
 * the requests were answered 429 in each second, while the load lasts
 * (until fewer sessions are left than the halved capacity admits in a
 * second).
 *
 * Rounds interleave the ways (each round measures every scenario and way
 * in turn), so the machine's noise falls on all of them alike; each figure
 * is the median over rounds, and each goal the median of its ratio within
 * a round.
 *
 * @since 0.2.0
 */
import { ProviderLimiter, StateStore } from "@agent-kernel/cluster"
import { Session, Settings } from "@agent-kernel/kernel"
import { Anthropic } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { performance } from "node:perf_hooks"
import * as Goal from "./Goal.js"
import * as Measure from "./Measure.js"
import * as Report from "./Report.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Plan {
  readonly sessions: number
  /** Requests a second the fake provider admits (at first, with the halving). */
  readonly capacity: number
  /** When the capacity halves, in milliseconds after the server starts. */
  readonly halveAfterMs: number
  /** Rounds, each measuring every way in turn; the figures are their medians. */
  readonly rounds: number
}

/**
 * @since 0.2.0
 * @category plans
 */
export const plans: { readonly full: Plan; readonly quick: Plan } = {
  full: { sessions: 1_000, capacity: 50, halveAfterMs: 10_000, rounds: 3 },
  quick: { sessions: 200, capacity: 20, halveAfterMs: 5_000, rounds: 1 }
}

type Mode = "no limiter" | "static, set right" | "static, 2x too high" | "adaptive"

const modes: ReadonlyArray<Mode> = ["no limiter", "static, set right", "static, 2x too high", "adaptive"]

type Scenario = "steady" | "capacity halves"

interface Row {
  readonly scenario: Scenario
  readonly mode: Mode
  readonly sessions: number
  readonly attempts: number
  readonly completed: number
  readonly throttled: number
  readonly p50: number
  readonly p99: number
  /** Seconds from the halving to convergence; `undefined` when the run never converged, or had no halving. */
  readonly converged: number | undefined
  readonly seconds: number
}

const limiterFor = (mode: Mode, capacity: number): Layer.Layer<ProviderLimiter.ProviderLimiter> | undefined => {
  switch (mode) {
    case "no limiter":
      return undefined
    case "static, set right":
      return ProviderLimiter.layerMemory({ key: "bench", requests: { limit: capacity, window: "1 second", burst: 1 } })
    case "static, 2x too high":
      return ProviderLimiter.layerMemory({
        key: "bench",
        requests: { limit: 2 * capacity, window: "1 second", burst: 1 }
      })
    case "adaptive":
      return ProviderLimiter.layerAdaptive({ key: "bench" }).pipe(Layer.provide(StateStore.layerMemory))
  }
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN)

/**
 * Seconds from `from` to the first whole second from which every whole
 * second up to `until` had at most 10 % of its requests answered 429;
 * `undefined` when none before `until` has.
 *
 * @since 0.2.0
 * @category figures
 */
export const convergence = (
  requests: ReadonlyArray<{ readonly time: number; readonly throttled: boolean }>,
  from: number,
  until: number
): number | undefined => {
  const seconds = Math.ceil((until - from) / 1_000)
  const calm = Array.from({ length: seconds }, (_, second) => {
    const within = requests.filter(
      (request) => request.time >= from + second * 1_000 && request.time < Math.min(until, from + (second + 1) * 1_000)
    )
    return within.filter((request) => request.throttled).length <= 0.1 * within.length
  })
  const firstOfLastCalmRun = calm.lastIndexOf(false) + 1
  return firstOfLastCalmRun < seconds ? firstOfLastCalmRun : undefined
}

/** When fewer sessions than `count` were left running (epoch milliseconds). */
const busyUntil = (ends: ReadonlyArray<number>, count: number): number => {
  const sorted = [...ends].sort((a, b) => a - b)
  return sorted[Math.max(0, sorted.length - count)] ?? 0
}

const halved = (plan: Plan): number => Math.max(1, Math.round(plan.capacity / 2))

const measure = (scenario: Scenario, mode: Mode, plan: Plan): Promise<Row> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const faults =
          scenario === "steady"
            ? FaultPlan.capacityLimited(plan.capacity)
            : FaultPlan.capacitySchedule(plan.capacity, [
                { after_ms: plan.halveAfterMs, requests_per_second: halved(plan) }
              ])
        const server = yield* FakeProvider.make(faults)
        const serverStart = Date.now()
        const provider = Anthropic.layer({ baseUrl: server.url, apiKey: Redacted.make("bench"), stream: false }).pipe(
          Layer.provide(NodeTransport.layer())
        )
        const limiter = limiterFor(mode, plan.capacity)
        const model =
          limiter === undefined
            ? provider
            : ProviderLimiter.provider.pipe(Layer.provide(provider), Layer.provide(limiter))
        const settings = yield* Settings.decode({ base_delay_ms: 200, max_retries: 5, jitter: "full" })
        const started = performance.now()
        const outcomes = yield* Effect.forEach(
          Array.from({ length: plan.sessions }),
          () =>
            Effect.gen(function* () {
              const session = yield* Session.make({ model: "fake-model", settings })
              const from = performance.now()
              const outcome = yield* session.run("hello")
              return { status: outcome.status, seconds: (performance.now() - from) / 1_000, end: Date.now() }
            }),
          { concurrency: "unbounded" }
        ).pipe(Effect.provide(model))
        const seconds = (performance.now() - started) / 1_000
        const requests = yield* server.requests
        const times = outcomes.map((outcome) => outcome.seconds).sort((a, b) => a - b)
        return {
          scenario,
          mode,
          sessions: plan.sessions,
          attempts: requests.length,
          completed: outcomes.filter((outcome) => outcome.status === "completed").length,
          throttled: requests.filter((request) => request.throttled).length,
          p50: percentile(times, 0.5),
          p99: percentile(times, 0.99),
          converged:
            scenario === "steady"
              ? undefined
              : convergence(
                  requests,
                  serverStart + plan.halveAfterMs,
                  busyUntil(
                    outcomes.map((outcome) => outcome.end),
                    halved(plan)
                  )
                ),
          seconds
        }
      })
    )
  )

const completionGoal = Goal.make(
  "adaptive limiter's completion ÷ the static limiter's set right, capacity steady",
  "at least",
  0.9,
  "x",
  "issue 26"
)

const attemptsGoal = Goal.make(
  "adaptive limiter's attempts per success ÷ the static limiter's set right, capacity steady",
  "at most",
  1.1,
  "x",
  "issue 26"
)

const perSuccess = (row: Row): number => (row.completed === 0 ? Number.NaN : row.attempts / row.completed)

const completion = (row: Row): number => row.completed / row.sessions

/**
 * Measures, prints the tables and judges the goal: the adaptive limiter
 * within 10 % of the static limiter set right, in completion and in
 * attempts per success, with the capacity steady.
 *
 * @since 0.2.0
 * @category running
 */
export const run = async (plan: Plan): Promise<ReadonlyArray<Goal.Verdict>> => {
  const rounds: Array<ReadonlyArray<Row>> = []
  for (let round = 0; round < plan.rounds; round++) {
    const rows: Array<Row> = []
    for (const scenario of ["steady", "capacity halves"] as const)
      for (const mode of modes) rows.push(await measure(scenario, mode, plan))
    rounds.push(rows)
  }
  const each = (scenario: Scenario, mode: Mode) =>
    rounds.flatMap((rows) => rows.filter((row) => row.scenario === scenario && row.mode === mode))
  const median = (rows: ReadonlyArray<Row>, figure: (row: Row) => number) => Measure.median(rows.map(figure))
  for (const scenario of ["steady", "capacity halves"] as const) {
    console.log(
      scenario === "steady"
        ? `\n${plan.sessions.toLocaleString("en-US")} sessions against a fake provider admitting ${plan.capacity} requests a second`
        : `\nThe same, the capacity halving to ${halved(plan)} a second ${plan.halveAfterMs / 1_000} s in`
    )
    console.log(
      Report.table(
        [
          "limiter",
          "attempts/success",
          "completion",
          "p50 s",
          "p99 s",
          "429s",
          ...(scenario === "steady" ? [] : ["converged s after, each round"]),
          "wall s"
        ],
        modes.map((mode) => {
          const rows = each(scenario, mode)
          return [
            mode,
            Report.figure(median(rows, perSuccess)),
            `${(median(rows, completion) * 100).toFixed(1)} %`,
            Report.figure(median(rows, (row) => row.p50)),
            Report.figure(median(rows, (row) => row.p99)),
            median(rows, (row) => row.throttled).toLocaleString("en-US"),
            ...(scenario === "steady"
              ? []
              : [
                  rows.map((row) => (row.converged === undefined ? "not under load" : String(row.converged))).join(", ")
                ]),
            Report.figure(median(rows, (row) => row.seconds))
          ]
        })
      )
    )
  }
  const ratios = (figure: (row: Row) => number) =>
    Measure.median(
      rounds.map((rows) => {
        const steady = (mode: Mode) => rows.find((row) => row.scenario === "steady" && row.mode === mode)
        const right = steady("static, set right")
        const adaptive = steady("adaptive")
        return right === undefined || adaptive === undefined
          ? Number.NaN
          : (Goal.ratio(figure(adaptive), figure(right)) ?? Number.NaN)
      })
    )
  return [Goal.judge(completionGoal, ratios(completion)), Goal.judge(attemptsGoal, ratios(perSuccess))]
}
