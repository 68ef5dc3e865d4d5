import { RetryBudget, RetryPolicy, Settings } from "@agent-kernel/kernel"
import { Arbitraries, Laws } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"

const defaults = Settings.defaults
const runs = { numRuns: 60 }

/** Checks a law that must fail, and returns its violation. */
const violated = (law: Laws.Law, subject: Laws.Subject) =>
  Effect.flatMap(Effect.result(Laws.check(law, subject, runs)), (result) =>
    Result.isFailure(result)
      ? Effect.succeed(result.failure)
      : Effect.die(new Error(`expected ${law.name} to be broken, but it held`))
  )

/** Every law, with the caps and the delay envelope of these settings. */
const lawsFor = (settings: Settings.Settings) => [
  ...Laws.all(settings),
  Laws.delaysWithin(Laws.backoffEnvelope(settings)),
  Laws.neverRetries(["auth_error", "invalid_request", "quota_exceeded", "content_filtered", "process_crashed"])
]

describe("the default policy keeps every law", () => {
  const variants: ReadonlyArray<[string, Settings.Settings]> = [
    ["defaults", defaults],
    [
      "full jitter, a 2 s cap, a fallback chain",
      { ...defaults, jitter: "full", max_delay_ms: 2_000, fallback_models: ["b", "c"] }
    ],
    ["no jitter, 2 retries, a budget of 3", { ...defaults, jitter: "none", max_retries: 2, max_session_retries: 3 }],
    ["zero retries", { ...defaults, max_retries: 0, max_session_retries: 0 }]
  ]
  for (const [name, settings] of variants) {
    it.effect(name, () =>
      Laws.checkAll(lawsFor(settings), { policy: RetryPolicy.fromSettings(settings), settings }, runs)
    )
  }

  it.effect.prop(
    "for any settings",
    [Arbitrary.map(Arbitraries.settings(), (settings) => ({ ...settings, fallback_models: ["b"] }))],
    ([settings]) =>
      Laws.checkAll(lawsFor(settings), { policy: RetryPolicy.fromSettings(settings), settings }, { numRuns: 15 }),
    { arbitrary: { runs: 8 } }
  )

  it.effect("with an AWS-style token bucket that refunds on success", () =>
    Laws.checkAll(
      [
        Laws.respectsSessionBudget(4, { refundPerSuccess: 1 / 5 }),
        Laws.respectsPerCallCap(defaults.max_retries),
        Laws.neverFallsBackOn(["auth_error", "invalid_request", "quota_exceeded"])
      ],
      {
        policy: RetryPolicy.fromSettings(defaults),
        settings: { ...defaults, fallback_models: ["b"] },
        budget: RetryBudget.tokenBucket({ capacity: 20, retryCost: 5, successRefund: 1 })
      },
      runs
    )
  )
})

describe("every building block keeps every law in a complete policy, and is what keeps its law", () => {
  const settings = { ...defaults, max_retries: 4, max_delay_ms: 8_000 }
  const complete = (shape: (s: Schedule.Schedule<unknown>) => Schedule.Schedule<unknown>): RetryPolicy.RetryPolicy =>
    RetryPolicy.backoff({ base: "500 millis", factor: 2 }).pipe(
      shape,
      RetryPolicy.capped("8 seconds"),
      RetryPolicy.upTo(4),
      RetryPolicy.whileRetryable,
      RetryPolicy.honorRetryAfter
    )
  const blocks: ReadonlyArray<[string, RetryPolicy.RetryPolicy, Settings.JitterKind]> = [
    ["backoff, capped, upTo, whileRetryable, honorRetryAfter", complete((s) => s), "none"],
    ["fullJitter", complete(RetryPolicy.fullJitter), "full"],
    ["proportionalJitter", complete(RetryPolicy.proportionalJitter), "proportional"],
    ["jitter('full')", complete(RetryPolicy.jitter("full")), "full"],
    ["jitter('proportional')", complete(RetryPolicy.jitter("proportional")), "proportional"],
    ["jitter('none')", complete(RetryPolicy.jitter("none")), "none"]
  ]
  for (const [name, policy, jitter] of blocks) {
    it.effect(name, () => {
      // Proportional jitter runs above the cap here (it is applied before `capped`), so its envelope is the cap.
      const envelope = Laws.backoffEnvelope({ ...settings, jitter })
      return Laws.checkAll([...Laws.all(settings), Laws.delaysWithin(envelope)], { policy, settings }, runs)
    })
  }

  it.effect("honorRetryAfter is what keeps honorsRetryAfter", () =>
    Effect.gen(function* () {
      const without = RetryPolicy.whileRetryable(Schedule.spaced("1 second").pipe(RetryPolicy.upTo(3)))
      yield* violated(Laws.honorsRetryAfter, { policy: without })
      yield* Laws.check(Laws.honorsRetryAfter, { policy: RetryPolicy.honorRetryAfter(without) }, runs)
    })
  )

  it.effect("whileRetryable is what keeps neverRetries", () =>
    Effect.gen(function* () {
      const without = Schedule.spaced("1 second").pipe(RetryPolicy.upTo(3))
      yield* violated(Laws.neverRetries(["invalid_request"]), { policy: without })
      yield* Laws.check(Laws.neverRetries(["invalid_request"]), { policy: RetryPolicy.whileRetryable(without) }, runs)
    })
  )

  it.effect("upTo is what keeps terminates and respectsPerCallCap", () =>
    Effect.gen(function* () {
      const without = RetryPolicy.whileRetryable(Schedule.spaced("1 second"))
      const budgetless = { ...defaults, max_session_retries: 1_000 }
      yield* violated(Laws.terminates, { policy: without })
      yield* violated(Laws.respectsPerCallCap(3), { policy: without, settings: budgetless })
      const capped = RetryPolicy.whileRetryable(Schedule.spaced("1 second").pipe(RetryPolicy.upTo(3)))
      yield* Laws.checkAll(
        [Laws.terminates, Laws.respectsPerCallCap(3)],
        { policy: capped, settings: budgetless },
        runs
      )
    })
  )

  it.effect("capped is what keeps delaysWithin({ max })", () =>
    Effect.gen(function* () {
      const without = RetryPolicy.backoff({ base: "1 second" }).pipe(RetryPolicy.upTo(8), RetryPolicy.whileRetryable)
      const law = Laws.delaysWithin({ max: "10 seconds" })
      const violation = yield* violated(law, { policy: without })
      assert.include(violation.problem, "outside [0 ms, 10.00 s]")
      yield* Laws.check(law, { policy: without.pipe(RetryPolicy.capped("10 seconds")) }, runs)
    })
  )
})

describe("the laws catch seeded bugs with a readable counterexample", () => {
  it.effect("a policy that ignores retry-after breaks honorsRetryAfter", () =>
    Effect.gen(function* () {
      const ignoresRetryAfter = RetryPolicy.backoff({ base: "500 millis" }).pipe(
        RetryPolicy.capped("30 seconds"),
        RetryPolicy.upTo(5),
        RetryPolicy.whileRetryable
      )
      const violation = yield* violated(Laws.honorsRetryAfter, { policy: ignoresRetryAfter })
      assert.strictEqual(violation.law, "honorsRetryAfter")
      // Shrunk to a plan of one or two errors, the last with a retry-after longer than its backoff.
      assert.isAtMost(violation.faults.length, 2)
      assert.match(
        violation.problem,
        /^retry [12] after \w+ \(retry-after \d+ ms\): the policy waits (500 ms|1.00 s), sooner/
      )
      assert.include(violation.message, "honorsRetryAfter is broken, on the policy's own delays")
      assert.match(violation.message, /faults: {2}\w+:retry_after(_ms)?=/)
      assert.include(violation.message, "retry 1: after")
      assert.include(violation.message, "<- here")
    })
  )

  it.effect("capping after honorRetryAfter cuts a long retry-after short, and the law says so", () =>
    Effect.gen(function* () {
      const wrongOrder = RetryPolicy.backoff({ base: "500 millis" }).pipe(
        RetryPolicy.upTo(5),
        RetryPolicy.whileRetryable,
        RetryPolicy.honorRetryAfter,
        RetryPolicy.capped("10 seconds")
      )
      const violation = yield* violated(Laws.honorsRetryAfter, { policy: wrongOrder })
      assert.include(violation.problem, "the policy waits 10.00 s, sooner than the server asked")
    })
  )

  it.effect("a budget that grants one retry past its max breaks respectsSessionBudget", () =>
    Effect.gen(function* () {
      const offByOne = (max: number): RetryBudget.Budget => ({
        initial: { used: 0, tokens: max },
        acquire: (state) => (state.used <= max ? Option.some({ used: state.used + 1, tokens: 0 }) : Option.none()),
        recordSuccess: (state) => state,
        snapshot: (state) => ({ used: state.used, remaining: Math.max(0, max - state.used) })
      })
      const violation = yield* violated(Laws.respectsSessionBudget(3), {
        policy: RetryPolicy.fromSettings(defaults),
        budget: offByOne(3)
      })
      assert.strictEqual(violation.scope, "kernel")
      assert.include(violation.problem, "is budget charge 4, more than the 3 allowed")
      // Shrunk to (about) the shortest outage that shows it: four transient errors in a row.
      assert.isAtMost(violation.faults.length, 5)
      assert.include(violation.message, "timeline:")
      assert.match(violation.message, /\n {2}> \d+ +\d+ +\d+ +primary +\w+ +retry in .*; budget left 0\n/)
      assert.include(violation.message, 'replay:  agent simulate --faults "')
    })
  )

  it.effect("a budget that never decrements breaks respectsSessionBudget", () =>
    Effect.gen(function* () {
      const leaky: RetryBudget.Budget = {
        initial: { used: 0, tokens: 5 },
        acquire: Option.some,
        recordSuccess: (state) => state,
        snapshot: () => ({ used: 0, remaining: 5 })
      }
      const violation = yield* violated(Laws.respectsSessionBudget(5), {
        policy: RetryPolicy.fromSettings({ ...defaults, max_retries: 10 }),
        budget: leaky
      })
      assert.include(violation.problem, "is budget charge 6, more than the 5 allowed")
    })
  )

  it.effect("a budget that always grants breaks Laws.all where only the budget stops an outage", () =>
    Effect.gen(function* () {
      const alwaysGrants: RetryBudget.Budget = {
        initial: { used: 0, tokens: 0 },
        acquire: (state) => Option.some({ used: state.used + 1, tokens: 0 }),
        recordSuccess: (state) => state,
        snapshot: (state) => ({ used: state.used, remaining: 1 })
      }
      // A per-call cap above the session budget: the budget is all that stops an outage at 20 retries.
      const settings = { ...defaults, max_retries: 30 }
      // The search is what this pins: shrinking a run of 40 calls takes seconds, so it stops early.
      for (const seed of [1, 2, 3]) {
        const result = yield* Effect.result(
          Laws.checkAll(
            Laws.all(settings),
            { policy: RetryPolicy.fromSettings(settings), settings, budget: alwaysGrants },
            { seed, maxShrinks: 50 }
          )
        )
        assert.isTrue(Result.isFailure(result), `seed ${seed}: Laws.all held`)
        if (Result.isFailure(result)) {
          assert.strictEqual(result.failure.law, "respectsSessionBudget(20)")
          assert.include(result.failure.problem, "is budget charge 21, more than the 20 allowed")
        }
      }
    })
  )

  it.effect("a policy that retries auth errors breaks neverRetries, though the kernel never would", () =>
    Effect.gen(function* () {
      const retriesEverything = RetryPolicy.backoff({ base: "500 millis" }).pipe(
        RetryPolicy.capped("30 seconds"),
        RetryPolicy.upTo(5),
        RetryPolicy.honorRetryAfter
      )
      const violation = yield* violated(Laws.neverRetries(["auth_error"]), { policy: retriesEverything })
      assert.isAtMost(violation.faults.length, 2)
      assert.match(violation.problem, /^retry [12]: the policy would retry auth_error/)
      assert.match(violation.message, /faults: {2}(\w+,)?auth_error/)
    })
  )

  it.effect("a fallback chain with the default policy falls back on rate limits", () =>
    Effect.gen(function* () {
      const settings = { ...defaults, fallback_models: ["backup"] }
      const violation = yield* violated(Laws.neverFallsBackOn(["rate_limited"]), {
        policy: RetryPolicy.fromSettings(settings),
        settings
      })
      assert.match(violation.problem, /^call \d+: the kernel fell back from primary after rate_limited$/)
      assert.include(violation.message, "fallback; budget left")
    })
  )

  it.effect("a per-call cap tighter than max_retries is broken", () =>
    Effect.gen(function* () {
      const violation = yield* violated(Laws.respectsPerCallCap(2), { policy: RetryPolicy.fromSettings(defaults) })
      assert.isAtMost(violation.faults.length, 4)
      assert.match(violation.problem, /is retry 3 of one call \(turn \d+ on primary\), more than 2$/)
    })
  )

  it.effect("a policy that never gives up breaks terminates", () =>
    Effect.gen(function* () {
      const violation = yield* violated(Laws.terminates, {
        policy: RetryPolicy.whileRetryable(Schedule.exponential("10 millis"))
      })
      assert.include(violation.problem, "the policy still retries after 1000 consecutive transient errors")
    })
  )

  it.effect("a violation names the seed of its search, and that seed replays it", () =>
    Effect.gen(function* () {
      const policy = RetryPolicy.whileRetryable(Schedule.spaced("1 second").pipe(RetryPolicy.upTo(3)))
      const first = yield* Effect.flip(Laws.check(Laws.honorsRetryAfter, { policy }))
      const seed = /\(Laws\.check seed (-?\d+),/.exec(first.message)?.[1]
      assert.isDefined(seed, first.message)
      const again = yield* Effect.flip(Laws.check(Laws.honorsRetryAfter, { policy }, { seed: Number(seed) }))
      assert.strictEqual(again.message, first.message)
    })
  )

  it.effect("the same seed finds the same counterexample", () =>
    Effect.gen(function* () {
      const policy = RetryPolicy.whileRetryable(Schedule.spaced("1 second").pipe(RetryPolicy.upTo(3)))
      const first = yield* Effect.flip(Laws.check(Laws.honorsRetryAfter, { policy }, { seed: 42 }))
      const second = yield* Effect.flip(Laws.check(Laws.honorsRetryAfter, { policy }, { seed: 42 }))
      assert.strictEqual(first.message, second.message)
    })
  )
})
