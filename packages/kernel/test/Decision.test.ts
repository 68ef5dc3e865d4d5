/**
 * The decision core alone: every reaction of the spec, as properties of a pure function, over
 * generated errors, policy steps and run contexts built to reach every branch (see the last test,
 * which counts them).
 */
import { Decision, ModelError, RetryBudget, Settings } from "@agent-kernel/kernel"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"

const HOUR = 3_600_000

const transient = ModelError.Category.literals.filter((category) => ModelError.reactionOf(category) === "retry")

/**
 * Errors of every category (transient ones more often: they have the most branches), with
 * retry-after hints short, long and far past any wait, and both flags.
 */
const errorArb = FastCheck.record({
  category: FastCheck.oneof(
    { arbitrary: FastCheck.constantFrom(...transient), weight: 3 },
    { arbitrary: FastCheck.constantFrom(...ModelError.Category.literals), weight: 2 }
  ),
  retryAfterMs: FastCheck.oneof(
    { arbitrary: FastCheck.constant(undefined), weight: 4 },
    { arbitrary: FastCheck.integer({ min: 0, max: 5_000 }), weight: 4 },
    { arbitrary: FastCheck.integer({ min: 5_000, max: 200_000 }), weight: 1 },
    { arbitrary: FastCheck.constant(25 * HOUR), weight: 1 }
  ),
  retryable: FastCheck.constantFrom(undefined, undefined, undefined, false, true),
  midStream: FastCheck.boolean()
}).map(({ category, retryAfterMs, retryable, midStream }) =>
  ModelError.make(category, {
    provider: "p",
    model: "m",
    message: category,
    retryable,
    midStream,
    retryAfter: retryAfterMs === undefined ? undefined : Duration.millis(retryAfterMs)
  })
)

/** The policy's step: done, or a delay. */
const stepArb = FastCheck.option(
  FastCheck.integer({ min: 0, max: 90_000 }).map((ms) => Duration.millis(ms)),
  { nil: undefined, freq: 5 }
).map((delay) => (delay === undefined ? Option.none() : Option.some(delay)))

const budgetArb = FastCheck.oneof(
  FastCheck.integer({ min: 0, max: 5 }).map(RetryBudget.fixed),
  FastCheck.integer({ min: 0, max: 5 }).map(RetryBudget.refilling),
  FastCheck.constant(RetryBudget.tokenBucket({ capacity: 10, retryCost: 5, successRefund: 1 }))
)

/** A budget and a state of it: fresh, partly spent or spent. */
const budgetStateArb = budgetArb.chain((budget) =>
  FastCheck.integer({ min: 0, max: 2 }).map((spent) => {
    let state = budget.initial
    for (let i = 0; i < spent; i++) state = Option.getOrElse(budget.acquire(state), () => state)
    return { budget, state }
  })
)

/** A bound that is set in about a third of the cases. */
const sometimes = <A>(arb: FastCheck.Arbitrary<A>) =>
  FastCheck.oneof({ arbitrary: FastCheck.constant(undefined), weight: 2 }, { arbitrary: arb, weight: 1 })

const contextArb = FastCheck.record({
  now: FastCheck.integer({ min: 0, max: 100_000 }),
  elapsed: FastCheck.integer({ min: 0, max: 100_000 }),
  maxRetryWait: FastCheck.integer({ min: 0, max: 120_000 }),
  wallClock: sometimes(FastCheck.integer({ min: 1, max: 200_000 })),
  maxCost: sometimes(FastCheck.double({ min: 0, max: 1, noNaN: true })),
  cost: FastCheck.option(FastCheck.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
  maxReductions: FastCheck.integer({ min: 0, max: 3 }),
  reductions: FastCheck.integer({ min: 0, max: 4 }),
  fallback: FastCheck.constantFrom(undefined, "model-b"),
  budget: budgetStateArb
}).map(
  (c): Decision.Context => ({
    now: c.now + c.elapsed,
    startedAt: c.now,
    bounds: {
      ...Settings.defaults,
      max_retry_wait_ms: c.maxRetryWait,
      max_context_reductions: c.maxReductions,
      ...(c.wallClock !== undefined ? { max_wall_clock_ms: c.wallClock } : {}),
      ...(c.maxCost !== undefined ? { max_cost_usd: c.maxCost } : {})
    },
    cost: c.cost,
    reductions: c.reductions,
    fallback: c.fallback,
    budget: c.budget.budget,
    budgetState: c.budget.state
  })
)

const caseArb = FastCheck.tuple(errorArb, stepArb, contextArb)

const retryAfterOf = (error: ModelError.ModelError) =>
  error.retryAfter === undefined ? 0 : Duration.toMillis(error.retryAfter)

/** The wait a transient error asks for, or `undefined` when the call is over on this model. */
const waitOf = (
  error: ModelError.ModelError,
  step: Option.Option<Duration.Duration>,
  context: Decision.Context
): number | undefined => {
  if (!ModelError.isRetryable(error) || Option.isNone(step)) return undefined
  const wait = Math.max(Duration.toMillis(step.value), retryAfterOf(error))
  return wait > context.bounds.max_retry_wait_ms ? undefined : wait
}

const charged = (context: Decision.Context) => context.budget.acquire(context.budgetState)

/** Which branch of the decision a case took, named after the spec's reaction. */
const branchOf = (
  error: ModelError.ModelError,
  step: Option.Option<Duration.Duration>,
  context: Decision.Context,
  decision: Decision.Decision
): string => {
  switch (decision._tag) {
    case "Retry":
      return `retry (${decision.source})`
    case "Reduce":
      return "reduce"
    case "Fallback":
      return ModelError.isRetryable(error) ? "fallback, charged" : "fallback, free"
    case "End": {
      const transient = ModelError.reactionOf(error.category) === "retry"
      if (decision.status === "retries_exhausted") {
        const why = !ModelError.isRetryable(error)
          ? "not retryable"
          : Option.isNone(step)
            ? "policy done"
            : "wait too long"
        return `end retries_exhausted (${why})`
      }
      if (decision.status === "retry_budget_exhausted")
        return waitOf(error, step, context) === undefined
          ? "end retry_budget_exhausted (fallback)"
          : "end retry_budget_exhausted (retry)"
      if (!transient) return `end ${decision.status}`
      return waitOf(error, step, context) === undefined
        ? `end ${decision.status} (before a fallback)`
        : `end ${decision.status} (before the wait)`
    }
  }
}

const every = [
  "retry (backoff)",
  "retry (retry_after)",
  "reduce",
  "fallback, charged",
  "fallback, free",
  "end retries_exhausted (not retryable)",
  "end retries_exhausted (policy done)",
  "end retries_exhausted (wait too long)",
  "end retry_budget_exhausted (fallback)",
  "end retry_budget_exhausted (retry)",
  "end wall_clock_exceeded (before the wait)",
  "end cost_exceeded (before the wait)",
  "end wall_clock_exceeded (before a fallback)",
  "end cost_exceeded (before a fallback)",
  "end context_exhausted",
  "end auth_error",
  "end invalid_request",
  "end quota_exceeded",
  "end content_filtered",
  "end failed"
]

const runs = { fastCheck: { numRuns: 2_000 } }

describe("Decision.decide", () => {
  it.prop(
    "auth_error, invalid_request and quota_exceeded end the run with their category: no retry, no fallback",
    [caseArb],
    ([[error, step, context]]) => {
      const decision = Decision.decide(error, step, context)
      if (ModelError.reactionOf(error.category) !== "fatal") return
      assert.deepInclude(decision, { _tag: "End", error })
      assert.strictEqual<string>(decision._tag === "End" ? decision.status : decision._tag, error.category)
    },
    runs
  )

  it.prop(
    "content_filtered ends content_filtered; unknown and process_crashed end failed; none is retried",
    [caseArb],
    ([[error, step, context]]) => {
      const decision = Decision.decide(error, step, context)
      if (error.category === "content_filtered")
        assert.deepInclude(decision, { _tag: "End", status: "content_filtered" })
      if (ModelError.reactionOf(error.category) === "fail")
        assert.deepInclude(decision, { _tag: "End", status: "failed" })
    },
    runs
  )

  it.prop(
    "a context overflow reduces, never retries or falls back, and ends context_exhausted past max_context_reductions",
    [caseArb],
    ([[error, step, context]]) => {
      const decision = Decision.decide(error, step, context)
      if (error.category !== "context_length_exceeded") {
        assert.notStrictEqual(decision._tag, "Reduce")
        return
      }
      const reductions = context.reductions + 1
      if (reductions > context.bounds.max_context_reductions)
        assert.deepInclude(decision, { _tag: "End", status: "context_exhausted", reductions })
      else assert.deepInclude(decision, { _tag: "Reduce", error, reductions })
    },
    runs
  )

  it.prop(
    "only a retryable transient error is retried, never sooner than its retry-after nor longer than max_retry_wait_ms",
    [caseArb],
    ([[error, step, context]]) => {
      const decision = Decision.decide(error, step, context)
      if (decision._tag !== "Retry") return
      assert.isTrue(ModelError.isRetryable(error))
      assert.isTrue(Option.isSome(step))
      const delay = Duration.toMillis(decision.delay)
      assert.strictEqual(delay, waitOf(error, step, context))
      assert.isAtLeast(delay, retryAfterOf(error))
      assert.isAtMost(delay, context.bounds.max_retry_wait_ms)
      assert.strictEqual(
        decision.source,
        error.retryAfter !== undefined && retryAfterOf(error) >= delay ? "retry_after" : "backoff"
      )
    },
    runs
  )

  it.prop(
    "a retry charges the session budget exactly once, and an empty budget ends the run instead",
    [caseArb],
    ([[error, step, context]]) => {
      const decision = Decision.decide(error, step, context)
      const paid = charged(context)
      if (decision._tag === "Retry") assert.deepStrictEqual(Option.some(decision.budget), paid)
      if (waitOf(error, step, context) !== undefined && Option.isNone(paid))
        assert.notStrictEqual(decision._tag, "Retry")
    },
    runs
  )

  it.prop(
    "a retry never sleeps past the wall-clock bound nor starts once the cost bound is reached",
    [caseArb],
    ([[error, step, context]]) => {
      const decision = Decision.decide(error, step, context)
      if (decision._tag !== "Retry") return
      const { max_wall_clock_ms, max_cost_usd } = context.bounds
      if (max_wall_clock_ms !== undefined)
        assert.isBelow(context.now + Duration.toMillis(decision.delay) - context.startedAt, max_wall_clock_ms)
      if (max_cost_usd !== undefined && context.cost !== null) assert.isBelow(context.cost, max_cost_usd)
    },
    runs
  )

  it.prop(
    "when the call is over on a model, the chain falls back (charged after a retryable error, free after one marked not retryable) or ends retries_exhausted; a bound already broken ends the run first, uncharged",
    [caseArb],
    ([[error, step, context]]) => {
      if (ModelError.reactionOf(error.category) !== "retry" || waitOf(error, step, context) !== undefined) return
      const decision = Decision.decide(error, step, context)
      if (context.fallback === undefined) {
        assert.deepInclude(decision, { _tag: "End", status: "retries_exhausted", error })
        return
      }
      const broken = Decision.beforeCall(context)
      if (Option.isSome(broken)) {
        assert.deepStrictEqual(decision, Decision.End({ status: broken.value.status, error }))
        return
      }
      if (!ModelError.isRetryable(error)) {
        assert.deepStrictEqual(decision, Decision.Fallback({ to: context.fallback, budget: context.budgetState }))
        return
      }
      const paid = charged(context)
      assert.deepStrictEqual(
        decision,
        Option.isSome(paid)
          ? Decision.Fallback({ to: context.fallback, budget: paid.value })
          : Decision.End({ status: "retry_budget_exhausted", error })
      )
    },
    runs
  )

  it.prop(
    "is a function of its inputs",
    [caseArb],
    ([[error, step, context]]) => {
      assert.deepStrictEqual(Decision.decide(error, step, context), Decision.decide(error, step, context))
    },
    { fastCheck: { numRuns: 200 } }
  )

  it("a 25 h retry-after is longer than any wait: the call falls back, or ends retries_exhausted", () => {
    const error = ModelError.make("rate_limited", {
      provider: "p",
      model: "m",
      message: "slow down",
      retryAfter: Duration.hours(25)
    })
    const context: Decision.Context = {
      now: 0,
      startedAt: 0,
      bounds: Settings.defaults,
      cost: null,
      reductions: 0,
      fallback: undefined,
      budget: RetryBudget.fixed(20),
      budgetState: RetryBudget.fixed(20).initial
    }
    const step = Option.some(Duration.millis(500))
    assert.deepInclude(Decision.decide(error, step, context), { _tag: "End", status: "retries_exhausted" })
    assert.deepInclude(Decision.decide(error, step, { ...context, fallback: "model-b" }), {
      _tag: "Fallback",
      to: "model-b"
    })
  })

  it("the generators reach every branch", () => {
    const counts = new Map<string, number>()
    const samples = FastCheck.sample(caseArb, { numRuns: 20_000, seed: 20_261_130 })
    for (const [error, step, context] of samples) {
      const branch = branchOf(error, step, context, Decision.decide(error, step, context))
      counts.set(branch, (counts.get(branch) ?? 0) + 1)
    }
    const report = every.map(
      (branch) => `${branch}: ${(((counts.get(branch) ?? 0) / samples.length) * 100).toFixed(1)} %`
    )
    console.info(`Decision.decide branch coverage over ${samples.length} generated cases:\n  ${report.join("\n  ")}`)
    for (const branch of every) assert.isAtLeast(counts.get(branch) ?? 0, 20, `${branch} is reached too rarely`)
    assert.deepStrictEqual(
      [...counts.keys()].filter((branch) => !every.includes(branch)),
      []
    )
  })
})

describe("Decision bounds and responses", () => {
  const bounds = { ...Settings.defaults, max_turns: 3, max_wall_clock_ms: 1_000, max_cost_usd: 0.5 }

  it("beforeTurn ends max_turns once the turns are used", () => {
    assert.isTrue(Option.isNone(Decision.beforeTurn(2, bounds)))
    assert.deepInclude(Option.getOrThrow(Decision.beforeTurn(3, bounds)), { status: "max_turns" })
  })

  it("beforeCall ends wall_clock_exceeded at the bound (a wait included) and cost_exceeded at the cost", () => {
    const context = { now: 500, startedAt: 0, bounds, cost: 0.1 }
    assert.isTrue(Option.isNone(Decision.beforeCall(context)))
    assert.deepInclude(Option.getOrThrow(Decision.beforeCall(context, 500)), { status: "wall_clock_exceeded" })
    assert.deepInclude(Option.getOrThrow(Decision.beforeCall({ ...context, cost: 0.5 })), { status: "cost_exceeded" })
  })

  it("afterResponse: a content filter's stop ends content_filtered, no tool call ends completed", () => {
    assert.deepInclude(Option.getOrThrow(Decision.afterResponse("content_filtered", 2)), { status: "content_filtered" })
    assert.deepInclude(Option.getOrThrow(Decision.afterResponse("end_turn", 0)), { status: "completed" })
    assert.isTrue(Option.isNone(Decision.afterResponse("tool_use", 1)))
  })
})
