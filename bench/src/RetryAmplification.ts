/**
 * Retry amplification (issue 15): attempts per success when many sessions
 * share one overloaded provider account, with per-session budgets only,
 * with the provider-wide retry quota on top, and with the provider-wide
 * limiter as well.
 *
 * The provider is the fake provider server over real HTTP on 127.0.0.1 in
 * its capacity mode: it admits `capacity` requests in any second and
 * answers the rest 429 with a retry-after (in milliseconds) saying when the
 * window has room again, as a rate-limited account does. Every session is
 * one run of one model call (`hello`, no tools), all started together,
 * through the Anthropic provider with the kernel's retry policy (base delay
 * 200 ms, full jitter, 5 retries a call, 20 a session).
 *
 * - per-session budgets only: each session retries on its own.
 * - + shared retry quota: the kernel's `RetryQuota` shared by every session
 *   of the process, an AWS-style token bucket (capacity 50, a retry costs 5,
 *   a success gives 1 back). A refused retry ends its run
 *   `retry_budget_exhausted`.
 * - + shared limiter: the quota, and `ProviderLimiter` at the provider's
 *   capacity (in memory: one process), so that attempts wait for their turn
 *   instead of meeting a 429.
 *
 * The figures are counts, not times: attempts (requests the server saw),
 * successes (completed runs), their ratio, and the 429s. The wall time is
 * printed for orientation only.
 *
 * @since 0.1.0
 */
import { ProviderLimiter } from "@agent-kernel/cluster"
import { RetryBudget, RetryQuota, Session, Settings } from "@agent-kernel/kernel"
import { Anthropic } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { performance } from "node:perf_hooks"
import type * as Goal from "./Goal.js"
import * as Report from "./Report.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  readonly sessions: ReadonlyArray<number>
  /** Requests a second the fake provider admits. */
  readonly capacity: number
}

/**
 * @since 0.1.0
 * @category plans
 */
export const plans: { readonly full: Plan; readonly quick: Plan } = {
  full: { sessions: [100, 1_000], capacity: 20 },
  quick: { sessions: [100], capacity: 20 }
}

type Mode = "per-session budgets only" | "+ shared retry quota" | "+ shared retry quota and limiter"

const modes: ReadonlyArray<Mode> = [
  "per-session budgets only",
  "+ shared retry quota",
  "+ shared retry quota and limiter"
]

interface Row {
  readonly sessions: number
  readonly mode: Mode
  readonly attempts: number
  readonly successes: number
  readonly throttled: number
  readonly budgetEnded: number
  readonly seconds: number
}

const quota = RetryBudget.tokenBucket({ capacity: 50, retryCost: 5, successRefund: 1 })

const measure = (sessions: number, mode: Mode, capacity: number): Promise<Row> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FakeProvider.make(FaultPlan.capacityLimited(capacity))
        const provider = Anthropic.layer({ baseUrl: server.url, apiKey: Redacted.make("bench"), stream: false }).pipe(
          Layer.provide(NodeTransport.layer())
        )
        const model =
          mode === "+ shared retry quota and limiter"
            ? ProviderLimiter.provider.pipe(
                Layer.provide(provider),
                Layer.provide(
                  ProviderLimiter.layerMemory({
                    key: "bench",
                    requests: { limit: capacity, window: "1 second", burst: 1 }
                  })
                )
              )
            : provider
        const shared = mode === "per-session budgets only" ? Layer.empty : RetryQuota.layer(quota)
        const settings = yield* Settings.decode({ base_delay_ms: 200, max_retries: 5, jitter: "full" })
        const started = performance.now()
        const outcomes = yield* Effect.forEach(
          Array.from({ length: sessions }),
          () => Effect.flatMap(Session.make({ model: "fake-model", settings }), (session) => session.run("hello")),
          { concurrency: "unbounded" }
        ).pipe(Effect.provide(Layer.merge(model, shared)))
        const seconds = (performance.now() - started) / 1_000
        const requests = yield* server.requests
        return {
          sessions,
          mode,
          attempts: requests.length,
          successes: outcomes.filter((outcome) => outcome.status === "completed").length,
          throttled: requests.filter((request) => request.throttled).length,
          budgetEnded: outcomes.filter((outcome) => outcome.status === "retry_budget_exhausted").length,
          seconds
        }
      })
    )
  )

/**
 * Measures and prints the table. No goal is judged: the issue asks for the
 * figures.
 *
 * @since 0.1.0
 * @category running
 */
export const run = async (plan: Plan): Promise<ReadonlyArray<Goal.Verdict>> => {
  const rows: Array<Row> = []
  for (const sessions of plan.sessions)
    for (const mode of modes) rows.push(await measure(sessions, mode, plan.capacity))
  console.log(
    `\nRetry amplification against a fake provider admitting ${plan.capacity} requests a second (429 above it)`
  )
  console.log(
    Report.table(
      ["sessions", "budgets", "attempts", "completed", "attempts/success", "429s", "ended by a budget", "wall s"],
      rows.map((row) => [
        row.sessions.toLocaleString("en-US"),
        row.mode,
        row.attempts.toLocaleString("en-US"),
        row.successes.toLocaleString("en-US"),
        Report.figure(row.successes === 0 ? Number.NaN : row.attempts / row.successes),
        row.throttled.toLocaleString("en-US"),
        row.budgetEnded.toLocaleString("en-US"),
        Report.figure(row.seconds)
      ])
    )
  )
  return []
}
