/**
 * Simulates a retry policy against a fault plan: the exact timeline the
 * kernel would follow (each call's time, delay, reason and budget left) and
 * how the run ends, for one seed, in no real time.
 *
 * It does not re-implement the loop. It runs the real kernel (a `Session`
 * against a scripted model whose script is the fault plan) on a virtual
 * clock that starts at 0, with jitter drawn from `Random.withSeed(seed)`, and
 * reads the timeline back from the kernel's own events. A simulated timeline
 * is therefore what a real run with the same seed does, by construction (the
 * tests check it against runs under Effect's `TestClock`).
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Random from "effect/Random"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/testing/TestClock"
import * as EventBus from "../EventBus.js"
import * as KernelEvent from "../KernelEvent.js"
import * as ModelError from "../ModelError.js"
import * as RetryBudget from "../RetryBudget.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as Session from "../Session.js"
import * as Settings from "../Settings.js"
import * as Toolbox from "../Toolbox.js"
import type * as Arbitraries from "./Arbitraries.js"
import * as ScriptedModel from "./ScriptedModel.js"
import * as InstantTool from "./internal/instantTool.js"
import * as VirtualClock from "./internal/virtualClock.js"
import * as TestClockDriver from "./TestClockDriver.js"

/**
 * One step of a fault plan: the result of one model call, in order. An error,
 * or `"ok"` for a successful call.
 *
 * @since 0.1.0
 * @category models
 */
export type Fault = Arbitraries.Fault

/**
 * What the kernel did after a call.
 *
 * - `retry`: slept `delay_ms` and sent the same request again.
 * - `fallback`: moved to the next model of `fallback_models`.
 * - `reduce_context`: shrank the context and sent a smaller request.
 * - `continue`: the call succeeded and the run went on to another turn.
 * - `end`: the run ended (see the outcome's status).
 *
 * @since 1.0.0
 * @category schemas
 */
export const Action = Schema.Literals(["retry", "fallback", "reduce_context", "continue", "end"])

/**
 * @since 0.1.0
 * @category models
 */
export type Action = typeof Action.Type

/**
 * One model call of a simulated run.
 *
 * @since 1.0.0
 * @category schemas
 */
export const Step = Schema.Struct({
  /** The call's number in the run, from 1. */
  call: Schema.Number,
  turn: Schema.Number,
  /** The kernel's attempt of this turn's call, from 1; it carries on across a fallback (the chain is one call). */
  attempt: Schema.Number,
  model: Schema.String,
  /** When the request was sent, in milliseconds since the run started. */
  at_ms: Schema.Number,
  /** What the call met: `"ok"` or the error's category. */
  result: Schema.Union([Schema.Literal("ok"), ModelError.Category]),
  /** The server's retry-after on that error, if any. */
  retry_after_ms: Schema.NullOr(Schema.Number),
  action: Action,
  /**
   * For a retry, which retry of the call it is, from 1: the count the
   * per-call cap applies to (a context reduction re-sends without one, so it
   * can differ from `attempt - 1`). `null` for other actions.
   */
  retry: Schema.NullOr(Schema.Number),
  /** How long the kernel waited before the next call (0 unless `action` is `retry`). */
  delay_ms: Schema.Number,
  /** Whether the wait was the policy's (`backoff`) or the server's (`retry_after`); `null` unless a retry. */
  source: Schema.NullOr(Schema.Literals(["backoff", "retry_after"])),
  /** Session budget charges so far (retries and fallbacks), after this step. */
  budget_used: Schema.Number,
  /** Session budget left after this step. */
  budget_left: Schema.Number
})

/**
 * @since 0.1.0
 * @category models
 */
export interface Step extends Schema.Schema.Type<typeof Step> {}

/**
 * How the simulated run ended, and its figures.
 *
 * @since 1.0.0
 * @category schemas
 */
export const Outcome = Schema.Struct({
  status: KernelEvent.RunStatus,
  /** Model calls made. */
  attempts: Schema.Number,
  retries: Schema.Number,
  fallbacks: Schema.Number,
  /** The most retries any one call used. */
  max_retries_per_call: Schema.Number,
  /** The sum of every retry delay. */
  total_wait_ms: Schema.Number,
  wall_ms: Schema.Number,
  budget_used: Schema.Number,
  budget_left: Schema.Number,
  /** The error that ended the run, if one did. */
  error: Schema.NullOr(KernelEvent.ErrorSummary)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface Outcome extends Schema.Schema.Type<typeof Outcome> {}

/**
 * A simulated run: its timeline, its outcome, and every kernel event it published.
 *
 * @since 0.1.0
 * @category models
 */
export interface Simulation {
  readonly seed: number
  readonly faults: ReadonlyArray<Fault>
  readonly timeline: ReadonlyArray<Step>
  readonly outcome: Outcome
  readonly events: ReadonlyArray<KernelEvent.KernelEvent>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Seeds the jitter: the same seed gives the same timeline. */
  readonly seed: number
  /** Default: `Settings.defaults`. Bounds, `max_retry_wait_ms` and `fallback_models` apply as in a real run. */
  readonly settings?: Settings.Settings | undefined
  /**
   * The session budget. Default: the one the settings ask for
   * (`RetryBudget.fromSettings`), as the kernel does. Each simulation starts
   * it afresh.
   */
  readonly budget?: RetryBudget.Budget | undefined
  /** The first model of the chain. Default `"primary"`. */
  readonly model?: string | undefined
  /**
   * Which clock runs the simulation:
   * - `"virtual"` (default): time moves to the next wake-up whenever the
   *   run's fibers are idle; runs under `Effect.runSync` too.
   * - `"test"`: Effect's `TestClock`, driven by `TestClockDriver.run`. Same
   *   timeline, but each wake-up costs real event-loop turns.
   */
  readonly clock?: "virtual" | "test" | undefined
}

/**
 * The model's script for a plan: every `"ok"` but a trailing one asks for a
 * tool (so the run takes another turn), and once the plan runs out the model
 * answers (the outage is over).
 */
const scriptOf = (faults: ReadonlyArray<Fault>): ReadonlyArray<ScriptedModel.Step> => {
  const body = faults.at(-1) === "ok" ? faults.slice(0, -1) : faults
  return [
    ...body.map((fault, i) =>
      fault === "ok" ? ScriptedModel.toolCalls({ id: `call-${i + 1}`, name: InstantTool.name }) : fault
    ),
    ScriptedModel.text("done")
  ]
}

interface Observed {
  readonly event: KernelEvent.KernelEvent
  readonly budget: RetryBudget.Snapshot
}

/**
 * Runs a policy against a fault plan in the real kernel and returns the
 * timeline and outcome. Deterministic for a seed; takes no real time (it
 * installs its own clock, so it runs the same inside or outside a test).
 *
 * Each fault is the result of one model call, in order. Every `"ok"` but a
 * trailing one is a successful call that asks for a tool, so the run takes
 * another turn (and a refunding budget gets its refund). When the plan runs
 * out, calls succeed.
 *
 * @example
 * ```ts
 * import { RetryPolicy, Settings } from "@agent-kernel/kernel"
 * import { Simulator } from "@agent-kernel/kernel/testing"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const faults = yield* Simulator.parseFaults("429:retry_after=2,529,529,ok")
 *   const { timeline, outcome } = yield* Simulator.simulate(RetryPolicy.fromSettings(Settings.defaults), faults, { seed: 1 })
 *   console.log(Simulator.formatTimeline(timeline), outcome.status)
 * })
 * ```
 *
 * @since 0.1.0
 * @category simulating
 */
export const simulate = Effect.fn("Simulator.simulate")(
  function* (policy: RetryPolicy.RetryPolicy, faults: ReadonlyArray<Fault>, options: Options) {
    const settings = options.settings ?? Settings.defaults
    const observed: Array<Observed> = []
    // The observer reads the session's budget as each event is published: that is the budget the
    // decision saw. The session exists once the layer is built, before any event.
    const ready = yield* Deferred.make<Session.Service>()
    const bus = EventBus.of([
      {
        onEvent: (event) =>
          Effect.map(
            Effect.flatMap(Deferred.await(ready), (session) => session.retryBudget),
            (budget) => void observed.push({ event, budget })
          )
      }
    ])
    const model = yield* ScriptedModel.make(scriptOf(faults), { name: "simulator" })
    const run = Effect.gen(function* () {
      const session = yield* Session.Session
      yield* Deferred.succeed(ready, session)
      return yield* session.run("simulate")
    }).pipe(
      // A simulated run is not a real one: it leaves the kernel's global metrics alone.
      Effect.provide(Session.layer({ model: options.model ?? "primary", settings, policy, metrics: false })),
      Effect.provide(model.layer),
      Effect.provideService(EventBus.EventBus, bus),
      Effect.provideService(Toolbox.Toolbox, InstantTool.toolbox),
      options.budget === undefined ? identity : Effect.provide(RetryBudget.layer(options.budget))
    )
    yield* options.clock === "test"
      ? TestClockDriver.run(run).pipe(Effect.provide(TestClock.layer()))
      : VirtualClock.run(run)
    return build(options.seed, faults, observed)
  },
  (effect, _policy, _faults, options) =>
    effect.pipe(
      Random.withSeed(options.seed),
      // Nor does it belong in the application's traces.
      Effect.withTracerEnabled(false)
    )
)

const build = (seed: number, faults: ReadonlyArray<Fault>, observed: ReadonlyArray<Observed>): Simulation => {
  const timeline: Array<Step> = []
  const events = observed.map(({ event }) => event)
  const startedAt = events[0]?.at ?? 0
  let pending: Omit<Step, "action" | "retry" | "delay_ms" | "source" | "budget_used" | "budget_left"> | undefined
  let ended: KernelEvent.EventOf<"run_ended"> | undefined
  let last: RetryBudget.Snapshot = { used: 0, remaining: 0 }
  const close = (
    action: Action,
    budget: RetryBudget.Snapshot,
    retry?: { readonly retry: number; readonly delay_ms: number; readonly source: "backoff" | "retry_after" }
  ) => {
    if (pending === undefined) return
    timeline.push({
      ...pending,
      action,
      retry: retry?.retry ?? null,
      delay_ms: retry?.delay_ms ?? 0,
      source: retry?.source ?? null,
      budget_used: budget.used,
      budget_left: budget.remaining
    })
    pending = undefined
  }
  for (const { event, budget } of observed) {
    last = budget
    switch (event.type) {
      case "model_request": {
        const call = timeline.length + 1
        const fault = faults[call - 1]
        const error = fault === undefined || fault === "ok" ? undefined : fault
        pending = {
          call,
          turn: event.turn,
          attempt: event.attempt,
          model: event.model,
          at_ms: event.at - startedAt,
          result: error === undefined ? "ok" : error.category,
          retry_after_ms: error?.retryAfter === undefined ? null : Duration.toMillis(error.retryAfter)
        }
        break
      }
      case "model_response":
        close("continue", budget)
        break
      case "retry_scheduled":
        close("retry", budget, { retry: event.attempt, delay_ms: event.delay_ms, source: event.source })
        break
      case "fallback":
        close("fallback", budget)
        break
      case "context_reduced":
        close("reduce_context", budget)
        break
      case "run_ended":
        ended = event
        break
    }
  }
  // The call that ended the run (or the final answer) closes with the run.
  if (pending !== undefined) close("end", last)
  const lastStep = timeline.at(-1)
  if (lastStep !== undefined && lastStep.action === "continue")
    timeline[timeline.length - 1] = { ...lastStep, action: "end" }
  const retries = timeline.filter((step) => step.action === "retry")
  return {
    seed,
    faults,
    timeline,
    events,
    outcome: {
      status: ended?.status ?? "interrupted",
      attempts: timeline.length,
      retries: retries.length,
      fallbacks: timeline.filter((step) => step.action === "fallback").length,
      max_retries_per_call: ended?.retries.max_per_call ?? 0,
      total_wait_ms: retries.reduce((sum, step) => sum + step.delay_ms, 0),
      wall_ms: ended?.wall_ms ?? 0,
      budget_used: last.used,
      budget_left: last.remaining,
      error: ended?.error ?? null
    }
  }
}

/**
 * Percentiles of one figure over many runs (nearest rank), and its maximum.
 *
 * @since 1.0.0
 * @category schemas
 */
export const Percentiles = Schema.Struct({
  p50: Schema.Number,
  p90: Schema.Number,
  p99: Schema.Number,
  max: Schema.Number
})

/**
 * @since 1.0.0
 * @category models
 */
export interface Percentiles extends Schema.Schema.Type<typeof Percentiles> {}

/**
 * A plan's distribution over many seeds: total wait and attempts per run,
 * and how many runs ended each way.
 *
 * @since 1.0.0
 * @category schemas
 */
export const Distribution = Schema.Struct({
  runs: Schema.Number,
  /** The seeds run: `first_seed` to `first_seed + runs - 1`. */
  first_seed: Schema.Number,
  total_wait_ms: Percentiles,
  attempts: Percentiles,
  /** Each status that occurred and how many runs ended with it, in the order they first occurred. */
  outcomes: Schema.Record(Schema.String, Schema.Number)
})

/**
 * @since 1.0.0
 * @category models
 */
export interface Distribution extends Schema.Schema.Type<typeof Distribution> {}

const percentilesOf = (sorted: ReadonlyArray<number>): Percentiles => ({
  p50: percentile(sorted, 50),
  p90: percentile(sorted, 90),
  p99: percentile(sorted, 99),
  max: sorted.at(-1) ?? 0
})

/**
 * The distribution of simulations of one plan (as `simulate` returns them, seed after seed).
 *
 * @since 1.0.0
 * @category distributions
 */
export const distribution = (simulations: ReadonlyArray<Simulation>): Distribution => {
  const outcomes: Record<string, number> = {}
  for (const { outcome } of simulations) outcomes[outcome.status] = (outcomes[outcome.status] ?? 0) + 1
  return {
    runs: simulations.length,
    first_seed: simulations[0]?.seed ?? 0,
    total_wait_ms: percentilesOf(simulations.map((run) => run.outcome.total_wait_ms).sort((a, b) => a - b)),
    attempts: percentilesOf(simulations.map((run) => run.outcome.attempts).sort((a, b) => a - b)),
    outcomes
  }
}

/**
 * What `agent simulate --json` writes: the settings and plan simulated, the
 * timeline and outcome of one seed, and the distribution over `runs` seeds
 * from it.
 *
 * @since 1.0.0
 * @category schemas
 */
export const Report = Schema.Struct({
  /** The report's format; a change to a field's name or meaning changes it. */
  format: Schema.Literal("agent-kernel/simulation@1"),
  settings: Settings.Settings,
  /** The fault plan, in the syntax `parseFaults` reads. */
  faults: Schema.String,
  seed: Schema.Number,
  timeline: Schema.Array(Step),
  outcome: Outcome,
  distribution: Distribution
})

/**
 * @since 1.0.0
 * @category models
 */
export interface Report extends Schema.Schema.Type<typeof Report> {}

/**
 * The report of simulations of one plan, seed after seed: the first one's
 * timeline and outcome, the distribution over all of them.
 *
 * @since 1.0.0
 * @category distributions
 */
export const reportOf = (
  simulations: readonly [Simulation, ...Array<Simulation>],
  settings: Settings.Settings
): Report => {
  const [first] = simulations
  return {
    format: "agent-kernel/simulation@1",
    settings,
    faults: formatFaults(first.faults),
    seed: first.seed,
    timeline: first.timeline,
    outcome: first.outcome,
    distribution: distribution(simulations)
  }
}

/**
 * Simulates a plan for `runs` seeds from `seed` (at least one) and reports
 * the first seed's timeline with the distribution over all of them.
 *
 * @example
 * ```ts
 * import { RetryPolicy, Settings } from "@agent-kernel/kernel"
 * import { Simulator } from "@agent-kernel/kernel/testing"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const faults = yield* Simulator.parseFaults("429:retry_after=2,529,529,ok")
 *   const report = yield* Simulator.report(RetryPolicy.fromSettings(Settings.defaults), faults, { seed: 1, runs: 100 })
 *   console.log(Simulator.toJson(report))
 * })
 * ```
 *
 * @since 1.0.0
 * @category simulating
 */
export const report = (
  policy: RetryPolicy.RetryPolicy,
  faults: ReadonlyArray<Fault>,
  options: Options & { readonly runs: number }
): Effect.Effect<Report> =>
  Effect.gen(function* () {
    const first = yield* simulate(policy, faults, options)
    const rest = yield* Effect.forEach(
      Array.from({ length: Math.max(0, options.runs - 1) }, (_, i) => options.seed + 1 + i),
      (seed) => simulate(policy, faults, { ...options, seed })
    )
    return reportOf([first, ...rest], options.settings ?? Settings.defaults)
  })

/**
 * A report as JSON: two-space indented, with a final newline.
 *
 * @since 1.0.0
 * @category formatting
 */
export const toJson = (report: Report): string => `${JSON.stringify(Schema.encodeSync(Report)(report), null, 2)}\n`

/**
 * The categories a fault plan may name, and the HTTP statuses it may use for them.
 * Statuses map like the providers map them.
 *
 * @since 0.1.0
 * @category fault plans
 */
export const statusCategories: Readonly<Record<number, ModelError.Category>> = {
  400: "invalid_request",
  401: "auth_error",
  402: "quota_exceeded",
  403: "auth_error",
  408: "timeout",
  413: "context_length_exceeded",
  429: "rate_limited",
  500: "server_error",
  502: "server_error",
  503: "server_error",
  504: "server_error",
  529: "overloaded"
}

/**
 * A fault plan that could not be parsed. `message` says which item and why.
 *
 * @since 0.1.0
 * @category errors
 */
export class FaultPlanError extends Data.TaggedError("FaultPlanError")<{ readonly message: string }> {}

const isCategory = Schema.is(ModelError.Category)

const faultOf = (raw: string, index: number): Result.Result<Fault, string> => {
  const item = raw.trim()
  const where = `fault ${index + 1} ("${item}")`
  if (item === "") return Result.fail(`fault ${index + 1} is empty`)
  const [head = "", ...options] = item.split(":")
  const name = head.trim().toLowerCase()
  if (name === "ok") {
    return options.length === 0 ? Result.succeed("ok") : Result.fail(`${where}: "ok" takes no options`)
  }
  let category: ModelError.Category | undefined
  let status: number | undefined
  if (/^\d+$/.test(name)) {
    status = Number(name)
    category = statusCategories[status]
    if (category === undefined)
      return Result.fail(
        `${where}: no category for HTTP status ${status} (known: ${Object.keys(statusCategories).join(", ")})`
      )
  } else if (isCategory(name)) {
    category = name
  } else {
    return Result.fail(
      `${where}: expected an HTTP status, a category (${ModelError.Category.literals.join(", ")}) or "ok"`
    )
  }
  let retryAfterMs: number | undefined
  let retryable: boolean | undefined
  for (const option of options) {
    const match = /^\s*(retry_after|retry_after_ms)\s*=\s*(\d+(?:\.\d+)?)\s*$/.exec(option)
    if (match !== null) {
      const value = Number(match[2])
      retryAfterMs = match[1] === "retry_after" ? Math.round(value * 1_000) : value
    } else if (/^\s*retryable\s*=\s*false\s*$/.test(option)) {
      retryable = false
    } else {
      return Result.fail(
        `${where}: unknown option "${option}" (expected retry_after=SECONDS, retry_after_ms=MS or retryable=false)`
      )
    }
  }
  return Result.succeed(
    ScriptedModel.error(category, {
      ...(status !== undefined ? { status } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(retryable !== undefined ? { retryable } : {})
    })
  )
}

/**
 * Parses a fault plan: comma-separated items, each an HTTP status (`429`,
 * `529`, `503` ...), a category name (`overloaded`), or `ok`, with an
 * optional `:retry_after=SECONDS` (or `:retry_after_ms=MS`) and
 * `:retryable=false` (the server said not to retry).
 *
 * @example
 * ```ts
 * import { Simulator } from "@agent-kernel/kernel/testing"
 *
 * const faults = Simulator.parseFaults("429:retry_after=2,529,529,ok")
 * ```
 *
 * @since 0.1.0
 * @category fault plans
 */
export const parseFaults = (text: string): Effect.Effect<ReadonlyArray<Fault>, FaultPlanError> => {
  // An empty plan is a run with no faults at all.
  const items = text.trim() === "" ? [] : text.split(",")
  const faults: Array<Fault> = []
  const problems: Array<string> = []
  items.forEach((item, i) => {
    const parsed = faultOf(item, i)
    if (Result.isFailure(parsed)) problems.push(parsed.failure)
    else faults.push(parsed.success)
  })
  return problems.length === 0
    ? Effect.succeed(faults)
    : Effect.fail(
        new FaultPlanError({
          message: `invalid fault plan "${text}":\n${problems.map((p) => `  - ${p}`).join("\n")}`
        })
      )
}

/**
 * Writes a fault plan back in the syntax `parseFaults` reads, so a
 * counterexample can be pasted into `agent simulate --faults`.
 *
 * @since 0.1.0
 * @category fault plans
 */
export const formatFaults = (faults: ReadonlyArray<Fault>): string =>
  faults
    .map((fault) => {
      if (fault === "ok") return "ok"
      const ms = fault.retryAfter === undefined ? undefined : Duration.toMillis(fault.retryAfter)
      const retryAfter =
        ms === undefined ? "" : ms % 1_000 === 0 ? `:retry_after=${ms / 1_000}` : `:retry_after_ms=${ms}`
      return `${fault.category}${retryAfter}${fault.retryable === false ? ":retryable=false" : ""}`
    })
    .join(",")

const pad = (value: string, width: number) => value.padEnd(width)

/**
 * Renders a timeline as an aligned table, one line per call.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatTimeline = (timeline: ReadonlyArray<Step>): string => {
  const header = `call  turn  at_ms      model          ${pad("result", 36)} then`
  const lines = timeline.map((step) => {
    const result = step.result + (step.retry_after_ms === null ? "" : ` (retry-after ${step.retry_after_ms} ms)`)
    const then =
      step.action === "retry"
        ? `retry in ${formatMs(step.delay_ms)} (${step.source})`
        : step.action === "reduce_context"
          ? "reduce context"
          : step.action
    return [
      pad(String(step.call), 5),
      pad(String(step.turn), 5),
      pad(String(Math.round(step.at_ms)), 10),
      pad(step.model, 14),
      pad(result, 36),
      `${then}; budget left ${step.budget_left}`
    ].join(" ")
  })
  return [header, ...lines].join("\n")
}

/**
 * Renders an outcome as one line.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatOutcome = (outcome: Outcome): string =>
  [
    `status ${outcome.status}`,
    `${outcome.attempts} attempts`,
    `${outcome.retries} retries`,
    `${outcome.fallbacks} fallbacks`,
    `waited ${formatMs(outcome.total_wait_ms)}`,
    `budget used ${outcome.budget_used}, left ${outcome.budget_left}`,
    ...(outcome.error === null ? [] : [`last error ${outcome.error.category}`])
  ].join(", ")

/**
 * The value at percentile `p` (0-100) of sorted values, by the nearest-rank
 * method; 0 for no values.
 *
 * @example
 * ```ts
 * import { Simulator } from "@agent-kernel/kernel/testing"
 *
 * Simulator.percentile([1, 2, 3, 4], 50) // 2
 * ```
 *
 * @since 1.0.0
 * @category distributions
 */
export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0

/**
 * Milliseconds, rounded, with a unit that reads well.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatMs = (ms: number): string =>
  ms < 1_000
    ? `${Math.round(ms)} ms`
    : ms < 120_000
      ? `${(ms / 1_000).toFixed(2)} s`
      : `${(ms / 60_000).toFixed(1)} min`
