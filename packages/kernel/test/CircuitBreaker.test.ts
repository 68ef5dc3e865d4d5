import { CircuitBreaker, EventBus, type KernelEvent } from "@agent-kernel/kernel"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as TestClock from "effect/TestClock"

const withEvents = Effect.gen(function* () {
  const events: Array<KernelEvent.EventOf<"breaker_changed">> = []
  const bus = yield* EventBus.make([
    { onEvent: (event) => Effect.sync(() => event.type === "breaker_changed" && events.push(event)) }
  ])
  const breaker = yield* CircuitBreaker.make({ subject: "files", cooldown: "30 seconds" }).pipe(
    Effect.provideService(EventBus.EventBus, bus)
  )
  const transitions = () => events.map((event) => `${event.from}->${event.to}`)
  return { breaker, transitions, withBus: <A>(e: Effect.Effect<A>) => Effect.provideService(e, EventBus.EventBus, bus) }
})

describe("CircuitBreaker", () => {
  it.effect("opens after 3 consecutive failures and rejects calls while open", () =>
    Effect.gen(function* () {
      const { breaker, transitions, withBus } = yield* withEvents
      for (let i = 0; i < 2; i++) yield* withBus(breaker.recordFailure("crash"))
      assert.strictEqual((yield* withBus(breaker.acquire))._tag, "Allowed")
      yield* withBus(breaker.recordFailure("crash"))
      const permit = yield* withBus(breaker.acquire)
      assert.strictEqual(permit._tag, "Rejected")
      assert.strictEqual(permit._tag === "Rejected" && permit.retryInMillis, 30_000)
      assert.deepStrictEqual(transitions(), ["closed->open"])
    })
  )

  it.effect("a success resets the consecutive count but not the session total, which opens it at 20", () =>
    Effect.gen(function* () {
      const { breaker, withBus } = yield* withEvents
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

  it.effect("half-open after the cooldown (TestClock): one probe only; its success closes the breaker", () =>
    Effect.gen(function* () {
      const { breaker, transitions, withBus } = yield* withEvents
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
      const { breaker, transitions, withBus } = yield* withEvents
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
      const { breaker, withBus } = yield* withEvents
      for (let i = 0; i < 3; i++) yield* withBus(breaker.recordFailure("crash"))
      yield* withBus(breaker.recordSuccess)
      assert.strictEqual(yield* breaker.status, "open")
    })
  )

  it.effect.prop(
    "for any sequence of outcomes, calls are never allowed while open and transitions are legal",
    [FastCheck.array(FastCheck.constantFrom("fail", "ok", "wait"), { maxLength: 60 })],
    ([ops]) =>
      Effect.gen(function* () {
        const { breaker, transitions, withBus } = yield* withEvents
        for (const op of ops) {
          const before = yield* withBus(breaker.status)
          const permit = yield* withBus(breaker.acquire)
          if (before === "open") assert.strictEqual(permit._tag, "Rejected")
          if (op === "wait") yield* TestClock.adjust("10 seconds")
          else if (permit._tag !== "Rejected")
            yield* withBus(op === "fail" ? breaker.recordFailure("x") : breaker.recordSuccess)
        }
        const legal = new Set(["closed->open", "open->half_open", "half_open->closed", "half_open->open"])
        for (const t of transitions()) assert.isTrue(legal.has(t), t)
      })
  )
})
