/**
 * The decision core alone: every reaction of the spec, as properties of a pure function, over
 * generated errors, policy steps and run contexts built to reach every branch (see the last test,
 * which counts them).
 */
import { Decision, ModelError, ModelProvider, RetryBudget, Settings } from "@agent-kernel/kernel"
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

/**
 * A routing chain of one to four models and the model a call is on: the first (a fallback ahead, or
 * a single model), one the call fell back to (a fallback of a fallback ahead), or the last (the
 * chain exhausted).
 */
const chainArb = FastCheck.integer({ min: 1, max: 4 }).chain((length) =>
  FastCheck.integer({ min: 0, max: length - 1 }).map(
    (index): Chain => ({ models: Array.from({ length }, (_, i) => `model-${i}`), index })
  )
)

interface Chain {
  readonly models: ReadonlyArray<string>
  /** The model the call is on. */
  readonly index: number
}

const contextArb = FastCheck.record({
  now: FastCheck.integer({ min: 0, max: 100_000 }),
  elapsed: FastCheck.integer({ min: 0, max: 100_000 }),
  maxRetryWait: FastCheck.integer({ min: 0, max: 120_000 }),
  wallClock: sometimes(FastCheck.integer({ min: 1, max: 200_000 })),
  maxCost: sometimes(FastCheck.double({ min: 0, max: 1, noNaN: true })),
  cost: FastCheck.option(FastCheck.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
  maxReductions: FastCheck.integer({ min: 0, max: 3 }),
  reductions: FastCheck.integer({ min: 0, max: 4 }),
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
    fallback: undefined,
    budget: c.budget.budget,
    budgetState: c.budget.state
  })
)

/**
 * An error, the policy's step, the run's context on a model of a chain (its fallback the chain's
 * next model), the chain, and the provider-wide quota's answer should the decision spend a retry
 * (a refusal in a quarter of the cases).
 */
const caseArb = FastCheck.tuple(
  errorArb,
  stepArb,
  contextArb,
  chainArb,
  FastCheck.constantFrom(true, true, true, false)
).map(
  ([error, step, context, chain, granted]) =>
    [error, step, { ...context, fallback: chain.models[chain.index + 1] }, chain, granted] as const
)

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

/** The branch a case took through the decision and the quota: the quota's refusal of a retry the decision spends. */
const branchOfCase = ([error, step, context, , granted]: Case): string => {
  const decision = Decision.decide(error, step, context)
  if (Decision.spendsRetry(decision, context.budgetState) && Option.isSome(Decision.afterQuota(granted, error)))
    return decision._tag === "Retry"
      ? "end retry_budget_exhausted (quota refused a retry)"
      : "end retry_budget_exhausted (quota refused a fallback)"
  return branchOf(error, step, context, decision)
}

const everyCase = [
  ...every,
  "end retry_budget_exhausted (quota refused a retry)",
  "end retry_budget_exhausted (quota refused a fallback)"
]

type Case = typeof caseArb extends FastCheck.Arbitrary<infer A> ? A : never

/** Where in its chain a call that is over on its model was: what falling back, or ending, means there. */
const placeOf = ([error, step, context, chain]: Case): string | undefined => {
  const decision = Decision.decide(error, step, context)
  if (decision._tag === "Fallback")
    return chain.index === 0 ? "fallback from the first model" : "fallback of a fallback"
  if (decision._tag === "End" && decision.status === "retries_exhausted")
    return chain.models.length === 1 ? "retries_exhausted, a single model" : "retries_exhausted, the chain exhausted"
  return undefined
}

const everyPlace = [
  "fallback from the first model",
  "fallback of a fallback",
  "retries_exhausted, a single model",
  "retries_exhausted, the chain exhausted"
]

/** A context overflow, as a provider reports it. */
const overflow = ModelError.make("context_length_exceeded", { provider: "p", model: "m", message: "too long" })

/**
 * The kernel's estimate of a context before a reduction, and of what the provider returned: nothing
 * (it could not reduce), less, the same or more.
 */
const reductionArb = FastCheck.record({
  before: FastCheck.integer({ min: 0, max: 20_000 }),
  change: FastCheck.oneof(
    { arbitrary: FastCheck.constant(undefined), weight: 1 },
    { arbitrary: FastCheck.integer({ min: -20_000, max: -1 }), weight: 2 },
    { arbitrary: FastCheck.constant(0), weight: 1 },
    { arbitrary: FastCheck.integer({ min: 1, max: 2_000 }), weight: 1 }
  )
}).map(({ before, change }) => ({ before, after: change === undefined ? undefined : Math.max(0, before + change) }))

const reductionBranchOf = ({ after, before }: { readonly before: number; readonly after: number | undefined }) =>
  Option.isNone(Decision.afterReduction(overflow, before, after))
    ? "reduced"
    : after === undefined
      ? "end context_exhausted (cannot reduce)"
      : "end context_exhausted (not smaller)"

const everyReduction = ["reduced", "end context_exhausted (cannot reduce)", "end context_exhausted (not smaller)"]

/** A response's stop reason, and how many tool calls it holds. */
const responseArb = FastCheck.tuple(
  FastCheck.constantFrom(...ModelProvider.StopReason.literals),
  FastCheck.integer({ min: 0, max: 3 })
)

const responseBranchOf = ([stopReason, toolCalls]: readonly [ModelProvider.StopReason, number]) => {
  const after = Decision.afterResponse(stopReason, toolCalls)
  if (Option.isNone(after)) return "tools run"
  if (after.value.status !== "content_filtered") return `end ${after.value.status}`
  return toolCalls === 0 ? "end content_filtered (no tool call)" : "end content_filtered (tool calls answered)"
}

const everyResponse = [
  "tools run",
  "end completed",
  "end content_filtered (no tool call)",
  "end content_filtered (tool calls answered)"
]

/** A run's context and the length of a wait before a call: any, or one that reaches the wall-clock bound exactly. */
const callArb = contextArb.chain((context) => {
  const left = Decision.timeLeft(context.bounds, context.startedAt, context.now)
  return FastCheck.tuple(
    FastCheck.constant(context),
    left === undefined || left < 0
      ? FastCheck.integer({ min: 0, max: 100_000 })
      : FastCheck.oneof(FastCheck.integer({ min: 0, max: 100_000 }), FastCheck.constant(left))
  )
})

const callBranchOf = ([context, extraMillis]: readonly [Decision.Context, number]) => {
  const bound = Decision.beforeCall(context, extraMillis)
  return Option.isNone(bound) ? "call" : `end ${bound.value.status}`
}

const everyCall = ["call", "end wall_clock_exceeded", "end cost_exceeded"]

const runs = { fastCheck: { numRuns: 2_000 } }

// Options are compared through `Option.getOrUndefined`: chai's `deepStrictEqual` holds `Option.none()`
// equal to any `Option.some(…)`, so a comparison of Options could not fail on the one difference that matters.

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
      if (decision._tag === "Retry") assert.deepStrictEqual(decision.budget, Option.getOrUndefined(paid))
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

  it.prop(
    "a call walks its routing chain one model at a time: each fallback is to the next model, and only the last model's failure ends retries_exhausted",
    [
      FastCheck.integer({ min: 1, max: 4 }),
      FastCheck.array(
        errorArb.filter((error) => ModelError.reactionOf(error.category) === "retry"),
        { minLength: 1, maxLength: 6 }
      ),
      budgetStateArb
    ],
    ([length, errors, { budget, state }]) => {
      const models = Array.from({ length }, (_, i) => `model-${i}`)
      // The policy is done on each model: every error is the last one that model gets.
      let index = 0
      let budgetState = state
      for (const error of errors) {
        const context: Decision.Context = {
          now: 0,
          startedAt: 0,
          bounds: Settings.defaults,
          cost: null,
          reductions: 0,
          fallback: models[index + 1],
          budget,
          budgetState
        }
        const decision = Decision.decide(error, Option.none(), context)
        if (decision._tag === "Fallback") {
          assert.strictEqual(decision.to, models[index + 1])
          assert.strictEqual(Decision.spendsRetry(decision, budgetState), ModelError.isRetryable(error))
          index += 1
          budgetState = decision.budget
          continue
        }
        if (decision._tag === "End" && decision.status === "retries_exhausted") {
          assert.strictEqual(index, models.length - 1)
          return
        }
        assert.deepStrictEqual(decision, Decision.End({ status: "retry_budget_exhausted", error }))
        assert.isTrue(ModelError.isRetryable(error))
        assert.isTrue(Option.isNone(budget.acquire(budgetState)))
        assert.isBelow(index, models.length - 1)
        return
      }
      assert.strictEqual(index, errors.length)
    },
    runs
  )

  it.prop(
    "the provider-wide quota is asked for exactly the retries the session budget paid for, and its refusal ends retry_budget_exhausted",
    [caseArb],
    ([[error, step, context, , granted]]) => {
      const decision = Decision.decide(error, step, context)
      assert.strictEqual(
        Decision.spendsRetry(decision, context.budgetState),
        decision._tag === "Retry" || (decision._tag === "Fallback" && ModelError.isRetryable(error))
      )
      assert.deepStrictEqual(
        Option.getOrUndefined(Decision.afterQuota(granted, error)),
        granted ? undefined : Decision.End({ status: "retry_budget_exhausted", error })
      )
    },
    runs
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

  it("the generators reach every branch of the core, and every place in a routing chain", () => {
    const cases = sample(caseArb)
    const groups = [
      coverage("decide, then the quota", cases, branchOfCase, everyCase),
      coverage("where in a chain", cases, placeOf, everyPlace),
      coverage("afterReduction", sample(reductionArb), reductionBranchOf, everyReduction),
      coverage("afterResponse", sample(responseArb), responseBranchOf, everyResponse),
      coverage("beforeCall", sample(callArb), callBranchOf, everyCall)
    ]
    console.info(`Decision branch coverage:\n${groups.map((group) => group.report).join("\n")}`)
    for (const { counts, every, name } of groups) {
      for (const branch of every)
        assert.isAtLeast(counts.get(branch) ?? 0, 20, `${name}: ${branch} is reached too rarely`)
      assert.deepStrictEqual(
        [...counts.keys()].filter((branch) => !every.includes(branch)),
        [],
        name
      )
    }
  })
})

/** 20,000 generated cases, from a fixed seed: the counts do not vary between runs. */
const sample = <A>(arb: FastCheck.Arbitrary<A>): ReadonlyArray<A> =>
  FastCheck.sample(arb, { numRuns: 20_000, seed: 20_261_130 })

/** How often each branch is taken over the samples. */
const coverage = <A>(
  name: string,
  samples: ReadonlyArray<A>,
  branchOf: (a: A) => string | undefined,
  every: ReadonlyArray<string>
) => {
  const counts = new Map<string, number>()
  for (const sample of samples) {
    const branch = branchOf(sample)
    if (branch !== undefined) counts.set(branch, (counts.get(branch) ?? 0) + 1)
  }
  const lines = every.map(
    (branch) => `    ${branch}: ${(((counts.get(branch) ?? 0) / samples.length) * 100).toFixed(1)} %`
  )
  return { name, counts, every, report: `  ${name}:\n${lines.join("\n")}` }
}

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

  it.prop(
    "afterResponse: a content filter's stop is its own status, never completed, whatever tool calls it holds; otherwise no tool call ends completed and tool calls run",
    [responseArb],
    ([[stopReason, toolCalls]]) => {
      const after = Decision.afterResponse(stopReason, toolCalls)
      if (stopReason === "content_filtered")
        assert.deepStrictEqual(Option.getOrUndefined(after), Decision.End({ status: "content_filtered" }))
      else if (toolCalls === 0)
        assert.deepStrictEqual(Option.getOrUndefined(after), Decision.End({ status: "completed" }))
      else assert.isTrue(Option.isNone(after))
    },
    runs
  )

  it.prop(
    "afterReduction: only a strictly smaller context is sent; a provider that cannot reduce, or does not shrink the context, ends the run context_exhausted",
    [reductionArb],
    ([{ before, after }]) => {
      assert.deepStrictEqual(
        Option.getOrUndefined(Decision.afterReduction(overflow, before, after)),
        after !== undefined && after < before
          ? undefined
          : Decision.End({ status: "context_exhausted", error: overflow })
      )
    },
    runs
  )

  it.prop(
    "beforeCall ends wall_clock_exceeded exactly when the wait uses up the time left, then cost_exceeded at the cost bound",
    [callArb],
    ([[context, extraMillis]]) => {
      const { max_wall_clock_ms, max_cost_usd } = context.bounds
      const left = Decision.timeLeft(context.bounds, context.startedAt, context.now)
      if (max_wall_clock_ms === undefined) assert.isUndefined(left)
      else assert.strictEqual(left, max_wall_clock_ms - (context.now - context.startedAt))
      const status =
        left !== undefined && left <= extraMillis
          ? "wall_clock_exceeded"
          : max_cost_usd !== undefined && context.cost !== null && context.cost >= max_cost_usd
            ? "cost_exceeded"
            : undefined
      assert.deepStrictEqual(
        Option.getOrUndefined(Decision.beforeCall(context, extraMillis)),
        status === undefined ? undefined : Decision.End({ status })
      )
    },
    runs
  )

  it("pastDeadline: work the wall-clock bound cut short ends the run wall_clock_exceeded", () => {
    assert.deepStrictEqual(Decision.pastDeadline, Decision.End({ status: "wall_clock_exceeded" }))
  })
})
