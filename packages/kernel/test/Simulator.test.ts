import {
  Content,
  EventBus,
  type KernelEvent,
  Metrics,
  RetryBudget,
  RetryPolicy,
  Session,
  Settings,
  Toolbox
} from "@agent-kernel/kernel"
import { Arbitraries, ScriptedModel, Simulator, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"

const noJitter: Settings.Settings = { ...Settings.defaults, jitter: "none" }
const defaultPolicy = RetryPolicy.fromSettings(Settings.defaults)

const settingsArb = Arbitrary.map(
  Arbitrary.all([Arbitraries.settings(), Arbitraries.integer(0, 2)]),
  ([settings, n]) =>
    ({ ...settings, fallback_models: ["backup-1", "backup-2"].slice(0, n) }) satisfies Settings.Settings
)
const seedArb = Arbitraries.integer(0, 1_000_000)

/**
 * A kernel run written out by hand, independent of the simulator's plumbing:
 * the same plan as a script, a session under the TestClock of `it.effect`,
 * jitter from `Random.withSeed(seed)`. Returns every event.
 */
const realRun = (faults: ReadonlyArray<Arbitraries.Fault>, settings: Settings.Settings, seed: number) =>
  Effect.gen(function* () {
    const trailingOk = faults.at(-1) === "ok"
    const body = trailingOk ? faults.slice(0, -1) : faults
    const script: Array<ScriptedModel.Step> = [
      ...body.map((fault, i) => (fault === "ok" ? ScriptedModel.toolCalls({ id: `t${i}`, name: "tool" }) : fault)),
      ScriptedModel.text("done")
    ]
    const model = yield* ScriptedModel.make(script)
    const events: Array<KernelEvent.KernelEvent> = []
    const bus = yield* EventBus.make([{ onEvent: (event) => Effect.sync(() => events.push(event)) }])
    const toolbox: Toolbox.Service = {
      definitions: Effect.succeed([]),
      invoke: (call) => Effect.succeed(Content.toolResult(call.id, "fine"))
    }
    const session = yield* Session.make({ model: "primary", settings }).pipe(
      Effect.provide(model.layer),
      Effect.provideService(EventBus.EventBus, bus),
      Effect.provideService(Toolbox.Toolbox, toolbox)
    )
    yield* TestClockDriver.run(session.run("hi")).pipe(Random.withSeed(seed))
    return events
  })

describe("Simulator.parseFaults", () => {
  it.effect("reads statuses, categories, ok, retry_after in seconds or milliseconds, and retryable=false", () =>
    Effect.gen(function* () {
      const faults = yield* Simulator.parseFaults(
        "429:retry_after=2, 529,503 ,401,overloaded:retry_after_ms=1500,timeout:retryable=false,ok"
      )
      assert.deepStrictEqual(
        faults.map((fault) => (fault === "ok" ? "ok" : fault.category)),
        ["rate_limited", "overloaded", "server_error", "auth_error", "overloaded", "timeout", "ok"]
      )
      const [first, , , , fifth, sixth] = faults
      assert.strictEqual(first !== "ok" && first?.retryAfter && Duration.toMillis(first.retryAfter), 2_000)
      assert.strictEqual(first !== "ok" && first?.status, 429)
      assert.strictEqual(fifth !== "ok" && fifth?.retryAfter && Duration.toMillis(fifth.retryAfter), 1_500)
      assert.strictEqual(sixth !== "ok" && sixth?.retryable, false)
    })
  )

  it.effect("lists every bad item, with its position, in one error", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Simulator.parseFaults("429,418,nope,,529:retry_after=soon"))
      assert.strictEqual(error._tag, "FaultPlanError")
      assert.include(error.message, 'fault 2 ("418"): no category for HTTP status 418')
      assert.include(error.message, 'fault 3 ("nope"): expected an HTTP status, a category')
      assert.include(error.message, "fault 4 is empty")
      assert.include(error.message, 'fault 5 ("529:retry_after=soon"): unknown option "retry_after=soon"')
    })
  )

  it.effect.prop(
    "formatFaults writes what parseFaults reads back",
    [Arbitraries.faultPlan()],
    ([faults]) =>
      Effect.gen(function* () {
        const back = yield* Simulator.parseFaults(Simulator.formatFaults(faults))
        const shape = (plan: ReadonlyArray<Arbitraries.Fault>) =>
          plan.map((f) => (f === "ok" ? "ok" : [f.category, f.retryAfter && Duration.toMillis(f.retryAfter)]))
        assert.deepStrictEqual(shape(back), shape(faults))
      }),
    { arbitrary: { runs: 100 } }
  )
})

describe("Simulator.simulate", () => {
  it.effect("without jitter, the timeline of 429(retry-after 2 s), 529, 529, ok is exact", () =>
    Effect.gen(function* () {
      const faults = yield* Simulator.parseFaults("429:retry_after=2,529,529,ok")
      // A fixed budget, so the final success refunds nothing.
      const settings = { ...noJitter, session_retries_refill: false }
      const { timeline, outcome } = yield* Simulator.simulate(RetryPolicy.fromSettings(settings), faults, {
        seed: 1,
        settings
      })
      assert.deepStrictEqual(
        timeline.map((step) => [step.call, step.at_ms, step.result, step.action, step.delay_ms, step.source]),
        [
          [1, 0, "rate_limited", "retry", 2_000, "retry_after"],
          [2, 2_000, "overloaded", "retry", 1_000, "backoff"],
          [3, 3_000, "overloaded", "retry", 2_000, "backoff"],
          [4, 5_000, "ok", "end", 0, null]
        ]
      )
      assert.deepStrictEqual(
        timeline.map((step) => step.budget_left),
        [19, 18, 17, 17]
      )
      expect(outcome).toEqual({
        status: "completed",
        attempts: 4,
        retries: 3,
        fallbacks: 0,
        max_retries_per_call: 3,
        total_wait_ms: 5_000,
        wall_ms: 5_000,
        budget_used: 3,
        budget_left: 17,
        error: null
      })
    })
  )

  it("runs outside a test runtime, synchronously, in no real time", () => {
    const faults = Array.from({ length: 5 }, () => ScriptedModel.rateLimited({ retryAfterMs: 3_600_000 }))
    const settings = { ...noJitter, max_retry_wait_ms: 7_200_000 }
    const started = Date.now()
    const { outcome } = Effect.runSync(
      Simulator.simulate(RetryPolicy.fromSettings(settings), faults, { seed: 3, settings })
    )
    assert.strictEqual(outcome.total_wait_ms, 5 * 3_600_000)
    assert.isBelow(Date.now() - started, 60_000) // five simulated hours
  })

  // Each model of the chain gets its own retries; the session budget is the shared ceiling.
  it.effect("a fallback model gets retries of its own, and every retry and fallback step is charged", () =>
    Effect.gen(function* () {
      const settings = { ...noJitter, max_retries: 1, fallback_models: ["backup"] }
      const faults = Array.from({ length: 6 }, () => ScriptedModel.error("overloaded"))
      const roomy = yield* Simulator.simulate(RetryPolicy.fromSettings(settings), faults, {
        seed: 1,
        settings,
        budget: RetryBudget.fixed(3)
      })
      assert.deepStrictEqual(
        roomy.timeline.map((step) => [step.model, step.attempt, step.action, step.retry, step.budget_left]),
        [
          ["primary", 1, "retry", 1, 2],
          ["primary", 2, "fallback", null, 1],
          ["backup", 3, "retry", 1, 0],
          ["backup", 4, "end", null, 0]
        ]
      )
      assert.strictEqual(roomy.outcome.status, "retries_exhausted")
      const tight = yield* Simulator.simulate(RetryPolicy.fromSettings(settings), faults, {
        seed: 1,
        settings,
        budget: RetryBudget.fixed(2)
      })
      assert.deepStrictEqual(
        tight.timeline.map((step) => [step.model, step.attempt, step.action, step.budget_left]),
        [
          ["primary", 1, "retry", 1],
          ["primary", 2, "fallback", 0],
          ["backup", 3, "end", 0]
        ]
      )
      assert.strictEqual(tight.outcome.status, "retry_budget_exhausted")
    })
  )

  it.effect("a context reduction re-sends without spending a retry: retry counts what the per-call cap limits", () =>
    Effect.gen(function* () {
      const faults = yield* Simulator.parseFaults("ok,ok,context_length_exceeded,529,529,ok")
      const { timeline } = yield* Simulator.simulate(RetryPolicy.fromSettings(noJitter), faults, {
        seed: 1,
        settings: noJitter
      })
      assert.deepStrictEqual(
        timeline.map((step) => [step.turn, step.attempt, step.result, step.action, step.retry]),
        [
          [1, 1, "ok", "continue", null],
          [2, 1, "ok", "continue", null],
          [3, 1, "context_length_exceeded", "reduce_context", null],
          [3, 2, "overloaded", "retry", 1],
          [3, 3, "overloaded", "retry", 2],
          [3, 4, "ok", "end", null]
        ]
      )
    })
  )

  it.effect("a token bucket's refund on success shows in budget_left", () =>
    Effect.gen(function* () {
      const faults = yield* Simulator.parseFaults("529,ok,529,529,ok")
      const { timeline, outcome } = yield* Simulator.simulate(RetryPolicy.fromSettings(noJitter), faults, {
        seed: 1,
        settings: noJitter,
        budget: RetryBudget.tokenBucket({ capacity: 10, retryCost: 5, successRefund: 5 })
      })
      assert.deepStrictEqual(
        timeline.map((step) => [step.turn, step.result, step.action, step.budget_left]),
        [
          [1, "overloaded", "retry", 1],
          [1, "ok", "continue", 2],
          [2, "overloaded", "retry", 1],
          [2, "overloaded", "retry", 0],
          [2, "ok", "end", 1]
        ]
      )
      assert.strictEqual(outcome.status, "completed")
    })
  )

  it.effect("leaves the kernel's global metrics alone: a simulated run is not a real one", () =>
    Effect.gen(function* () {
      const retries = Metrics.retriesOfCategory("timeout")
      const [retriesBefore, turnsBefore] = [
        (yield* Metric.value(retries)).count,
        (yield* Metric.value(Metrics.turns)).count
      ]
      const simulation = yield* Simulator.simulate(
        defaultPolicy,
        [ScriptedModel.error("timeout"), ScriptedModel.error("timeout")],
        { seed: 1 }
      )
      assert.strictEqual(simulation.outcome.retries, 2)
      assert.strictEqual((yield* Metric.value(retries)).count, retriesBefore)
      assert.strictEqual((yield* Metric.value(Metrics.turns)).count, turnsBefore)
    })
  )

  it.effect.prop(
    "is deterministic for a seed",
    [Arbitraries.faultPlan(), settingsArb, seedArb],
    ([faults, settings, seed]) =>
      Effect.gen(function* () {
        const policy = RetryPolicy.fromSettings(settings)
        const a = yield* Simulator.simulate(policy, faults, { seed, settings })
        const b = yield* Simulator.simulate(policy, faults, { seed, settings })
        expect(a.timeline).toEqual(b.timeline)
        expect(a.outcome).toEqual(b.outcome)
      }),
    { arbitrary: { runs: 50 } }
  )

  it.effect("different seeds give different jitter", () =>
    Effect.gen(function* () {
      const faults = Array.from({ length: 4 }, () => ScriptedModel.error("overloaded"))
      const waits = new Set<number>()
      for (let seed = 0; seed < 10; seed++)
        waits.add((yield* Simulator.simulate(defaultPolicy, faults, { seed })).outcome.total_wait_ms)
      assert.isAtLeast(waits.size, 9)
    })
  )

  it.effect.prop(
    "the timeline matches a real kernel run under the TestClock with the same seed",
    [Arbitraries.faultPlan({ maxRetryAfterMs: 90_000 }), settingsArb, seedArb],
    ([faults, settings, seed]) =>
      Effect.gen(function* () {
        const simulated = yield* Simulator.simulate(RetryPolicy.fromSettings(settings), faults, { seed, settings })
        const events = yield* realRun(faults, settings, seed)
        const requests = events.flatMap((e) => (e.type === "model_request" ? [e] : []))
        const started = events[0]?.at ?? 0
        assert.deepStrictEqual(
          simulated.timeline.map((step) => [step.at_ms, step.model, step.turn, step.attempt]),
          requests.map((e) => [e.at - started, e.model, e.turn, e.attempt])
        )
        assert.deepStrictEqual(
          simulated.timeline.filter((step) => step.action === "retry").map((step) => [step.delay_ms, step.source]),
          events.flatMap((e) => (e.type === "retry_scheduled" ? [[e.delay_ms, e.source]] : []))
        )
        assert.deepStrictEqual(
          simulated.timeline.filter((step) => step.action === "fallback").map((step) => step.result),
          events.flatMap((e) => (e.type === "fallback" ? [e.category] : []))
        )
        const ended = events.find((e): e is KernelEvent.EventOf<"run_ended"> => e.type === "run_ended")
        assert.strictEqual(simulated.outcome.status, ended?.status)
        assert.strictEqual(simulated.outcome.wall_ms, ended?.wall_ms)
      }),
    { arbitrary: { runs: 60 } }
  )

  it.effect.prop(
    "the virtual clock and Effect's TestClock give the same simulation",
    [Arbitraries.faultPlan({ maxLength: 8 }), settingsArb, seedArb],
    ([faults, settings, seed]) =>
      Effect.gen(function* () {
        const policy = RetryPolicy.fromSettings(settings)
        const virtual = yield* Simulator.simulate(policy, faults, { seed, settings })
        const test = yield* Simulator.simulate(policy, faults, { seed, settings, clock: "test" })
        expect(virtual.timeline).toEqual(test.timeline)
        expect(virtual.outcome).toEqual(test.outcome)
      }),
    { arbitrary: { runs: 15 } }
  )

  it.effect.prop(
    "within one call and no caps in the way, the retry delays are the policy's own delays for the same seed",
    [Arbitrary.array(Arbitraries.transientError({ maxRetryAfterMs: 20_000 }), { maxLength: 8 }), settingsArb, seedArb],
    ([errors, base, seed]) =>
      Effect.gen(function* () {
        const settings = { ...base, max_retry_wait_ms: 1e9, max_session_retries: 100, fallback_models: [] }
        const policy = RetryPolicy.fromSettings(settings)
        const { timeline } = yield* Simulator.simulate(policy, errors, { seed, settings })
        const expected = yield* RetryPolicy.delays(policy, errors).pipe(Random.withSeed(seed))
        assert.deepStrictEqual(
          timeline.filter((step) => step.action === "retry").map((step) => step.delay_ms),
          expected.map(Duration.toMillis)
        )
      }),
    { arbitrary: { runs: 100 } }
  )
})

describe("Simulator.report", () => {
  it.effect(
    "is the first seed's timeline and outcome with the distribution over every seed, and survives its Schema",
    () =>
      Effect.gen(function* () {
        const faults = yield* Simulator.parseFaults("529,529,529,ok")
        const settings: Settings.Settings = { ...Settings.defaults, jitter: "full" }
        const policy = RetryPolicy.fromSettings(settings)
        const report = yield* Simulator.report(policy, faults, { seed: 11, runs: 40, settings })
        const runs = yield* Effect.forEach(
          Array.from({ length: 40 }, (_, i) => 11 + i),
          (seed) => Simulator.simulate(policy, faults, { seed, settings })
        )
        assert.deepStrictEqual(report.timeline, runs[0]!.timeline)
        assert.deepStrictEqual(report.outcome, runs[0]!.outcome)
        const waits = runs.map((run) => run.outcome.total_wait_ms).sort((a, b) => a - b)
        assert.deepStrictEqual(report.distribution.total_wait_ms, {
          p50: Simulator.percentile(waits, 50),
          p90: Simulator.percentile(waits, 90),
          p99: Simulator.percentile(waits, 99),
          max: waits.at(-1)!
        })
        // Full jitter spreads the waits: the figure is not one value repeated.
        assert.isBelow(report.distribution.total_wait_ms.p50, report.distribution.total_wait_ms.max)
        assert.deepStrictEqual(report.distribution.outcomes, { completed: 40 })
        assert.strictEqual(report.faults, "overloaded,overloaded,overloaded,ok")
        const decoded = Schema.decodeUnknownSync(Simulator.Report)(JSON.parse(Simulator.toJson(report)))
        assert.deepStrictEqual(decoded, report)
      })
  )
})
