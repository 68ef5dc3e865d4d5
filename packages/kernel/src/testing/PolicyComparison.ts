/**
 * Compares retry policies on a fleet: N clients, each running a session of
 * T model calls, against one provider with a fixed capacity, in virtual time.
 * For each policy it reports completion, attempts per success (the retry
 * amplification the provider sees), the p50 and p99 run time, and the retry
 * budget spent: the figure to choose a policy by.
 *
 * Two kinds of contenders meet the same provider on the same virtual clock:
 *
 * - **Kernel policies** (the kernel's default and a user's own settings) run
 *   as the real kernel: one `Session` per client, whose model is the shared
 *   capacity-limited provider. The figures are what the kernel does, with
 *   its per-call cap, its session budget and its floor at the retry-after.
 * - **Anchor policies** (the Anthropic TypeScript SDK's and the Vercel AI
 *   SDK's retry loops, `anthropicSdk` and `vercelAiSdk`) run as faithful
 *   clients of their documented loops: per request, up to `max_retries`
 *   retries, each after the anchor's backoff or the server's retry-after as
 *   that anchor reads it. They do not get the kernel's rules: an anchor may
 *   retry sooner than a retry-after (Vercel does when the hint is 60 s or
 *   more and its backoff is shorter) and has no session budget.
 *
 * The provider admits `capacity_rps` requests in any second
 * (`Capacity.admit`, the fake server's rule) and answers the rest 429 with a
 * retry-after of the milliseconds until it has room. An admitted call
 * answers at once. Jitter is drawn from `Random.withSeed(seed)`, so a
 * comparison is deterministic: the same scenario gives the same report, to
 * the byte (`toJson`).
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Formatter from "effect/Formatter"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as KernelEvent from "../KernelEvent.js"
import * as ModelError from "../ModelError.js"
import * as ModelProvider from "../ModelProvider.js"
import * as RetryPolicy from "../RetryPolicy.js"
import * as Session from "../Session.js"
import * as Settings from "../Settings.js"
import * as Toolbox from "../Toolbox.js"
import * as Capacity from "./Capacity.js"
import * as InstantTool from "./internal/instantTool.js"
import * as VirtualClock from "./internal/virtualClock.js"
import * as ScriptedModel from "./ScriptedModel.js"
import * as Simulator from "./Simulator.js"

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0, { expected: "a positive integer" }))
const NonNegativeMillis = Schema.Number.check(
  Schema.isFinite().abort(),
  Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative number" })
)

/** A fleet's size in successful calls: the comparison runs every one of them, once per policy. */
const maxModelCalls = 1_000_000

/**
 * What a 429 of the provider says about when it has room (see `Scenario`).
 *
 * @since 1.0.0
 * @category schemas
 */
export const RetryAfterHint = Schema.Literals(["ms", "seconds", "none"])

/**
 * @since 1.0.0
 * @category models
 */
export type RetryAfterHint = typeof RetryAfterHint.Type

/**
 * The scenario of a comparison: at most a million successful calls in all
 * (`clients` x `turns`), each policy's fleet runs every one of them.
 *
 * @since 1.0.0
 * @category schemas
 */
export const Scenario = Schema.Struct({
  /** Simulated clients, each running one session. */
  clients: PositiveInt.check(Schema.isLessThanOrEqualTo(100_000, { expected: "at most 100000 clients" })),
  /** Requests the provider admits in any one second; the rest get a 429 with a retry-after. */
  capacity_rps: PositiveInt,
  /** Successful model calls each client's run needs (a tool call between each). */
  turns: PositiveInt.check(Schema.isLessThanOrEqualTo(1_000, { expected: "at most 1000 turns" })),
  /** The clients start evenly spread over this window (0: all at once). */
  arrival_ms: NonNegativeMillis,
  /**
   * What the provider's 429 says about when it has room: `ms`, the exact
   * wait (a `retry-after-ms`, which the fake server sends and every client
   * here reads first); `seconds`, that wait rounded up to whole seconds (a
   * `retry-after` alone); `none`, nothing.
   */
  retry_after: RetryAfterHint,
  /** Seeds the jitter of every policy. */
  seed: Schema.Int
}).check(
  Schema.makeFilter((scenario) =>
    scenario.clients * scenario.turns <= maxModelCalls
      ? undefined
      : {
          path: ["turns"],
          issue: `Expected at most ${maxModelCalls} successful calls in all (clients x turns), got ${scenario.clients} x ${scenario.turns}`
        }
  )
)

/**
 * @since 1.0.0
 * @category models
 */
export interface Scenario extends Schema.Schema.Type<typeof Scenario> {}

/**
 * A scenario's defaults: 1,000 clients of 3 turns each, all at once, against
 * a provider admitting 50 requests a second whose 429 says in milliseconds
 * when it has room, seed 1.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultScenario: Scenario = {
  clients: 1_000,
  capacity_rps: 50,
  turns: 3,
  arrival_ms: 0,
  retry_after: "ms",
  seed: 1
}

/**
 * An anchor's retry loop, as its source documents it. Per request: up to
 * `max_retries` retries; the n-th (from 0) waits
 * `min(initial_delay_ms * backoff_factor^n, max_delay_ms) * (1 - U[0,1) * jitter_fraction)`,
 * unless the server's retry-after is used instead: when `retry_after_below_ms`
 * is `null` (any hint), when the hint is below it, or, with
 * `retry_after_below_backoff`, when the hint is below the backoff.
 *
 * @since 1.0.0
 * @category schemas
 */
export const Anchor = Schema.Struct({
  max_retries: Schema.Int,
  initial_delay_ms: Schema.Number,
  backoff_factor: Schema.Number,
  max_delay_ms: Schema.NullOr(Schema.Number),
  jitter_fraction: Schema.Number,
  retry_after_below_ms: Schema.NullOr(Schema.Number),
  retry_after_below_backoff: Schema.Boolean,
  /** Where the numbers are read from, at the commit read. */
  source: Schema.String
})

/**
 * @since 1.0.0
 * @category models
 */
export interface Anchor extends Schema.Schema.Type<typeof Anchor> {}

/**
 * The Anthropic TypeScript SDK (`@anthropic-ai/sdk`): 2 retries, 0.5 s
 * doubling, capped at 8 s, each times U(0.75, 1]; a `retry-after-ms` or
 * `retry-after` of any length is waited as is.
 *
 * @since 1.0.0
 * @category anchors
 */
export const anthropicSdk: Anchor = {
  max_retries: 2,
  initial_delay_ms: 500,
  backoff_factor: 2,
  max_delay_ms: 8_000,
  jitter_fraction: 0.25,
  retry_after_below_ms: null,
  retry_after_below_backoff: false,
  source:
    "https://github.com/anthropics/anthropic-sdk-typescript/blob/00da52f8f1413b6928548c30d769f562f0f6be23/src/client.ts"
}

/**
 * The Vercel AI SDK (`ai`): 2 retries, 2 s doubling, no cap, no jitter; a
 * retry-after is used when it is below 60 s or below the backoff.
 *
 * @since 1.0.0
 * @category anchors
 */
export const vercelAiSdk: Anchor = {
  max_retries: 2,
  initial_delay_ms: 2_000,
  backoff_factor: 2,
  max_delay_ms: null,
  jitter_fraction: 0,
  retry_after_below_ms: 60_000,
  retry_after_below_backoff: true,
  source:
    "https://github.com/vercel/ai/blob/0530ac3468d5d99678cde339bacc0d8e7beb4fd6/packages/ai/src/util/retry-with-exponential-backoff.ts"
}

/**
 * An anchor's backoff before its `retry`-th retry (from 0), before jitter.
 *
 * @since 1.0.0
 * @category anchors
 */
export const anchorBackoff = (anchor: Anchor, retry: number): number => {
  const delay = anchor.initial_delay_ms * anchor.backoff_factor ** retry
  return anchor.max_delay_ms === null ? delay : Math.min(delay, anchor.max_delay_ms)
}

/**
 * Whether an anchor waits the server's retry-after (rather than its backoff)
 * before its `retry`-th retry. An anchor that takes any hint takes one in the
 * past too (an HTTP date gone by), and retries at once; one with a ceiling
 * takes only a hint from 0.
 *
 * @since 1.0.0
 * @category anchors
 */
export const usesRetryAfter = (anchor: Anchor, retry: number, retryAfterMs: number): boolean =>
  anchor.retry_after_below_ms === null ||
  (retryAfterMs >= 0 &&
    (retryAfterMs < anchor.retry_after_below_ms ||
      (anchor.retry_after_below_backoff && retryAfterMs < anchorBackoff(anchor, retry))))

/**
 * The wait of an anchor before its `retry`-th retry (from 0), given the
 * server's retry-after (if any) and a uniform draw in [0, 1) for its jitter.
 *
 * @example
 * ```ts
 * import { PolicyComparison } from "@agent-kernel/kernel/testing"
 *
 * PolicyComparison.anchorDelay(PolicyComparison.vercelAiSdk, 1, undefined, 0) // 4000
 * PolicyComparison.anchorDelay(PolicyComparison.vercelAiSdk, 0, 90_000, 0) // 2000: a hint of 60 s or more is ignored
 * ```
 *
 * @since 1.0.0
 * @category anchors
 */
export const anchorDelay = (anchor: Anchor, retry: number, retryAfterMs: number | undefined, random: number): number =>
  retryAfterMs !== undefined && usesRetryAfter(anchor, retry, retryAfterMs)
    ? Math.max(0, retryAfterMs)
    : anchorBackoff(anchor, retry) * (1 - random * anchor.jitter_fraction)

/**
 * The retry settings a kernel policy runs with (the rest of the settings do
 * not act in the scenario).
 *
 * @since 1.0.0
 * @category schemas
 */
export const KernelParameters = Schema.Struct({
  base_delay_ms: Schema.Number,
  backoff_factor: Schema.Number,
  max_retries: Schema.Number,
  max_delay_ms: Schema.Number,
  jitter: Settings.JitterKind,
  max_retry_wait_ms: Schema.Number,
  max_session_retries: Schema.Number,
  session_retries_refill: Schema.Boolean
})

/**
 * @since 1.0.0
 * @category models
 */
export interface KernelParameters extends Schema.Schema.Type<typeof KernelParameters> {}

const kernelParameters = (settings: Settings.Settings): KernelParameters => ({
  base_delay_ms: settings.base_delay_ms,
  backoff_factor: settings.backoff_factor,
  max_retries: settings.max_retries,
  max_delay_ms: settings.max_delay_ms,
  jitter: settings.jitter,
  max_retry_wait_ms: settings.max_retry_wait_ms,
  max_session_retries: settings.max_session_retries,
  session_retries_refill: settings.session_retries_refill
})

/**
 * What stands between a kernel policy's sessions and the provider: a rate
 * limiter, say, which a package above the kernel supplies. `make` runs once
 * per fleet, on the fleet's virtual clock and with its seeded `Random`, so
 * state it keeps is shared by every client of the fleet and the report stays
 * deterministic; what it returns wraps each client's `ModelProvider`.
 *
 * @example
 * ```ts
 * import { Settings } from "@agent-kernel/kernel"
 * import { PolicyComparison } from "@agent-kernel/kernel/testing"
 * import { Effect } from "effect"
 *
 * // A front that lets every call through: the figures are those of the bare policy.
 * const passThrough: PolicyComparison.Front = { label: "nothing", make: Effect.succeed((provider) => provider) }
 * const contender: PolicyComparison.Contender = {
 *   _tag: "Kernel",
 *   name: "kernel-default-behind-nothing",
 *   label: "agent-kernel default, behind nothing",
 *   settings: Settings.defaults,
 *   front: passThrough
 * }
 * ```
 *
 * @since 1.0.0
 * @category models
 */
export interface Front {
  /** What it is, for the report (`in_front`). */
  readonly label: string
  /** Run once per fleet: the wrapper of each client's provider. */
  readonly make: Effect.Effect<(provider: ModelProvider.Service) => ModelProvider.Service>
}

/**
 * A contender: a kernel policy (run as the real kernel, with these settings,
 * optionally behind a `Front`) or an anchor (run as a client of its
 * documented loop).
 *
 * @since 1.0.0
 * @category models
 */
export type Contender =
  | {
      readonly _tag: "Kernel"
      readonly name: string
      readonly label: string
      readonly settings: Settings.Settings
      readonly front?: Front | undefined
    }
  | { readonly _tag: "Anchor"; readonly name: string; readonly label: string; readonly anchor: Anchor }

/**
 * The contenders of `agent compare-policies`: the kernel's default, the
 * Anthropic SDK's, the Vercel AI SDK's and, when given, the user's settings.
 *
 * @since 1.0.0
 * @category constructors
 */
export const contenders = (yours?: Settings.Settings | undefined): ReadonlyArray<Contender> => [
  { _tag: "Kernel", name: "kernel-default", label: "agent-kernel default", settings: Settings.defaults },
  { _tag: "Anchor", name: "anthropic-sdk", label: "Anthropic SDK", anchor: anthropicSdk },
  { _tag: "Anchor", name: "vercel-ai-sdk", label: "Vercel AI SDK", anchor: vercelAiSdk },
  ...(yours === undefined
    ? []
    : [{ _tag: "Kernel", name: "yours", label: "your settings", settings: yours } satisfies Contender])
]

const Count = Schema.Int

/**
 * A policy's figures over the fleet.
 *
 * @since 1.0.0
 * @category schemas
 */
export const Figures = Schema.Struct({
  /** Runs that completed every turn. */
  completed: Count,
  /** `completed` as a percentage of the clients (two decimals). */
  completion_pct: Schema.Number,
  /** Requests the provider received, first attempts and retries. */
  attempts: Count,
  /** Requests the provider admitted. */
  successes: Count,
  /** `attempts / successes` (four decimals): the retry amplification; `null` when none succeeded. */
  attempts_per_success: Schema.NullOr(Schema.Number),
  /** Run time of the completed runs, from a client's start to its last answer (ms, rounded); `null` when none completed. */
  latency_p50_ms: Schema.NullOr(Schema.Number),
  latency_p99_ms: Schema.NullOr(Schema.Number),
  /** Retries over the fleet: the retry budget spent. */
  retries: Count,
  /** `retries / clients` (four decimals). */
  retries_per_client: Schema.Number,
  /** Runs that ended because their session budget ran out (anchors have none). */
  budget_exhausted: Count,
  /** How the runs ended: each status that occurred and how many, by status name. */
  outcomes: Schema.Record(Schema.String, Count),
  /** When the last run ended, from the first client's start (ms, rounded). */
  makespan_ms: Schema.Number
})

/**
 * @since 1.0.0
 * @category models
 */
export interface Figures extends Schema.Schema.Type<typeof Figures> {}

/**
 * One policy's row of the report: what it is, how it ran, its figures.
 *
 * @since 1.0.0
 * @category schemas
 */
export const PolicyResult = Schema.Union([
  Schema.Struct({
    name: Schema.String,
    label: Schema.String,
    /** Run as the real kernel, one session per client. */
    runs_as: Schema.Literal("kernel"),
    parameters: KernelParameters,
    /** What stood between its sessions and the provider (`Front.label`); absent when nothing did. */
    in_front: Schema.optionalKey(Schema.String),
    figures: Figures
  }),
  Schema.Struct({
    name: Schema.String,
    label: Schema.String,
    /** Run as a client of the anchor's documented retry loop. */
    runs_as: Schema.Literal("anchor"),
    parameters: Anchor,
    figures: Figures
  })
])

/**
 * @since 1.0.0
 * @category models
 */
export type PolicyResult = typeof PolicyResult.Type

/**
 * A comparison: its scenario and each policy's result, in the contenders' order.
 *
 * @since 1.0.0
 * @category schemas
 */
export const Report = Schema.Struct({
  /** The report's format; a change to a field's name or meaning changes it. */
  format: Schema.Literal("agent-kernel/policy-comparison@1"),
  scenario: Scenario,
  policies: Schema.Array(PolicyResult)
})

/**
 * @since 1.0.0
 * @category models
 */
export interface Report extends Schema.Schema.Type<typeof Report> {}

/** How one client's run ended. */
interface ClientEnd {
  readonly status: KernelEvent.RunStatus
  readonly retries: number
}

interface Timed extends ClientEnd {
  readonly latency_ms: number
  readonly finished_at: number
}

/** The provider every client of one fleet calls: admission by capacity, and its counts. */
interface SharedProvider {
  /** One request now: admitted, or refused with its retry-after in ms (`undefined` when the provider sends none). */
  readonly attempt: Effect.Effect<"admitted" | number | undefined>
  readonly counts: Effect.Effect<{ readonly attempts: number; readonly successes: number }>
}

/** The retry-after a refusal carries, in ms, for the wait until the window has room. */
const hintOf = (hint: RetryAfterHint, waitMs: number): number | undefined =>
  hint === "ms" ? waitMs : hint === "seconds" ? Capacity.retryAfterSeconds(waitMs) * 1_000 : undefined

const sharedProvider = (scenario: Scenario): Effect.Effect<SharedProvider> =>
  Effect.gen(function* () {
    const window = yield* Ref.make(Capacity.empty)
    const attempts = yield* Ref.make(0)
    const successes = yield* Ref.make(0)
    const attempt = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const refusal = yield* Ref.modify(window, (current) => Capacity.admit(current, scenario.capacity_rps, now))
      yield* Ref.update(attempts, (n) => n + 1)
      if (Option.isNone(refusal)) {
        yield* Ref.update(successes, (n) => n + 1)
        return "admitted" as const
      }
      return hintOf(scenario.retry_after, refusal.value)
    })
    const counts = Effect.all({ attempts: Ref.get(attempts), successes: Ref.get(successes) })
    return { attempt, counts }
  })

const providerName = "capacity-limited"

/** One client's model: the shared provider's admission; an admitted call asks for a tool until the last turn. */
const clientModel = (provider: SharedProvider, turns: number): Effect.Effect<ModelProvider.Service> =>
  Effect.map(Ref.make(0), (answered) =>
    ModelProvider.fromGenerate(providerName, (request) =>
      Effect.flatMap(provider.attempt, (answer) =>
        answer === "admitted"
          ? Effect.map(
              Ref.updateAndGet(answered, (n) => n + 1),
              (n) =>
                n < turns
                  ? ScriptedModel.toolCalls({ id: `call-${n}`, name: InstantTool.name })
                  : ScriptedModel.text("done")
            )
          : Effect.fail(
              ModelError.make("rate_limited", {
                provider: providerName,
                model: request.model,
                message: "capacity exceeded: slow down",
                status: 429,
                retryAfter: answer === undefined ? undefined : Duration.millis(answer)
              })
            )
      )
    )
  )

const kernelClient = (
  settings: Settings.Settings,
  scenario: Scenario,
  front: (provider: ModelProvider.Service) => ModelProvider.Service
) => {
  const policy = RetryPolicy.fromSettings(settings)
  // Every run takes the scenario's turns: the cap on turns is no part of the policy compared.
  const sessionSettings = { ...settings, max_turns: Math.max(settings.max_turns, scenario.turns) }
  return (provider: SharedProvider, index: number): Effect.Effect<ClientEnd> =>
    Effect.gen(function* () {
      const model = front(yield* clientModel(provider, scenario.turns))
      const session = yield* Session.make({
        id: `client-${index}`,
        model: "model",
        settings: sessionSettings,
        policy,
        metrics: false
      }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, model),
        Effect.provideService(Toolbox.Toolbox, InstantTool.toolbox)
      )
      const outcome = yield* session.run("go")
      return { status: outcome.status, retries: outcome.retries.session_total }
    })
}

const anchorClient =
  (anchor: Anchor, scenario: Scenario) =>
  (provider: SharedProvider): Effect.Effect<ClientEnd> =>
    Effect.gen(function* () {
      let retries = 0
      for (let turn = 0; turn < scenario.turns; turn++) {
        for (let retry = 0; ; retry++) {
          const answer = yield* provider.attempt
          if (answer === "admitted") break
          if (retry >= anchor.max_retries) return { status: "retries_exhausted", retries } satisfies ClientEnd
          const random = yield* Random.next
          yield* Effect.sleep(Duration.millis(anchorDelay(anchor, retry, answer, random)))
          retries++
        }
      }
      return { status: "completed", retries } satisfies ClientEnd
    })

const round = (value: number, digits: number): number => {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

const figuresOf = (
  ends: ReadonlyArray<Timed>,
  counts: { readonly attempts: number; readonly successes: number }
): Figures => {
  const completed = ends.filter((end) => end.status === "completed")
  const latencies = completed.map((end) => end.latency_ms).sort((a, b) => a - b)
  const retries = ends.reduce((sum, end) => sum + end.retries, 0)
  const outcomes: Record<string, number> = {}
  for (const status of KernelEvent.RunStatus.literals) {
    const n = ends.filter((end) => end.status === status).length
    if (n > 0) outcomes[status] = n
  }
  return {
    completed: completed.length,
    completion_pct: round((100 * completed.length) / ends.length, 2),
    attempts: counts.attempts,
    successes: counts.successes,
    attempts_per_success: counts.successes === 0 ? null : round(counts.attempts / counts.successes, 4),
    latency_p50_ms: latencies.length === 0 ? null : Math.round(Simulator.percentile(latencies, 50)),
    latency_p99_ms: latencies.length === 0 ? null : Math.round(Simulator.percentile(latencies, 99)),
    retries,
    retries_per_client: round(retries / ends.length, 4),
    budget_exhausted: outcomes["retry_budget_exhausted"] ?? 0,
    outcomes,
    makespan_ms: Math.round(ends.reduce((latest, end) => Math.max(latest, end.finished_at), 0))
  }
}

/** When client `index` starts: evenly over the arrival window. */
const arrivalOf = (scenario: Scenario, index: number): number =>
  scenario.clients === 1 ? 0 : (scenario.arrival_ms * index) / scenario.clients

/** The wake-ups a front may take for each attempt it lets through (its own waits and returns). */
const frontWakeUpsPerAttempt = 8

/**
 * The most wake-ups a fleet's clock can take: each client's arrival and one
 * a retry, for at most `retriesPerCall` retries of each turn's call, and,
 * behind a front, its own for each attempt.
 */
const wakeUpsOf = (scenario: Scenario, retriesPerCall: number, fronted: boolean): number => {
  const retries = Math.max(0, retriesPerCall)
  const perTurn = retries + (fronted ? (1 + retries) * frontWakeUpsPerAttempt : 0)
  return Math.max(VirtualClock.MAX_WAKE_UPS, scenario.clients * (1 + scenario.turns * perTurn))
}

/** Runs one fleet in virtual time: every client against one shared provider. */
const runFleet = <Setup>(
  scenario: Scenario,
  wakeUps: number,
  setup: Effect.Effect<Setup>,
  client: (setup: Setup) => (provider: SharedProvider, index: number) => Effect.Effect<ClientEnd>
): Effect.Effect<Figures> =>
  VirtualClock.run(
    Effect.gen(function* () {
      const provider = yield* sharedProvider(scenario)
      const run = client(yield* setup)
      const ends = yield* Effect.forEach(
        Array.from({ length: scenario.clients }, (_, index) => index),
        (index) =>
          Effect.gen(function* () {
            yield* Effect.sleep(Duration.millis(arrivalOf(scenario, index)))
            const start = yield* Clock.currentTimeMillis
            const end = yield* run(provider, index)
            const finished_at = yield* Clock.currentTimeMillis
            return { ...end, latency_ms: finished_at - start, finished_at }
          }),
        { concurrency: "unbounded" }
      )
      return figuresOf(ends, yield* provider.counts)
    }),
    0,
    wakeUps
  ).pipe(
    Random.withSeed(scenario.seed),
    // A simulated fleet belongs in no application's traces.
    Effect.withTracerEnabled(false)
  )

/** A kernel policy's sessions call the provider directly. */
const bare = (provider: ModelProvider.Service): ModelProvider.Service => provider

/**
 * Runs one contender's fleet and returns its row of the report.
 *
 * @since 1.0.0
 * @category comparing
 */
export const runContender = (scenario: Scenario, contender: Contender): Effect.Effect<PolicyResult> =>
  contender._tag === "Kernel"
    ? Effect.map(
        runFleet(
          scenario,
          wakeUpsOf(scenario, contender.settings.max_retries, contender.front !== undefined),
          contender.front?.make ?? Effect.succeed(bare),
          (front) => kernelClient(contender.settings, scenario, front)
        ),
        (figures) => ({
          name: contender.name,
          label: contender.label,
          runs_as: "kernel" as const,
          parameters: kernelParameters(contender.settings),
          ...(contender.front === undefined ? {} : { in_front: contender.front.label }),
          figures
        })
      )
    : Effect.map(
        runFleet(scenario, wakeUpsOf(scenario, contender.anchor.max_retries, false), Effect.void, () =>
          anchorClient(contender.anchor, scenario)
        ),
        (figures) => ({
          name: contender.name,
          label: contender.label,
          runs_as: "anchor" as const,
          parameters: contender.anchor,
          figures
        })
      )

/**
 * Compares the contenders on a scenario, one fleet after another. Takes no
 * real time beyond the computation (the fleets run on a virtual clock), and
 * is deterministic for a scenario.
 *
 * @example
 * ```ts
 * import { Settings } from "@agent-kernel/kernel"
 * import { PolicyComparison } from "@agent-kernel/kernel/testing"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const yours = yield* Settings.decode({ jitter: "full", max_retries: 8 })
 *   const report = yield* PolicyComparison.compare(
 *     { ...PolicyComparison.defaultScenario, clients: 200, capacity_rps: 20 },
 *     PolicyComparison.contenders(yours)
 *   )
 *   console.log(PolicyComparison.formatTable(report))
 * })
 * ```
 *
 * @since 1.0.0
 * @category comparing
 */
export const compare = Effect.fn("PolicyComparison.compare")(function* (
  scenario: Scenario,
  policies: ReadonlyArray<Contender>
) {
  const results = yield* Effect.forEach(policies, (contender) => runContender(scenario, contender))
  return { format: "agent-kernel/policy-comparison@1", scenario, policies: results } satisfies Report
})

/**
 * A scenario that does not decode: `issues` names each bad field and its
 * problem; `message` lists them all.
 *
 * @since 1.0.0
 * @category errors
 */
export class ScenarioError extends Schema.TaggedError<ScenarioError>("@agent-kernel/ScenarioError")("ScenarioError", {
  message: Schema.String,
  issues: Schema.Array(Schema.Struct({ field: Schema.String, problem: Schema.String }))
}) {}

const checkHook: SchemaIssue.CheckHook = (issue) => {
  const expected = issue.filter.annotations?.expected
  return typeof expected === "string" && "input" in issue
    ? `Expected ${expected}, got ${Formatter.format(issue.input)}`
    : SchemaIssue.defaultCheckHook(issue)
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1({ checkHook })

/**
 * Decodes a scenario, reporting every bad field.
 *
 * @example
 * ```ts
 * import { PolicyComparison } from "@agent-kernel/kernel/testing"
 * import { Effect } from "effect"
 *
 * const scenario = PolicyComparison.decodeScenario({ ...PolicyComparison.defaultScenario, clients: 0 }).pipe(
 *   // ScenarioError: clients: Expected a positive integer, got 0
 *   Effect.catchTag("ScenarioError", (error) => Effect.die(error.message))
 * )
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const decodeScenario = (input: unknown): Effect.Effect<Scenario, ScenarioError> =>
  Schema.decodeUnknownEffect(Scenario)(input, { errors: "all", onExcessProperty: "error", reportInput: true }).pipe(
    Effect.mapError((error) => {
      const issues = formatIssues(error.issue).issues.map((issue) => ({
        field: issue.path === undefined || issue.path.length === 0 ? "(root)" : issue.path.map(String).join("."),
        problem: issue.message
      }))
      return new ScenarioError({
        issues,
        message: `invalid scenario:\n${issues.map((issue) => `  - ${issue.field}: ${issue.problem}`).join("\n")}`
      })
    })
  )

/**
 * The report as JSON: two-space indented, with a final newline. The same
 * report gives the same bytes.
 *
 * @since 1.0.0
 * @category formatting
 */
export const toJson = (report: Report): string => `${JSON.stringify(Schema.encodeSync(Report)(report), null, 2)}\n`

/**
 * The scenario in one line, for a title.
 *
 * @since 1.0.0
 * @category formatting
 */
export const describeScenario = (scenario: Scenario): string =>
  `${scenario.clients} clients x ${scenario.turns} ${scenario.turns === 1 ? "turn" : "turns"} against ${scenario.capacity_rps} req/s, ${
    scenario.arrival_ms === 0 ? "all starting at once" : `arriving over ${Simulator.formatMs(scenario.arrival_ms)}`
  }, ${hintLabel[scenario.retry_after]}, seed ${scenario.seed}`

const hintLabel: Record<RetryAfterHint, string> = {
  ms: "retry-after in ms",
  seconds: "retry-after in whole seconds",
  none: "no retry-after"
}

/**
 * The report as an aligned table, one line per policy.
 *
 * @since 1.0.0
 * @category formatting
 */
export const formatTable = (report: Report): string => {
  const header = ["policy", "completion", "attempts/success", "p50", "p99", "retries/client", "budget out"]
  const rows = report.policies.map((policy) => {
    const f = policy.figures
    return [
      policy.label,
      `${f.completion_pct.toFixed(1)}%`,
      f.attempts_per_success === null ? "-" : f.attempts_per_success.toFixed(2),
      f.latency_p50_ms === null ? "-" : Simulator.formatMs(f.latency_p50_ms),
      f.latency_p99_ms === null ? "-" : Simulator.formatMs(f.latency_p99_ms),
      f.retries_per_client.toFixed(2),
      String(f.budget_exhausted)
    ]
  })
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)))
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd()
  return [line(header), ...rows.map(line)].join("\n")
}
