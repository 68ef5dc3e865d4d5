/**
 * Laws: reusable property checks that you run against your own retry policy
 * (and your settings and budget). Each law draws fault plans and seeds, and
 * when it finds one that breaks it, fails with a
 * `LawViolation` whose message names the shrunk fault plan (in the syntax of
 * `agent simulate --faults`), the seed, the offending step and the timeline.
 *
 * A law is either about the **policy** itself (checked on the delays the
 * policy computes, `RetryPolicy.delays`, as it would behave anywhere a
 * schedule is used) or about the policy **in the kernel** (checked on
 * simulated kernel runs with your settings and budget, `Simulator.simulate`).
 * Cases are drawn and shrunk with Effect's `effect/Arbitrary`.
 * The kernel has safety nets of its own (it never sleeps less than a
 * retry-after and never retries a fatal error), so a policy law catches a
 * policy bug that the kernel would hide, and a kernel law checks what your
 * whole configuration does.
 *
 * @example
 * ```ts
 * import { RetryPolicy, Settings } from "@agent-kernel/kernel"
 * import { Laws } from "@agent-kernel/kernel/testing"
 * import { Effect } from "effect"
 *
 * const settings = { ...Settings.defaults, jitter: "full" as const }
 * const subject = { policy: RetryPolicy.fromSettings(settings), settings }
 * const program = Laws.checkAll([Laws.honorsRetryAfter, Laws.respectsPerCallCap(5), Laws.terminates], subject)
 * ```
 *
 * @since 0.1.0
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import type * as ModelError from "../ModelError.js"
import type * as RetryBudget from "../RetryBudget.js"
import * as RetryPolicy from "../RetryPolicy.js"
import * as Settings from "../Settings.js"
import * as Arbitraries from "./Arbitraries.js"
import * as Simulator from "./Simulator.js"

/**
 * What a law is checked against: your policy, and for kernel laws your
 * settings and session budget.
 *
 * @since 0.1.0
 * @category models
 */
export interface Subject {
  readonly policy: RetryPolicy.RetryPolicy
  /** Default: `Settings.defaults`. */
  readonly settings?: Settings.Settings | undefined
  /** The session budget, fresh for each simulated run. Default: the one the settings ask for (`RetryBudget.fromSettings`). */
  readonly budget?: RetryBudget.Budget | undefined
}

/**
 * One generated case: a fault plan and the seed of the jitter.
 *
 * @since 0.1.0
 * @category models
 */
export interface Case {
  readonly faults: ReadonlyArray<Simulator.Fault>
  readonly seed: number
}

/**
 * What broke a law on one case: a sentence, and the step (the 1-based retry
 * for policy laws, the call for kernel laws) where it happened.
 *
 * @since 0.1.0
 * @category models
 */
export interface Problem {
  readonly message: string
  readonly step: number
  /** Kernel laws: the simulated run, printed as the counterexample's timeline. */
  readonly simulation?: Simulator.Simulation | undefined
  /** Policy laws: the policy's delays (ms) for the case's errors, printed under the problem. */
  readonly delays?: ReadonlyArray<number> | undefined
}

/**
 * What a law is checked on.
 *
 * @since 0.1.0
 * @category models
 */
export type Scope = "policy" | "kernel" | "policy and kernel"

/**
 * A law.
 *
 * @since 0.1.0
 * @category models
 */
export interface Law {
  readonly name: string
  /** `policy`: checked on the policy's own delays. `kernel`: checked on simulated kernel runs. */
  readonly scope: Scope
  readonly cases: (subject: ResolvedSubject) => Arbitrary.Arbitrary<Case>
  /** `None` when the case keeps the law. */
  readonly test: (subject: ResolvedSubject, testCase: Case) => Effect.Effect<Option.Option<Problem>>
  /**
   * The longest array its cases draw. effect/Arbitrary draws no array longer than the check's size,
   * whatever its `maxLength`, so `check` grows the size up to this and the law reaches its longest
   * outages. Default: Arbitrary's default size (10).
   */
  readonly size?: ((subject: ResolvedSubject) => number) | undefined
}

/**
 * A subject with its defaults filled in.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResolvedSubject {
  readonly policy: RetryPolicy.RetryPolicy
  readonly settings: Settings.Settings
  readonly budget: RetryBudget.Budget | undefined
}

/**
 * A law failed. `message` is the readable counterexample; the fields carry
 * it as data.
 *
 * @since 0.1.0
 * @category errors
 */
export class LawViolation extends Data.TaggedError("LawViolation")<{
  readonly law: string
  readonly scope: Scope
  readonly faults: ReadonlyArray<Simulator.Fault>
  readonly seed: number
  readonly step: number
  readonly problem: string
  readonly message: string
}> {}

/**
 * @since 0.1.0
 * @category models
 */
export interface CheckOptions {
  /** Cases to try. Default 100. */
  readonly numRuns?: number | undefined
  /** The generator's seed, to replay a failure (a `LawViolation` names the one it was found with). Default: random. */
  readonly seed?: number | undefined
  /** How many smaller cases to try once a case breaks the law. Default 1000: a short counterexample reads best. */
  readonly maxShrinks?: number | undefined
  /** The size the cases grow to (`Arbitrary.checkEffect`'s `size`). Default: the law's `size`. */
  readonly size?: number | undefined
}

const seedArb = Arbitraries.integer(0, 2 ** 31 - 1)

const caseOf = (faults: Arbitrary.Arbitrary<ReadonlyArray<Simulator.Fault>>): Arbitrary.Arbitrary<Case> =>
  Arbitrary.all({ faults, seed: seedArb })

/** The arrays the arbitraries draw, one after the other. */
const concat = <A>(
  parts: ReadonlyArray<Arbitrary.Arbitrary<ReadonlyArray<A>>>
): Arbitrary.Arbitrary<ReadonlyArray<A>> => Arbitrary.map(Arbitrary.all(parts), (arrays) => arrays.flat())

const resolve = (subject: Subject): ResolvedSubject => ({
  policy: subject.policy,
  settings: subject.settings ?? Settings.defaults,
  budget: subject.budget
})

const errorsOf = (faults: ReadonlyArray<Simulator.Fault>): ReadonlyArray<ModelError.ModelError> =>
  faults.filter((fault): fault is ModelError.ModelError => fault !== "ok")

const retryAfterMs = (error: ModelError.ModelError): number | undefined =>
  error.retryAfter === undefined ? undefined : Duration.toMillis(error.retryAfter)

const describeError = (error: ModelError.ModelError): string => {
  const ms = retryAfterMs(error)
  return ms === undefined ? error.category : `${error.category} (retry-after ${ms} ms)`
}

const policyDelays = (subject: ResolvedSubject, testCase: Case, errors = errorsOf(testCase.faults)) =>
  Effect.map(RetryPolicy.delays(subject.policy, errors).pipe(Random.withSeed(testCase.seed)), (delays) =>
    delays.map(Duration.toMillis)
  )

const simulate = (subject: ResolvedSubject, testCase: Case) =>
  Simulator.simulate(subject.policy, testCase.faults, {
    seed: testCase.seed,
    settings: subject.settings,
    budget: subject.budget
  })

/** How long the kernel laws' fault plans run after their leading outage. */
const PLAN_LENGTH = 16

/** An error of an unbroken outage: transient, and retryable (a `retryable: false` ends the call). */
const outageError = Arbitraries.transientError({ maxRetryAfterMs: 5_000, notRetryable: false })

// Tolerance for float noise in jittered delays, never for a real difference.
const slack = (ms: number) => 1e-6 * Math.max(1, Math.abs(ms))

/**
 * **Policy law.** No delay the policy computes is shorter than the error's
 * retry-after. The kernel floors every delay at retry-after anyway, so a
 * policy that ignores it still waits long enough inside the kernel; but its
 * own delays are then wrong wherever else the schedule runs (`Effect.retry`
 * in a tool, a simulation of the policy alone). A policy that gives up
 * instead keeps this law.
 *
 * @since 0.1.0
 * @category laws
 */
export const honorsRetryAfter: Law = {
  name: "honorsRetryAfter",
  scope: "policy",
  cases: () =>
    caseOf(Arbitrary.array(Arbitraries.transientError({ maxRetryAfterMs: 60_000 }), { minLength: 1, maxLength: 10 })),
  test: (subject, testCase) =>
    Effect.map(policyDelays(subject, testCase), (delays) => {
      const errors = errorsOf(testCase.faults)
      const index = delays.findIndex((delay, i) => {
        const floor = retryAfterMs(errors[i]!)
        return floor !== undefined && delay < floor - slack(floor)
      })
      if (index < 0) return Option.none()
      const error = errors[index]!
      return Option.some({
        step: index + 1,
        delays,
        message: `retry ${index + 1} after ${describeError(error)}: the policy waits ${fmt(delays[index]!)}, sooner than the server asked`
      })
    })
}

/**
 * **Kernel law.** No call retries more than `max` times on one model (the
 * per-call cap): each model of the fallback chain gets its own retries, and
 * none gets more. Checked on simulated runs with your settings and budget,
 * so a cap that only the session budget or `max_retry_wait_ms` enforces
 * counts. Default `max`: `settings.max_retries`.
 *
 * @since 0.1.0
 * @category laws
 */
export const respectsPerCallCap = (max?: number): Law => {
  const leadPast = (subject: ResolvedSubject) => (max ?? subject.settings.max_retries) + 3
  return {
    name: `respectsPerCallCap(${max ?? "max_retries"})`,
    scope: "kernel",
    // Lead with an unbroken outage long enough to pass the cap, then anything.
    cases: (subject) =>
      caseOf(
        concat([
          Arbitrary.array(outageError, { maxLength: leadPast(subject) }),
          Arbitraries.faultPlan({ maxRetryAfterMs: 30_000, maxLength: PLAN_LENGTH })
        ])
      ),
    size: (subject) => Math.max(leadPast(subject), PLAN_LENGTH),
    test: (subject, testCase) =>
      Effect.map(simulate(subject, testCase), (simulation) => {
        const cap = max ?? subject.settings.max_retries
        const over = simulation.timeline.find((step) => step.retry !== null && step.retry > cap)
        if (over === undefined) return Option.none()
        return Option.some({
          step: over.call,
          simulation,
          message: `call ${over.call} is retry ${over.retry} of one call (turn ${over.turn} on ${over.model}), more than ${cap}`
        })
      })
  }
}

/**
 * **Kernel law.** The session budget is charged (a retry, or a fallback step
 * after a retryable error) at most `max` times between two successful calls:
 * in every stretch of a run with no success in it, the budget is a ceiling
 * that nothing resets. That holds for every budget that refunds only on
 * success (the default refills one retry per successful call, up to
 * `max_session_retries`; a fixed budget never refills).
 *
 * With `refundPerSuccess`, the law also bounds the whole run: at most `max`
 * charges plus `refundPerSuccess` for each successful call before that point
 * (an AWS-style token bucket with cost `c` and refund `r` has
 * `max = capacity / c` and `refundPerSuccess = r / c`; a fixed budget has 0).
 * Checked on simulated runs with your settings and budget: it catches a
 * budget that grants more than it holds.
 *
 * @example
 * ```ts
 * import { RetryBudget, RetryPolicy, Settings } from "@agent-kernel/kernel"
 * import { Laws } from "@agent-kernel/kernel/testing"
 *
 * const budget = RetryBudget.tokenBucket({ capacity: 50, retryCost: 5, successRefund: 1 })
 * const law = Laws.respectsSessionBudget(10, { refundPerSuccess: 1 / 5 })
 * const program = Laws.check(law, { policy: RetryPolicy.fromSettings(Settings.defaults), budget })
 * ```
 *
 * @since 0.1.0
 * @category laws
 */
export const respectsSessionBudget = (
  max: number,
  options: { readonly refundPerSuccess?: number | undefined } = {}
): Law => {
  const refund = options.refundPerSuccess
  const [lead, plan] = [max + 3, Math.max(PLAN_LENGTH, 2 * max + 4)]
  return {
    name: `respectsSessionBudget(${max}${refund !== undefined ? `, refund ${refund} per success` : ""})`,
    scope: "kernel",
    // Lead with an unbroken outage long enough to pass the budget, then anything.
    cases: () =>
      caseOf(
        concat([
          Arbitrary.array(outageError, { maxLength: lead }),
          Arbitraries.faultPlan({ maxRetryAfterMs: 30_000, maxLength: plan })
        ])
      ),
    size: () => Math.max(lead, plan),
    test: (subject, testCase) =>
      Effect.map(simulate(subject, testCase), (simulation) => {
        let charges = 0
        let sinceSuccess = 0
        let successes = 0
        for (const step of simulation.timeline) {
          const fault = testCase.faults[step.call - 1]
          // A fallback after an error the server said not to retry is free.
          const free = step.action === "fallback" && fault !== undefined && fault !== "ok" && fault.retryable === false
          if ((step.action === "retry" || step.action === "fallback") && !free) {
            charges++
            sinceSuccess++
          }
          const problem = (charge: number, allowed: number, after: string) =>
            Option.some({
              step: step.call,
              simulation,
              message: `call ${step.call} (${step.action} after ${step.result}) is budget charge ${charge}, more than the ${allowed} allowed${after}`
            })
          if (sinceSuccess > max)
            return problem(sinceSuccess, max, successes > 0 ? " since the last successful call" : "")
          if (refund !== undefined) {
            const allowed = Math.floor(max + successes * refund + 1e-9)
            if (charges > allowed)
              return problem(charges, allowed, successes > 0 ? ` after ${successes} successes` : "")
          }
          if (step.result === "ok") {
            successes++
            sinceSuccess = 0
          }
        }
        return Option.none()
      })
  }
}

/**
 * **Policy and kernel law.** Errors of these categories are never retried:
 * the policy is done as soon as it meets one (at any point of a call, after
 * any retries), and no simulated run retries one. The kernel never retries a
 * fatal category (auth, invalid request, quota) whatever the policy says, so
 * for those the policy half is what can fail: a policy that would retry them
 * is wrong anywhere else it runs, and only the kernel's safety net hides it.
 *
 * @since 0.1.0
 * @category laws
 */
export const neverRetries = (categories: ReadonlyArray<ModelError.Category>): Law => ({
  name: `neverRetries(${categories.join(", ")})`,
  scope: "policy and kernel",
  cases: () =>
    caseOf(
      concat([
        Arbitrary.array(Arbitraries.transientError({ maxRetryAfterMs: 5_000 }), { maxLength: 4 }),
        Arbitrary.map(Arbitraries.modelError({ categories, maxRetryAfterMs: 5_000 }), (error) => [error]),
        Arbitraries.faultPlan({ categories, maxLength: 6 })
      ])
    ),
  test: (subject, testCase) =>
    Effect.gen(function* () {
      const errors = errorsOf(testCase.faults)
      const delays = yield* policyDelays(subject, testCase)
      const index = delays.findIndex((_, i) => categories.includes(errors[i]!.category))
      if (index >= 0)
        return Option.some<Problem>({
          step: index + 1,
          delays,
          message: `retry ${index + 1}: the policy would retry ${describeError(errors[index]!)} after ${fmt(delays[index]!)}`
        })
      const simulation = yield* simulate(subject, testCase)
      const retried = simulation.timeline.find(
        (step) => step.action === "retry" && step.result !== "ok" && categories.includes(step.result)
      )
      if (retried === undefined) return Option.none()
      return Option.some<Problem>({
        step: retried.call,
        simulation,
        message: `call ${retried.call}: the kernel retried ${retried.result} after ${fmt(retried.delay_ms)}`
      })
    })
})

/**
 * Bounds on a delay, for `delaysWithin`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Bounds {
  readonly min?: Duration.Input | undefined
  readonly max?: Duration.Input | undefined
}

/**
 * **Policy law.** Every delay the policy computes for errors without a
 * retry-after lies within the bounds: fixed, or a function of the retry
 * number (from 1). Delays the server dictates are `honorsRetryAfter`'s
 * concern, and the kernel's `max_retry_wait_ms` turns one that is too long
 * into the end of the call.
 *
 * @example
 * ```ts
 * import { Settings } from "@agent-kernel/kernel"
 * import { Laws } from "@agent-kernel/kernel/testing"
 *
 * const withinCap = Laws.delaysWithin({ max: "30 seconds" })
 * const onItsCurve = Laws.delaysWithin(Laws.backoffEnvelope(Settings.defaults))
 * ```
 *
 * @since 0.1.0
 * @category laws
 */
export const delaysWithin = (bounds: Bounds | ((retry: number) => Bounds)): Law => {
  const at = typeof bounds === "function" ? bounds : () => bounds
  const ms = (d: Duration.Input | undefined, fallback: number) => (d === undefined ? fallback : Duration.toMillis(d))
  return {
    name: typeof bounds === "function" ? "delaysWithin(envelope)" : `delaysWithin(${describeBounds(bounds)})`,
    scope: "policy",
    cases: () =>
      caseOf(Arbitrary.array(Arbitraries.transientError({ retryAfter: false }), { minLength: 1, maxLength: 12 })),
    size: () => 12,
    test: (subject, testCase) =>
      Effect.map(policyDelays(subject, testCase), (delays) => {
        for (const [i, delay] of delays.entries()) {
          const { min, max } = at(i + 1)
          const [lo, hi] = [ms(min, 0), ms(max, Number.POSITIVE_INFINITY)]
          if (delay < lo - slack(lo) || delay > hi + slack(hi) || Number.isNaN(delay))
            return Option.some({
              step: i + 1,
              delays,
              message: `retry ${i + 1}: the policy waits ${fmt(delay)}, outside [${fmt(lo)}, ${fmt(hi)}]`
            })
        }
        return Option.none()
      })
  }
}

const describeBounds = (bounds: Bounds): string =>
  [
    ...(bounds.min !== undefined ? [`min ${fmt(Duration.toMillis(bounds.min))}`] : []),
    ...(bounds.max !== undefined ? [`max ${fmt(Duration.toMillis(bounds.max))}`] : [])
  ].join(", ")

/**
 * The envelope of `RetryPolicy.fromSettings(settings)` for `delaysWithin`:
 * retry n waits `min(base * factor^(n-1), max_delay_ms)`, spread by the
 * settings' jitter and never above `max_delay_ms`.
 *
 * @since 0.1.0
 * @category laws
 */
export const backoffEnvelope =
  (
    settings: Pick<Settings.Settings, "base_delay_ms" | "backoff_factor" | "max_delay_ms" | "jitter">
  ): ((retry: number) => Bounds) =>
  (retry) => {
    const nominal = Math.min(settings.base_delay_ms * settings.backoff_factor ** (retry - 1), settings.max_delay_ms)
    const [lo, hi] =
      settings.jitter === "none"
        ? [nominal, nominal]
        : settings.jitter === "full"
          ? [0, nominal]
          : [0.8 * nominal, Math.min(1.2 * nominal, settings.max_delay_ms)]
    return { min: Duration.millis(lo), max: Duration.millis(hi) }
  }

/**
 * **Policy law.** Fed an endless outage (transient errors, some with a
 * retry-after), the policy gives up within `limit` retries (default 1000),
 * and every delay is a finite number. Inside the kernel only the session
 * budget and the wall clock would stop a policy that never gives up.
 *
 * @since 0.1.0
 * @category laws
 */
export const terminatesWithin = (limit: number): Law => ({
  name: limit === 1_000 ? "terminates" : `terminatesWithin(${limit})`,
  scope: "policy",
  cases: () =>
    caseOf(Arbitrary.array(Arbitraries.transientError({ maxRetryAfterMs: 10_000 }), { minLength: 1, maxLength: 5 })),
  test: (subject, testCase) => {
    // The case's errors, repeated: an outage that never ends.
    const pattern = errorsOf(testCase.faults)
    const outage = Array.from({ length: limit + 1 }, (_, i) => pattern[i % pattern.length]!)
    return Effect.map(policyDelays(subject, testCase, outage), (delays) => {
      const bad = delays.findIndex((delay) => !Number.isFinite(delay))
      if (bad >= 0)
        return Option.some({
          step: bad + 1,
          delays: delays.slice(0, bad + 1),
          message: `retry ${bad + 1}: the policy waits ${delays[bad]} ms`
        })
      if (delays.length <= limit) return Option.none()
      const waited = delays.reduce((sum, delay) => sum + delay, 0)
      return Option.some({
        step: limit + 1,
        delays: delays.slice(0, 8),
        message: `the policy still retries after ${limit} consecutive transient errors (${fmt(waited)} of waiting so far)`
      })
    })
  }
})

/**
 * **Policy law.** `terminatesWithin(1000)`.
 *
 * @since 0.1.0
 * @category laws
 */
export const terminates: Law = terminatesWithin(1_000)

/**
 * **Kernel law.** The kernel never moves to a fallback model because of an
 * error of these categories. Checked on simulated runs with your settings;
 * when they have no `fallback_models`, one is added, since without a chain
 * there is nothing to check.
 *
 * @since 0.1.0
 * @category laws
 */
export const neverFallsBackOn = (categories: ReadonlyArray<ModelError.Category>): Law => ({
  name: `neverFallsBackOn(${categories.join(", ")})`,
  scope: "kernel",
  cases: () =>
    caseOf(
      concat([
        Arbitrary.array(Arbitraries.modelError({ categories, maxRetryAfterMs: 5_000 }), { maxLength: 8 }),
        Arbitraries.faultPlan({ categories, maxRetryAfterMs: 90_000, maxLength: PLAN_LENGTH })
      ])
    ),
  size: () => PLAN_LENGTH,
  test: (subject, testCase) => {
    const settings =
      subject.settings.fallback_models.length > 0
        ? subject.settings
        : { ...subject.settings, fallback_models: ["fallback"] }
    return Effect.map(simulate({ ...subject, settings }, testCase), (simulation) => {
      const step = simulation.timeline.find(
        (s) => s.action === "fallback" && s.result !== "ok" && categories.includes(s.result)
      )
      if (step === undefined) return Option.none()
      return Option.some({
        step: step.call,
        simulation,
        message: `call ${step.call}: the kernel fell back from ${step.model} after ${step.result}`
      })
    })
  }
})

/**
 * Every law, with the caps taken from the settings: what the kernel's
 * default policy keeps, and a good start for your own.
 *
 * @since 0.1.0
 * @category laws
 */
export const all = (settings: Settings.Settings = Settings.defaults): ReadonlyArray<Law> => [
  honorsRetryAfter,
  respectsPerCallCap(settings.max_retries),
  respectsSessionBudget(settings.max_session_retries),
  neverRetries(["auth_error", "invalid_request", "quota_exceeded", "context_length_exceeded"]),
  delaysWithin({ max: Duration.millis(settings.max_delay_ms) }),
  terminates,
  neverFallsBackOn(["auth_error", "invalid_request", "quota_exceeded"])
]

const runCase = (law: Law, subject: ResolvedSubject, testCase: Case): Effect.Effect<Option.Option<Problem>> =>
  law
    .test(subject, testCase)
    .pipe(
      Effect.catchDefect((defect) =>
        Effect.succeed(Option.some<Problem>({ step: 0, message: `the check died: ${Cause.pretty(Cause.die(defect))}` }))
      )
    )

/**
 * Checks a law against a subject, failing with a `LawViolation` whose
 * message is the shrunk counterexample.
 *
 * @example
 * ```ts
 * import { it } from "@effect/vitest"
 * import { RetryPolicy, Settings } from "@agent-kernel/kernel"
 * import { Laws } from "@agent-kernel/kernel/testing"
 *
 * it.effect("my policy honours retry-after", () =>
 *   Laws.check(Laws.honorsRetryAfter, { policy: RetryPolicy.fromSettings(Settings.defaults) }))
 * ```
 *
 * @since 0.1.0
 * @category checking
 */
export const check = Effect.fn("Laws.check")(function* (law: Law, subject: Subject, options: CheckOptions = {}) {
  const resolved = resolve(subject)
  // Drawn here rather than by the runner, so that a violation can name the seed that replays it.
  const seed = options.seed ?? (yield* Random.nextInt)
  const result = yield* Arbitrary.checkEffect(
    law.cases(resolved),
    (testCase) => Effect.map(runCase(law, resolved, testCase), Option.isNone),
    {
      runs: options.numRuns ?? 100,
      maxShrinks: options.maxShrinks ?? 1_000,
      size: options.size ?? law.size?.(resolved),
      seed
    }
  )
  switch (result._tag) {
    case "Passed":
      return
    case "Falsified": {
      const testCase = result.shrunkInput
      const problem = yield* runCase(law, resolved, testCase)
      if (Option.isNone(problem))
        return yield* Effect.die(
          new Error(`${law.name}: the counterexample did not fail again (is the subject deterministic?)`)
        )
      return yield* Effect.fail(violation(law, testCase, problem.value, { ...result, seed }))
    }
    default:
      return yield* Effect.die(new Error(`${law.name}: ${Arbitrary.formatCheckFailure(result) ?? result._tag}`))
  }
})

/**
 * Checks several laws in turn, failing with the first violation.
 *
 * @since 0.1.0
 * @category checking
 */
export const checkAll = (
  laws: ReadonlyArray<Law>,
  subject: Subject,
  options: CheckOptions = {}
): Effect.Effect<void, LawViolation> => Effect.forEach(laws, (law) => check(law, subject, options), { discard: true })

const fmt = Simulator.formatMs

const violation = (
  law: Law,
  testCase: Case,
  problem: Problem,
  details: { readonly runs: number; readonly shrinks: number; readonly seed: number; readonly replay: string }
): LawViolation => {
  const plan = Simulator.formatFaults(testCase.faults)
  const lines = [
    `${law.name} is broken, on ${problem.simulation === undefined ? "the policy's own delays" : "a simulated kernel run"}`,
    `  problem: ${problem.message}`,
    `  faults:  ${plan === "" ? "(none)" : plan}`,
    `  seed:    ${testCase.seed}`
  ]
  if (problem.delays !== undefined) {
    const errors = errorsOf(testCase.faults)
    lines.push("  the policy's delays:")
    problem.delays.forEach((delay, i) => {
      const error = errors[i % Math.max(1, errors.length)]
      const mark = i + 1 === problem.step ? "  <- here" : ""
      lines.push(
        `    retry ${i + 1}: after ${error === undefined ? "?" : describeError(error)} waits ${fmt(delay)}${mark}`
      )
    })
  }
  if (problem.simulation !== undefined) {
    lines.push("  timeline:")
    for (const [i, line] of Simulator.formatTimeline(problem.simulation.timeline).split("\n").entries())
      lines.push(`  ${i === problem.step ? ">" : " "} ${line}`)
    lines.push(`  outcome: ${Simulator.formatOutcome(problem.simulation.outcome)}`)
  }
  lines.push(
    problem.simulation === undefined
      ? `  replay:  RetryPolicy.delays(policy, errors).pipe(Random.withSeed(${testCase.seed}))`
      : `  replay:  agent simulate --faults "${plan}" --seed ${testCase.seed}`,
    `  found after ${details.runs} runs and ${details.shrinks} shrinks (Laws.check seed ${details.seed}, Arbitrary.checkEffect replay "${details.replay}")`
  )
  return new LawViolation({
    law: law.name,
    scope: law.scope,
    faults: testCase.faults,
    seed: testCase.seed,
    step: problem.step,
    problem: problem.message,
    message: lines.join("\n")
  })
}
