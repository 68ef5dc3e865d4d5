import { CircuitBreaker, EventBus, type KernelEvent } from "@agent-kernel/kernel"
import { Arbitraries } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/testing/TestClock"

const withEvents = (strategy?: CircuitBreaker.Strategy) =>
  Effect.gen(function* () {
    const events: Array<KernelEvent.EventOf<"breaker_changed">> = []
    const bus = yield* EventBus.make([
      { onEvent: (event) => Effect.sync(() => event.type === "breaker_changed" && events.push(event)) }
    ])
    const breaker = yield* CircuitBreaker.make({ subject: "files", cooldown: "30 seconds", strategy }).pipe(
      Effect.provideService(EventBus.EventBus, bus)
    )
    const transitions = () => events.map((event) => `${event.from}->${event.to}`)
    return {
      breaker,
      events,
      transitions,
      withBus: <A, E>(e: Effect.Effect<A, E>) => Effect.provideService(e, EventBus.EventBus, bus)
    }
  })

class Crash {
  readonly _tag = "Crash"
  readonly message = "process exited with code 1"
}
class BadArguments {
  readonly _tag = "BadArguments"
}

const crash: Effect.Effect<void, Crash | BadArguments> = Effect.fail(new Crash())
const badArguments: Effect.Effect<void, Crash | BadArguments> = Effect.fail(new BadArguments())
// Only a crash counts: bad arguments are the caller's to fix.
const guard = (breaker: CircuitBreaker.CircuitBreaker) =>
  CircuitBreaker.protect(breaker, { isFailure: (error: Crash | BadArguments) => error._tag === "Crash" })

describe("CircuitBreaker", () => {
  it.effect("opens after 3 consecutive failures and rejects calls while open", () =>
    Effect.gen(function* () {
      const { breaker, transitions, withBus } = yield* withEvents()
      for (let i = 0; i < 2; i++) yield* withBus(breaker.recordFailure("crash"))
      assert.strictEqual((yield* withBus(breaker.acquire))._tag, "Allowed")
      yield* withBus(breaker.recordFailure("crash"))
      const permit = yield* withBus(breaker.acquire)
      assert.strictEqual(permit._tag, "Rejected")
      assert.strictEqual(permit._tag === "Rejected" && permit.retryInMillis, 30_000)
      assert.deepStrictEqual(transitions(), ["closed->open"])
    })
  )

  it.effect("a lifetime total (refund 0) still opens at 20 failures however many successes came between", () =>
    Effect.gen(function* () {
      const lifetime = CircuitBreaker.either(CircuitBreaker.consecutive(3), CircuitBreaker.total(20, { refund: 0 }))
      const { breaker, withBus } = yield* withEvents(lifetime)
      for (let i = 0; i < 19; i++) {
        yield* withBus(breaker.recordFailure("crash"))
        if (i % 2 === 1) yield* withBus(breaker.recordSuccess)
      }
      assert.strictEqual(yield* breaker.status, "closed")
      yield* withBus(breaker.recordFailure("crash"))
      assert.strictEqual(yield* breaker.status, "open")
      assert.deepStrictEqual(yield* breaker.counts, { consecutive: 2, total: 20 })
    })
  )

  it.effect("the total decays on success, so 20 lifetime failures among successes never open it", () =>
    Effect.gen(function* () {
      const { breaker, transitions, withBus } = yield* withEvents()
      // 200 calls, a failure every other one: 100 lifetime failures, never two in a row.
      for (let i = 0; i < 100; i++) {
        yield* withBus(breaker.recordFailure("crash"))
        yield* withBus(breaker.recordSuccess)
      }
      assert.strictEqual(yield* breaker.status, "closed")
      assert.deepStrictEqual(yield* breaker.counts, { consecutive: 0, total: 0 })
      // And a single failure after all that does not reopen it.
      yield* withBus(breaker.recordFailure("crash"))
      assert.strictEqual(yield* breaker.status, "closed")
      assert.deepStrictEqual(transitions(), [])
    })
  )

  it.effect("the total still trips a provider that fails more often than it succeeds, without 3 in a row", () =>
    Effect.gen(function* () {
      const { breaker, withBus } = yield* withEvents()
      let calls = 0
      // Fail, fail, succeed: +1 net every three calls; 20 net after 56 calls.
      while ((yield* breaker.status) === "closed") {
        calls++
        yield* withBus(calls % 3 === 0 ? breaker.recordSuccess : breaker.recordFailure("crash"))
      }
      assert.strictEqual(calls, 56)
      const permit = yield* breaker.acquire
      assert.isTrue(permit._tag === "Rejected" && permit.reason === "20 failures not offset by successes")
    })
  )

  it.effect("closing after a probe starts the tally afresh: the next failure does not reopen it", () =>
    Effect.gen(function* () {
      const { breaker, withBus } = yield* withEvents(CircuitBreaker.total(5, { refund: 0 }))
      for (let i = 0; i < 5; i++) yield* withBus(breaker.recordFailure("crash"))
      assert.strictEqual(yield* breaker.status, "open")
      yield* TestClock.adjust("30 seconds")
      assert.strictEqual((yield* withBus(breaker.acquire))._tag, "Probe")
      yield* withBus(breaker.recordSuccess)
      assert.deepStrictEqual(yield* breaker.counts, { total: 0 })
      yield* withBus(breaker.recordFailure("crash"))
      assert.strictEqual(yield* breaker.status, "closed")
    })
  )

  it.effect("half-open after the cooldown (TestClock): one probe only; its success closes the breaker", () =>
    Effect.gen(function* () {
      const { breaker, transitions, withBus } = yield* withEvents()
      for (let i = 0; i < 3; i++) yield* withBus(breaker.recordFailure("crash"))
      yield* TestClock.adjust("29999 millis")
      assert.strictEqual((yield* withBus(breaker.acquire))._tag, "Rejected")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* withBus(breaker.acquire))._tag, "Probe")
      assert.strictEqual((yield* withBus(breaker.acquire))._tag, "Rejected")
      yield* withBus(breaker.recordSuccess)
      assert.strictEqual((yield* withBus(breaker.acquire))._tag, "Allowed")
      assert.deepStrictEqual(transitions(), ["closed->open", "open->half_open", "half_open->closed"])
    })
  )

  it.effect("a failed probe reopens the breaker for another full cooldown", () =>
    Effect.gen(function* () {
      const { breaker, transitions, withBus } = yield* withEvents()
      for (let i = 0; i < 3; i++) yield* withBus(breaker.recordFailure("crash"))
      yield* TestClock.adjust("30 seconds")
      assert.strictEqual((yield* withBus(breaker.acquire))._tag, "Probe")
      yield* withBus(breaker.recordFailure("crash again"))
      const permit = yield* withBus(breaker.acquire)
      assert.isTrue(permit._tag === "Rejected" && permit.retryInMillis === 30_000)
      assert.deepStrictEqual(transitions(), ["closed->open", "open->half_open", "half_open->open"])
    })
  )

  it.effect("a straggler's success while open does not close the breaker", () =>
    Effect.gen(function* () {
      const { breaker, withBus } = yield* withEvents()
      for (let i = 0; i < 3; i++) yield* withBus(breaker.recordFailure("crash"))
      yield* withBus(breaker.recordSuccess)
      assert.strictEqual(yield* breaker.status, "open")
    })
  )

  // A crash and a wait are twice as likely as a success or an excused failure: runs open the breaker and wait it out.
  const operation = Arbitrary.map(
    Arbitraries.integer(0, 5),
    (i) => (["ok", "excused", "fail", "wait", "fail", "wait"] as const)[i]!
  )

  it.effect(
    "for any sequence of outcomes, calls are never allowed while open, the probe runs, and transitions are legal",
    () =>
      Effect.gen(function* () {
        const reach = yield* Arbitraries.checkReach(
          Arbitrary.array(operation, { maxLength: 200 }),
          (ops) =>
            Effect.gen(function* () {
              const { breaker, transitions, withBus } = yield* withEvents()
              const reached: Array<string> = []
              for (const op of ops) {
                const before = yield* withBus(breaker.status)
                if (op === "wait") {
                  yield* TestClock.adjust("10 seconds")
                  continue
                }
                reached.push(`a call while ${before}`)
                const outcome = yield* withBus(
                  Effect.exit(guard(breaker)(op === "fail" ? crash : op === "excused" ? badArguments : Effect.void))
                )
                const rejected =
                  Exit.isFailure(outcome) &&
                  Option.getOrUndefined(Cause.findErrorOption(outcome.cause)) instanceof CircuitBreaker.Rejected
                if (before === "open") assert.isTrue(rejected, "a call ran while the breaker was open")
                if (before === "half_open") assert.isFalse(rejected, "the half-open breaker refused its probe")
              }
              const legal = new Set(["closed->open", "open->half_open", "half_open->closed", "half_open->open"])
              for (const t of transitions()) assert.isTrue(legal.has(t), t)
              return reached
            }),
          // Runs long enough that most open the breaker and wait out its cooldown.
          { size: 200 }
        )
        assert.isAtLeast(reach.share("a call while open"), 0.3, reach.summary)
        assert.isAtLeast(reach.share("a call while half_open"), 0.3, reach.summary)
      })
  )
})

describe("CircuitBreaker.protect", () => {
  it.effect("records a success, a counted failure, and leaves an excused failure uncounted", () =>
    Effect.gen(function* () {
      const { breaker, withBus } = yield* withEvents()
      const protect = guard(breaker)
      assert.strictEqual(yield* protect(Effect.succeed(42)), 42)
      yield* Effect.flip(withBus(protect(crash)))
      assert.deepStrictEqual(yield* breaker.counts, { consecutive: 1, total: 1 })
      yield* Effect.flip(withBus(protect(badArguments)))
      assert.deepStrictEqual(yield* breaker.counts, { consecutive: 1, total: 1 })
      yield* Effect.flip(withBus(protect(crash)))
      assert.deepStrictEqual(yield* breaker.counts, { consecutive: 2, total: 2 })
      yield* protect(Effect.void)
      assert.deepStrictEqual(yield* breaker.counts, { consecutive: 0, total: 1 })
    })
  )

  it.effect("a defect counts as a failure, with its message as the reason", () =>
    Effect.gen(function* () {
      const { breaker, events, withBus } = yield* withEvents(CircuitBreaker.consecutive(1))
      yield* Effect.exit(withBus(CircuitBreaker.protect(breaker)(Effect.die(new Error("boom")))))
      assert.strictEqual(yield* breaker.status, "open")
      assert.strictEqual(events[0]?.reason, "1 consecutive failures (last: defect: boom)")
    })
  )

  it.effect("rejection is a typed BreakerRejected error, and nothing runs", () =>
    Effect.gen(function* () {
      const { breaker, withBus } = yield* withEvents()
      for (let i = 0; i < 3; i++) yield* Effect.flip(withBus(guard(breaker)(crash)))
      let ran = false
      const error = yield* Effect.flip(
        guard(breaker)(
          Effect.sync(() => {
            ran = true
          })
        )
      )
      assert.isFalse(ran)
      assert.instanceOf(error, CircuitBreaker.Rejected)
      assert.deepStrictEqual(error._tag === "BreakerRejected" && [error.subject, error.reason, error.retryInMillis], [
        "files",
        "3 consecutive failures",
        30_000
      ])
    })
  )

  it.effect("the probe's excused failure shows the provider alive and closes the breaker", () =>
    Effect.gen(function* () {
      const { breaker, withBus } = yield* withEvents()
      for (let i = 0; i < 3; i++) yield* Effect.flip(withBus(guard(breaker)(crash)))
      yield* TestClock.adjust("30 seconds")
      yield* Effect.flip(withBus(guard(breaker)(badArguments)))
      assert.strictEqual(yield* breaker.status, "closed")
    })
  )

  it.effect("an interrupted half-open probe is abandoned: not a failure, and the next call probes", () =>
    Effect.gen(function* () {
      const { breaker, transitions, withBus } = yield* withEvents()
      for (let i = 0; i < 3; i++) yield* Effect.flip(withBus(guard(breaker)(crash)))
      yield* TestClock.adjust("30 seconds")
      const started = yield* Deferred.make<void>()
      const probe = yield* Effect.forkChild(
        withBus(guard(breaker)(Effect.andThen(Deferred.succeed(started, undefined), Effect.never)))
      )
      yield* Deferred.await(started)
      // While the probe is out, every other call is refused.
      const refused = yield* Effect.flip(guard(breaker)(Effect.void))
      assert.strictEqual(refused._tag === "BreakerRejected" && refused.reason, "a recovery probe is in flight")
      yield* Fiber.interrupt(probe)
      assert.strictEqual(yield* breaker.status, "half_open")
      assert.deepStrictEqual(yield* breaker.counts, { consecutive: 3, total: 3 })
      // No second cooldown: the very next call is the probe, and its success closes the breaker.
      assert.strictEqual(yield* withBus(guard(breaker)(Effect.succeed("ok"))), "ok")
      assert.strictEqual(yield* breaker.status, "closed")
      assert.deepStrictEqual(transitions(), ["closed->open", "open->half_open", "half_open->closed"])
    })
  )

  it.effect("an interrupted ordinary call counts for nothing", () =>
    Effect.gen(function* () {
      const { breaker } = yield* withEvents()
      yield* Effect.flip(guard(breaker)(crash))
      const fiber = yield* Effect.forkChild(guard(breaker)(Effect.never))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(yield* breaker.counts, { consecutive: 1, total: 1 })
    })
  )

  it.effect("a straggler that fails after the breaker opened is not counted; only the probe decides", () =>
    Effect.gen(function* () {
      const { breaker, withBus } = yield* withEvents()
      const release = yield* Deferred.make<void>()
      const straggler = yield* Effect.forkChild(withBus(guard(breaker)(Effect.andThen(Deferred.await(release), crash))))
      yield* Effect.yieldNow
      for (let i = 0; i < 3; i++) yield* Effect.flip(withBus(guard(breaker)(crash)))
      yield* TestClock.adjust("30 seconds")
      assert.strictEqual(yield* breaker.status, "half_open")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.await(straggler)
      assert.strictEqual(yield* breaker.status, "half_open")
      assert.deepStrictEqual(yield* breaker.counts, { consecutive: 3, total: 3 })
    })
  )
})

describe("CircuitBreaker strategies", () => {
  /** The tally after each outcome. */
  const tallies = (strategy: CircuitBreaker.Strategy, outcomes: ReadonlyArray<boolean>) => {
    let tally = strategy
    return outcomes.map((ok) => (tally = ok ? tally.success() : tally.failure()))
  }
  // Runs of up to 200 outcomes, checked after each one: most reach every case the properties name.
  const outcomes = Arbitrary.array(Arbitrary.schema(Schema.Boolean), { maxLength: 200 })
  const options = { size: 200 }

  it.effect("total(n) trips exactly when failures minus refunded successes reach n, after every outcome", () =>
    Effect.gen(function* () {
      const reach = yield* Arbitraries.checkReach(
        Arbitrary.all([outcomes, Arbitraries.integer(1, 10)]),
        ([outcomes, threshold]) =>
          Effect.sync(() => {
            let expected = 0
            return tallies(CircuitBreaker.total(threshold), outcomes).flatMap((tally, i) => {
              expected = outcomes[i] ? Math.max(0, expected - 1) : expected + 1
              assert.strictEqual(tally.counts["total"], expected)
              assert.strictEqual(tally.tripped !== undefined, expected >= threshold)
              return tally.tripped !== undefined ? ["trips"] : []
            })
          }),
        options
      )
      assert.isAtLeast(reach.share("trips"), 0.3, reach.summary)
    })
  )

  it.effect("either trips exactly when one of its strategies would, after every outcome", () =>
    Effect.gen(function* () {
      const reach = yield* Arbitraries.checkReach(
        outcomes,
        (outcomes) =>
          Effect.sync(() => {
            const a = tallies(CircuitBreaker.consecutive(3), outcomes)
            const b = tallies(CircuitBreaker.total(5), outcomes)
            const both = tallies(
              CircuitBreaker.either(CircuitBreaker.consecutive(3), CircuitBreaker.total(5)),
              outcomes
            )
            return both.flatMap((tally, i) => {
              const [first, second] = [a[i]!.tripped, b[i]!.tripped]
              assert.strictEqual(tally.tripped, first ?? second)
              assert.deepStrictEqual(tally.counts, { ...a[i]!.counts, ...b[i]!.counts })
              if (first !== undefined && second === undefined) return ["consecutive trips alone"]
              if (first === undefined && second !== undefined) return ["total trips alone"]
              return []
            })
          }),
        options
      )
      assert.isAtLeast(reach.share("consecutive trips alone"), 0.3, reach.summary)
      assert.isAtLeast(reach.share("total trips alone"), 0.3, reach.summary)
    })
  )
})
