/**
 * The decision core alone: every reaction of the spec, as properties of a pure function. Each property draws
 * the cases it is about (or counts how many of its cases reach them, and asserts at least 30 %), and the last
 * test counts every branch the union of the generators reaches.
 */
import { Decision, ModelError, ModelProvider, RetryBudget, Settings } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const HOUR = 3_600_000

const integer = (minimum: number, maximum: number): Arbitrary.Arbitrary<number> =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))

const double = (minimum: number, maximum: number): Arbitrary.Arbitrary<number> =>
  Arbitrary.schema(Schema.Finite.check(Schema.isBetween({ minimum, maximum })))

const boolean: Arbitrary.Arbitrary<boolean> = Arbitrary.schema(Schema.Boolean)

const constantFrom = <const A>(values: ReadonlyArray<A>): Arbitrary.Arbitrary<A> =>
  Arbitrary.map(integer(0, values.length - 1), (index) => values[index] as A)

/** One of the arbitraries, drawn by weight. */
const weighted = <A>(
  ...choices: ReadonlyArray<readonly [weight: number, arbitrary: Arbitrary.Arbitrary<A>]>
): Arbitrary.Arbitrary<A> => {
  let total = 0
  const ends = choices.map(([weight]) => (total += weight))
  const index = Arbitrary.map(integer(0, total - 1), (draw) => ends.findIndex((end) => draw < end))
  return Arbitrary.map(
    Arbitrary.all([index, Arbitrary.all(choices.map(([, arbitrary]) => arbitrary))]),
    ([picked, values]) => values[picked] as A
  )
}

const transient = ModelError.Category.literals.filter((category) => ModelError.reactionOf(category) === "retry")
const fatal = ModelError.Category.literals.filter((category) => ModelError.reactionOf(category) === "fatal")

/**
 * Errors of the given categories (by default every one, transient ones more often: they have the most
 * branches), with retry-after hints short, long and far past any wait, and both flags.
 */
const errorArb = (
  categories: ReadonlyArray<ModelError.Category> = ModelError.Category.literals,
  options: { readonly retryable?: ReadonlyArray<boolean | undefined> } = {}
) =>
  Arbitrary.map(
    Arbitrary.all({
      category:
        categories === ModelError.Category.literals
          ? weighted([3, constantFrom(transient)], [2, constantFrom(ModelError.Category.literals)])
          : constantFrom(categories),
      retryAfterMs: weighted<number | undefined>(
        [4, Arbitrary.Constant(undefined)],
        [4, integer(0, 5_000)],
        [1, integer(5_000, 200_000)],
        [1, Arbitrary.Constant(25 * HOUR)]
      ),
      retryable: constantFrom(options.retryable ?? [undefined, undefined, undefined, false, true]),
      midStream: boolean
    }),
    ({ category, retryAfterMs, retryable, midStream }) =>
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
const stepArb: Arbitrary.Arbitrary<Option.Option<Duration.Duration>> = weighted(
  [1, Arbitrary.Constant(Option.none<Duration.Duration>())],
  [5, Arbitrary.map(integer(0, 90_000), (ms) => Option.some(Duration.millis(ms)))]
)

const budgetArb = weighted<RetryBudget.Budget>(
  [1, Arbitrary.map(integer(0, 5), RetryBudget.fixed)],
  [1, Arbitrary.map(integer(0, 5), RetryBudget.refilling)],
  [1, Arbitrary.Constant(RetryBudget.tokenBucket({ capacity: 10, retryCost: 5, successRefund: 1 }))]
)

/** A budget and a state of it: fresh, partly spent or spent. */
const budgetStateArb = Arbitrary.map(Arbitrary.all([budgetArb, integer(0, 2)]), ([budget, spent]) => {
  let state = budget.initial
  for (let i = 0; i < spent; i++) state = Option.getOrElse(budget.acquire(state), () => state)
  return { budget, state }
})

/** A bound that is set in about a third of the cases. */
const sometimes = <A>(arbitrary: Arbitrary.Arbitrary<A>) =>
  weighted<A | undefined>([2, Arbitrary.Constant(undefined)], [1, arbitrary])

interface Chain {
  readonly models: ReadonlyArray<string>
  /** The model the call is on. */
  readonly index: number
}

/**
 * A routing chain of one to four models and the model a call is on: the first (a fallback ahead, or a
 * single model), one the call fell back to (a fallback of a fallback ahead), or the last (the chain
 * exhausted).
 */
const chainArb: Arbitrary.Arbitrary<Chain> = Arbitrary.flatMap(integer(1, 4), (length) =>
  Arbitrary.map(integer(0, length - 1), (index) => ({
    models: Array.from({ length }, (_, i) => `model-${i}`),
    index
  }))
)

const contextArb: Arbitrary.Arbitrary<Decision.Context> = Arbitrary.map(
  Arbitrary.all({
    now: integer(0, 100_000),
    elapsed: integer(0, 100_000),
    maxRetryWait: integer(0, 120_000),
    wallClock: sometimes(integer(1, 200_000)),
    maxCost: sometimes(double(0, 1)),
    cost: weighted<number | null>([1, Arbitrary.Constant(null)], [5, double(0, 1)]),
    maxReductions: integer(0, 3),
    reductions: integer(0, 4),
    budget: budgetStateArb
  }),
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

type Case = readonly [
  error: ModelError.ModelError,
  step: Option.Option<Duration.Duration>,
  context: Decision.Context,
  chain: Chain,
  granted: boolean
]

/** The error again, with a retry-after of exactly `millis`. */
const retryingAfter = (error: ModelError.ModelError, millis: number): ModelError.ModelError =>
  ModelError.make(error.category, {
    provider: error.provider,
    model: error.model,
    message: error.message,
    retryable: error.retryable,
    midStream: error.midStream,
    retryAfter: Duration.millis(millis)
  })

/**
 * An error, the policy's step, the run's context on a model of a chain (its fallback the chain's next
 * model), the chain, and the provider-wide quota's answer should the decision spend a retry (a refusal in a
 * quarter of the cases). In a sixth of the cases the retry-after is exactly the longest wait allowed and the
 * policy's delay no longer: the exact bound.
 */
const caseArb = (errors: Arbitrary.Arbitrary<ModelError.ModelError> = errorArb()): Arbitrary.Arbitrary<Case> =>
  Arbitrary.map(
    Arbitrary.all([errors, stepArb, contextArb, chainArb, constantFrom([true, true, true, false]), integer(0, 5)]),
    ([error, step, context, chain, granted, exact]): Case => {
      const fallback = { ...context, fallback: chain.models[chain.index + 1] }
      if (exact > 0) return [error, step, fallback, chain, granted]
      const max = context.bounds.max_retry_wait_ms
      const policy = Option.map(step, (delay) => Duration.millis(Math.min(Duration.toMillis(delay), max)))
      return [retryingAfter(error, max), policy, fallback, chain, granted]
    }
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

/**
 * A property over `arbitrary`: `body` asserts it for a case and says whether the case reached what the
 * property is about. At least 30 % of the cases must.
 */
const property = <A>(name: string, arbitrary: Arbitrary.Arbitrary<A>, body: (value: A) => boolean, runs = 2_000) =>
  it(name, () => {
    let reached = 0
    let ran = 0
    const result = Effect.runSync(
      Arbitrary.checkEffect(
        arbitrary,
        (value) => {
          ran++
          if (body(value)) reached++
          return true
        },
        { runs, seed: 20_261_130 }
      )
    )
    expect(Arbitrary.formatCheckFailure(result)).toBeUndefined()
    expect(reached / ran, "the share of cases that reach what the property is about").toBeGreaterThanOrEqual(0.3)
  })

/** A transient error the policy may retry (the server did not say not to). */
const retryableArb = errorArb(transient, { retryable: [undefined, true] })

/** Cases where a retry is likely: a retryable error, a policy not done, a wait of up to 90 s allowed. */
const retryCaseArb: Arbitrary.Arbitrary<Case> = Arbitrary.map(
  Arbitrary.all([caseArb(retryableArb), integer(0, 60_000)]),
  ([[error, , context, chain, granted], delay]): Case => [
    error,
    Option.some(Duration.millis(delay)),
    {
      ...context,
      bounds: { ...context.bounds, max_retry_wait_ms: Math.max(context.bounds.max_retry_wait_ms, 90_000) }
    },
    chain,
    granted
  ]
)

describe("Decision.decide", () => {
  property(
    "auth_error, invalid_request and quota_exceeded end the run with their category: no retry, no fallback",
    caseArb(errorArb(fatal)),
    ([error, step, context]) => {
      const decision = Decision.decide(error, step, context)
      expect(decision).toMatchObject({ _tag: "End", error })
      assert.strictEqual<string>(decision._tag === "End" ? decision.status : decision._tag, error.category)
      return true
    }
  )

  property(
    "content_filtered ends content_filtered; unknown and process_crashed end failed; none is retried",
    caseArb(errorArb(["content_filtered", "unknown", "process_crashed"])),
    ([error, step, context]) => {
      const decision = Decision.decide(error, step, context)
      if (error.category === "content_filtered")
        assert.deepInclude(decision, { _tag: "End", status: "content_filtered" })
      else assert.deepInclude(decision, { _tag: "End", status: "failed" })
      return true
    }
  )

  property(
    "a context overflow reduces, never retries or falls back, and ends context_exhausted past max_context_reductions",
    caseArb(errorArb(["context_length_exceeded"])),
    ([error, step, context]) => {
      const decision = Decision.decide(error, step, context)
      const reductions = context.reductions + 1
      if (reductions > context.bounds.max_context_reductions)
        assert.deepInclude(decision, { _tag: "End", status: "context_exhausted", reductions })
      else expect(decision).toMatchObject({ _tag: "Reduce", error, reductions })
      return true
    }
  )

  property(
    "no other error is reduced",
    caseArb(errorArb(ModelError.Category.literals.filter((c) => c !== "context_length_exceeded"))),
    ([error, step, context]) => {
      assert.notStrictEqual(Decision.decide(error, step, context)._tag, "Reduce")
      return true
    }
  )

  property(
    "only a retryable transient error is retried, never sooner than its retry-after nor longer than max_retry_wait_ms",
    retryCaseArb,
    ([error, step, context]) => {
      const decision = Decision.decide(error, step, context)
      if (decision._tag !== "Retry") return false
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
      return true
    }
  )

  // The exact bound: a retry-after of exactly max_retry_wait_ms is a wait the kernel takes, not one it refuses.
  property(
    "a retry-after exactly at max_retry_wait_ms is waited for, not the end of the call",
    Arbitrary.map(
      Arbitrary.all([retryableArb, integer(0, 120_000), integer(0, 120_000), budgetStateArb]),
      ([error, max, policy, { budget, state }]): Case => {
        const context: Decision.Context = {
          now: 0,
          startedAt: 0,
          bounds: { ...Settings.defaults, max_retry_wait_ms: max },
          cost: null,
          reductions: 0,
          fallback: undefined,
          budget,
          budgetState: state
        }
        const step = Option.some(Duration.millis(Math.min(policy, max)))
        return [retryingAfter(error, max), step, context, { models: ["model-0"], index: 0 }, true]
      }
    ),
    ([error, step, context]) => {
      const decision = Decision.decide(error, step, context)
      if (Option.isNone(charged(context))) {
        assert.deepInclude(decision, { _tag: "End", status: "retry_budget_exhausted" })
        return false
      }
      assert.deepInclude(decision, { _tag: "Retry", source: "retry_after" })
      assert.strictEqual(
        decision._tag === "Retry" ? Duration.toMillis(decision.delay) : undefined,
        context.bounds.max_retry_wait_ms
      )
      return true
    }
  )

  property(
    "a retry charges the session budget exactly once, and an empty budget ends the run instead",
    retryCaseArb,
    ([error, step, context]) => {
      const decision = Decision.decide(error, step, context)
      const paid = charged(context)
      if (decision._tag === "Retry") assert.deepStrictEqual(decision.budget, Option.getOrUndefined(paid))
      if (waitOf(error, step, context) !== undefined && Option.isNone(paid))
        assert.notStrictEqual(decision._tag, "Retry")
      return decision._tag === "Retry" || (waitOf(error, step, context) !== undefined && Option.isNone(paid))
    }
  )

  property(
    "a retry never sleeps past the wall-clock bound nor starts once the cost bound is reached",
    retryCaseArb,
    ([error, step, context]) => {
      const decision = Decision.decide(error, step, context)
      if (decision._tag !== "Retry") return false
      const { max_wall_clock_ms, max_cost_usd } = context.bounds
      if (max_wall_clock_ms !== undefined)
        assert.isBelow(context.now + Duration.toMillis(decision.delay) - context.startedAt, max_wall_clock_ms)
      if (max_cost_usd !== undefined && context.cost !== null) assert.isBelow(context.cost, max_cost_usd)
      return true
    }
  )

  property(
    "when the call is over on a model, the chain falls back (charged after a retryable error, free after one marked not retryable) or ends retries_exhausted; a bound already broken ends the run first, uncharged",
    // The policy is done: the call is over on this model whatever the error.
    Arbitrary.map(
      caseArb(errorArb(transient)),
      ([error, , context, chain, granted]): Case => [error, Option.none(), context, chain, granted]
    ),
    ([error, step, context]) => {
      const decision = Decision.decide(error, step, context)
      if (context.fallback === undefined) {
        expect(decision).toMatchObject({ _tag: "End", status: "retries_exhausted", error })
        return true
      }
      const broken = Decision.beforeCall(context)
      if (Option.isSome(broken)) {
        expect(decision).toEqual(Decision.End({ status: broken.value.status, error }))
        return true
      }
      if (!ModelError.isRetryable(error)) {
        expect(decision).toEqual(Decision.Fallback({ to: context.fallback, budget: context.budgetState }))
        return true
      }
      const paid = charged(context)
      expect(decision).toEqual(
        Option.isSome(paid)
          ? Decision.Fallback({ to: context.fallback, budget: paid.value })
          : Decision.End({ status: "retry_budget_exhausted", error })
      )
      return true
    }
  )

  property(
    "is a function of its inputs",
    caseArb(),
    ([error, step, context]) => {
      expect(Decision.decide(error, step, context)).toEqual(Decision.decide(error, step, context))
      return true
    },
    200
  )

  property(
    "a call walks its routing chain one model at a time: each fallback is to the next model, and only the last model's failure ends retries_exhausted",
    Arbitrary.all([
      integer(1, 4),
      Arbitrary.array(errorArb(transient), { minLength: 1, maxLength: 6 }),
      budgetStateArb
    ]),
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
          return true
        }
        expect(decision).toEqual(Decision.End({ status: "retry_budget_exhausted", error }))
        assert.isTrue(ModelError.isRetryable(error))
        assert.isTrue(Option.isNone(budget.acquire(budgetState)))
        assert.isBelow(index, models.length - 1)
        return true
      }
      assert.strictEqual(index, errors.length)
      return index > 0
    }
  )

  property(
    "the provider-wide quota is asked for exactly the retries the session budget paid for, and its refusal ends retry_budget_exhausted",
    caseArb(errorArb(transient)),
    ([error, step, context, , granted]) => {
      const decision = Decision.decide(error, step, context)
      const spends = Decision.spendsRetry(decision, context.budgetState)
      assert.strictEqual(
        spends,
        decision._tag === "Retry" || (decision._tag === "Fallback" && ModelError.isRetryable(error))
      )
      expect(Option.getOrUndefined(Decision.afterQuota(granted, error))).toEqual(
        granted ? undefined : Decision.End({ status: "retry_budget_exhausted", error })
      )
      return spends
    }
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
})

describe("Decision.plan", () => {
  const budget = RetryBudget.fixed(3)
  const attempt: Decision.Attempt = {
    turn: 2,
    model: "model-a",
    attempt: 3,
    retries: 1,
    maxPerCall: 1,
    modelIndex: 0,
    reductions: 0,
    shownTextChars: 0
  }
  const failure = (error: ModelError.ModelError, over: Partial<Decision.Failure> = {}): Decision.Failure => ({
    error,
    attempt,
    budget,
    budgetState: budget.initial,
    granted: true,
    ...over
  })

  it("a retry: charged, its counters moved, retry_scheduled; the charge and the counters given back if it never runs", () => {
    const error = ScriptedModel.error("overloaded")
    const charge = Option.getOrThrow(budget.acquire(budget.initial))
    const decision = Decision.Retry({ delay: Duration.millis(500), source: "backoff", budget: charge })
    const plan = Decision.plan(decision, failure(error))
    expect(plan.budget).toEqual(charge)
    expect(plan.counters).toEqual({ retries: 2, maxPerCall: 2, modelIndex: 0, reductions: 0 })
    expect(plan.refund).toEqual({
      budget: budget.initial,
      counters: { retries: 1, maxPerCall: 1, modelIndex: 0, reductions: 0 }
    })
    expect(plan.events).toEqual([
      {
        type: "retry_scheduled",
        turn: 2,
        model: "model-a",
        category: "overloaded",
        message: error.message,
        attempt: 2,
        session_retries_used: 1,
        session_retries_left: 2,
        delay_ms: 500,
        retry_after_ms: null,
        source: "backoff"
      }
    ])
  })

  it("a retry after a failure mid-stream or an attempt that showed text is announced by stream_restarted first", () => {
    const charge = Option.getOrThrow(budget.acquire(budget.initial))
    const decision = Decision.Retry({ delay: Duration.millis(500), source: "backoff", budget: charge })
    const midStream = Decision.plan(decision, failure(ScriptedModel.error("overloaded", { midStream: true })))
    expect(midStream.events.map((event) => event.type)).toEqual(["stream_restarted", "retry_scheduled"])
    const shown = Decision.plan(
      decision,
      failure(ScriptedModel.error("overloaded"), { attempt: { ...attempt, shownTextChars: 7 } })
    )
    expect(shown.events[0]).toEqual({
      type: "stream_restarted",
      turn: 2,
      model: "model-a",
      attempt: 3,
      category: "overloaded",
      discarded_text_chars: 7
    })
  })

  it("a fallback: the next model, its retries from zero, fallback (stream_restarted first only when text was shown)", () => {
    const error = ScriptedModel.error("overloaded", { midStream: true })
    const charge = Option.getOrThrow(budget.acquire(budget.initial))
    const plan = Decision.plan(Decision.Fallback({ to: "model-b", budget: charge }), failure(error))
    expect(plan.counters).toEqual({ retries: 0, maxPerCall: 1, modelIndex: 1, reductions: 0 })
    expect(plan.budget).toEqual(charge)
    expect(plan.refund).toBeUndefined()
    expect(plan.events).toEqual([
      {
        type: "fallback",
        turn: 2,
        from: "model-a",
        to: "model-b",
        category: "overloaded",
        session_retries_used: 1,
        session_retries_left: 2
      }
    ])
  })

  it("a refusal by the provider-wide quota ends the run, budget unspent, with retry_quota_exhausted", () => {
    const error = ScriptedModel.error("overloaded")
    const charge = Option.getOrThrow(budget.acquire(budget.initial))
    const decision = Decision.Retry({ delay: Duration.millis(500), source: "backoff", budget: charge })
    const plan = Decision.plan(decision, failure(error, { granted: false }))
    expect(plan.decision).toEqual(Decision.End({ status: "retry_budget_exhausted", error }))
    expect(plan.budget).toEqual(budget.initial)
    expect(plan.counters).toEqual({ retries: 1, maxPerCall: 1, modelIndex: 0, reductions: 0 })
    expect(plan.events.map((event) => event.type)).toEqual(["retry_quota_exhausted"])
  })

  it("a content filter's error keeps the text it let through, and says so; an overflow counts a reduction", () => {
    const filtered = new ModelError.ContentFiltered({
      provider: "p",
      model: "model-a",
      message: "stopped",
      partialText: "I can start"
    })
    const ended = Decision.plan(Decision.End({ status: "content_filtered", error: filtered }), failure(filtered))
    expect(ended.kept).toBe("I can start")
    expect(ended.events).toEqual([
      { type: "content_filtered", turn: 2, model: "model-a", message: "stopped", partial_text: "I can start" }
    ])
    const overflow = ScriptedModel.contextOverflow()
    const reduced = Decision.plan(Decision.Reduce({ error: overflow, reductions: 1 }), failure(overflow))
    expect(reduced.counters.reductions).toBe(1)
    expect(reduced.events).toEqual([])
  })
})

/** Which branch of the decision a case took, named after the spec's reaction. */
const branchOf = ([error, step, context]: Case, decision: Decision.Decision): string => {
  switch (decision._tag) {
    case "Retry":
      return retryAfterOf(error) === context.bounds.max_retry_wait_ms &&
        Duration.toMillis(decision.delay) === context.bounds.max_retry_wait_ms
        ? "retry at the exact bound"
        : `retry (${decision.source})`
    case "Reduce":
      return "reduce"
    case "Fallback":
      return ModelError.isRetryable(error) ? "fallback, charged" : "fallback, free"
    case "End": {
      const isTransient = ModelError.reactionOf(error.category) === "retry"
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
      if (!isTransient) return `end ${decision.status}`
      return waitOf(error, step, context) === undefined
        ? `end ${decision.status} (before a fallback)`
        : `end ${decision.status} (before the wait)`
    }
  }
}

const every = [
  "retry (backoff)",
  "retry (retry_after)",
  "retry at the exact bound",
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
const branchOfCase = (testCase: Case): string => {
  const [error, step, context, , granted] = testCase
  const decision = Decision.decide(error, step, context)
  if (Decision.spendsRetry(decision, context.budgetState) && Option.isSome(Decision.afterQuota(granted, error)))
    return decision._tag === "Retry"
      ? "end retry_budget_exhausted (quota refused a retry)"
      : "end retry_budget_exhausted (quota refused a fallback)"
  return branchOf(testCase, decision)
}

const everyCase = [
  ...every,
  "end retry_budget_exhausted (quota refused a retry)",
  "end retry_budget_exhausted (quota refused a fallback)"
]

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
 * The kernel's estimate of a context before a reduction, and of what the provider returned: nothing (it
 * could not reduce), less, the same or more.
 */
const reductionArb = Arbitrary.map(
  Arbitrary.all({
    before: integer(0, 20_000),
    change: weighted<number | undefined>(
      [1, Arbitrary.Constant(undefined)],
      [2, integer(-20_000, -1)],
      [1, Arbitrary.Constant(0)],
      [1, integer(1, 2_000)]
    )
  }),
  ({ before, change }) => ({ before, after: change === undefined ? undefined : Math.max(0, before + change) })
)

const reductionBranchOf = ({ after, before }: { readonly before: number; readonly after: number | undefined }) =>
  Option.isNone(Decision.afterReduction(overflow, before, after))
    ? "reduced"
    : after === undefined
      ? "end context_exhausted (cannot reduce)"
      : "end context_exhausted (not smaller)"

const everyReduction = ["reduced", "end context_exhausted (cannot reduce)", "end context_exhausted (not smaller)"]

/** A response's stop reason, and how many tool calls it holds. */
const responseArb = Arbitrary.all([constantFrom(ModelProvider.StopReason.literals), integer(0, 3)])

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
const callArb = Arbitrary.flatMap(contextArb, (context) => {
  const left = Decision.timeLeft(context.bounds, context.startedAt, context.now)
  return Arbitrary.all([
    Arbitrary.Constant(context),
    left === undefined || left < 0
      ? integer(0, 100_000)
      : weighted([1, integer(0, 100_000)], [1, Arbitrary.Constant(left)])
  ])
})

const callBranchOf = ([context, extraMillis]: readonly [Decision.Context, number]) => {
  const bound = Decision.beforeCall(context, extraMillis)
  return Option.isNone(bound) ? "call" : `end ${bound.value.status}`
}

const everyCall = ["call", "end wall_clock_exceeded", "end cost_exceeded"]

/** 20,000 generated cases, from a fixed seed: the counts do not vary between runs. */
const sample = <A>(arbitrary: Arbitrary.Arbitrary<A>): ReadonlyArray<A> =>
  Effect.runSync(Arbitrary.sampleEffect(arbitrary, { count: 20_000, seed: 20_261_130 }))

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

describe("the generators", () => {
  it("reach every branch of the core, and every place in a routing chain", () => {
    const cases = sample(caseArb())
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

  property(
    "afterResponse: a content filter's stop is its own status, never completed, whatever tool calls it holds; otherwise no tool call ends completed and tool calls run",
    responseArb,
    ([stopReason, toolCalls]) => {
      const after = Decision.afterResponse(stopReason, toolCalls)
      if (stopReason === "content_filtered")
        expect(Option.getOrUndefined(after)).toEqual(Decision.End({ status: "content_filtered" }))
      else if (toolCalls === 0) expect(Option.getOrUndefined(after)).toEqual(Decision.End({ status: "completed" }))
      else assert.isTrue(Option.isNone(after))
      return true
    }
  )

  property(
    "afterReduction: only a strictly smaller context is sent; a provider that cannot reduce, or does not shrink the context, ends the run context_exhausted",
    reductionArb,
    ({ before, after }) => {
      expect(Option.getOrUndefined(Decision.afterReduction(overflow, before, after))).toEqual(
        after !== undefined && after < before
          ? undefined
          : Decision.End({ status: "context_exhausted", error: overflow })
      )
      return true
    }
  )

  property(
    "beforeCall ends wall_clock_exceeded exactly when the wait uses up the time left, then cost_exceeded at the cost bound",
    callArb,
    ([context, extraMillis]) => {
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
      expect(Option.getOrUndefined(Decision.beforeCall(context, extraMillis))).toEqual(
        status === undefined ? undefined : Decision.End({ status })
      )
      return true
    }
  )

  it("pastDeadline: work the wall-clock bound cut short ends the run wall_clock_exceeded", () => {
    expect(Decision.pastDeadline).toEqual(Decision.End({ status: "wall_clock_exceeded" }))
  })
})
describe("Decision: a bound is checked before the budget", () => {
  const overloaded: ModelError.ModelError = ScriptedModel.error("overloaded")
  const bounds = { ...Settings.defaults, max_wall_clock_ms: 10_000, max_cost_usd: 1 }
  const spentBudget = RetryBudget.fixed(1)
  const empty = Option.getOrThrow(spentBudget.acquire(spentBudget.initial))
  const context = (over: Partial<Decision.Context>): Decision.Context => ({
    now: 0,
    startedAt: 0,
    bounds,
    cost: null,
    reductions: 0,
    fallback: undefined,
    budget: spentBudget,
    budgetState: empty,
    ...over
  })

  it("a retry whose wait breaks the wall clock ends wall_clock_exceeded, even with an empty budget", () => {
    const decision = Decision.decide(overloaded, Option.some(Duration.millis(500)), context({ now: 9_800 }))
    assert.deepStrictEqual(
      [decision._tag, decision._tag === "End" ? decision.status : ""],
      ["End", "wall_clock_exceeded"]
    )
  })

  it("a cost over its bound ends cost_exceeded, even with an empty budget", () => {
    const decision = Decision.decide(overloaded, Option.some(Duration.millis(500)), context({ cost: 2 }))
    assert.deepStrictEqual([decision._tag, decision._tag === "End" ? decision.status : ""], ["End", "cost_exceeded"])
  })

  it("a fallback after a broken bound ends with the bound, and is not charged", () => {
    const budget = RetryBudget.fixed(5)
    const decision = Decision.decide(
      overloaded,
      Option.none(),
      context({ cost: 2, fallback: "model-b", budget, budgetState: budget.initial })
    )
    assert.deepStrictEqual([decision._tag, decision._tag === "End" ? decision.status : ""], ["End", "cost_exceeded"])
  })

  it("within the bounds, an empty budget ends retry_budget_exhausted", () => {
    const decision = Decision.decide(overloaded, Option.some(Duration.millis(500)), context({ now: 1_000 }))
    assert.deepStrictEqual(
      [decision._tag, decision._tag === "End" ? decision.status : ""],
      ["End", "retry_budget_exhausted"]
    )
  })
})
