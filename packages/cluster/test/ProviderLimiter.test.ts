import { ModelError, ModelProvider } from "@agent-kernel/kernel"
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as AdaptiveRate from "../src/AdaptiveRate.js"
import * as ProviderLimiter from "../src/ProviderLimiter.js"
import * as StateStore from "../src/StateStore.js"

/** A provider that answers at once, records when each call reached it, and reports `usage` tokens. */
const recordingProvider = (usage: number) =>
  Effect.map(Ref.make<ReadonlyArray<number>>([]), (times) => ({
    times,
    provider: ModelProvider.fromGenerate("recording", () =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.as(
          Ref.update(times, (all) => [...all, now]),
          {
            model: "m",
            content: [{ type: "text" as const, text: "ok" }],
            stop_reason: "end_turn" as const,
            usage: { input_tokens: usage, output_tokens: 0 }
          }
        )
      )
    )
  }))

const request = (maxOutputTokens?: number, model = "m"): ModelProvider.ModelRequest => ({
  model,
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [],
  ...(maxOutputTokens !== undefined ? { max_output_tokens: maxOutputTokens } : {})
})

describe("ProviderLimiter", () => {
  it.effect("spaces the attempts of concurrent callers at the request rate, on the Clock", () =>
    Effect.gen(function* () {
      const { provider, times } = yield* recordingProvider(1)
      const limiter = yield* ProviderLimiter.make({
        key: "account",
        requests: { limit: 5, window: "1 second", burst: 1 }
      }).pipe(Effect.provide(StateStore.layerMemory))
      const limited = ProviderLimiter.limit(provider, limiter)
      const calls = yield* Effect.forkChild(
        Effect.forEach(Array.from({ length: 6 }), () => ModelProvider.generate(limited, request()), {
          concurrency: "unbounded"
        })
      )
      yield* TestClock.adjust("999 millis")
      // Five a second, one at a time: at 0, 200, 400, 600 and 800 ms; the sixth is due at 1,000.
      assert.deepStrictEqual(yield* Ref.get(times), [0, 200, 400, 600, 800])
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(calls)
      assert.deepStrictEqual(yield* Ref.get(times), [0, 200, 400, 600, 800, 1_000])
    })
  )

  it.effect("limiters with the same key over one store share one budget; another key has its own", () =>
    Effect.gen(function* () {
      const store = yield* StateStore.makeMemory
      const options = { key: "account", requests: { limit: 2, window: "1 second", burst: 2 } } as const
      const first = yield* ProviderLimiter.make(options).pipe(Effect.provideService(StateStore.StateStore, store))
      const second = yield* ProviderLimiter.make(options).pipe(Effect.provideService(StateStore.StateStore, store))
      const other = yield* ProviderLimiter.make({ ...options, key: "other" }).pipe(
        Effect.provideService(StateStore.StateStore, store)
      )
      yield* first.acquire(0)
      yield* second.acquire(0)
      yield* other.acquire(0)
      const third = yield* Effect.forkChild(second.acquire(0))
      yield* TestClock.adjust("499 millis")
      assert.isUndefined(third.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(third)
    })
  )

  it.effect("reserves the request's estimated tokens and gives back what the usage did not spend", () =>
    Effect.gen(function* () {
      // The call reports 10 tokens; the request reserves its estimate plus its 1,000-token output ceiling.
      const { provider, times } = yield* recordingProvider(10)
      const limiter = yield* ProviderLimiter.make({
        key: "account",
        tokens: { limit: 1_100, window: "1 minute" }
      }).pipe(Effect.provide(StateStore.layerMemory))
      const limited = ProviderLimiter.limit(provider, limiter)
      assert.isAbove(ProviderLimiter.estimate(request(1_000)), 1_000)
      yield* ModelProvider.generate(limited, request(1_000))
      // Without the settlement the bucket would hold under 100 tokens and the next call would wait about 50 s.
      yield* ModelProvider.generate(limited, request(1_000))
      assert.deepStrictEqual(yield* Ref.get(times), [0, 0])
    })
  )

  it.effect("a failed attempt without usage gives its tokens back", () =>
    Effect.gen(function* () {
      const limiter = yield* ProviderLimiter.make({
        key: "account",
        tokens: { limit: 1_100, window: "1 minute" }
      }).pipe(Effect.provide(StateStore.layerMemory))
      const failing = ModelProvider.fromGenerate("failing", () =>
        Effect.fail(ModelError.make("overloaded", { provider: "failing", model: "m", message: "busy" }))
      )
      const limited = ProviderLimiter.limit(failing, limiter)
      yield* Effect.flip(ModelProvider.generate(limited, request(1_000)))
      const next = yield* Effect.forkChild(Effect.flip(ModelProvider.generate(limited, request(1_000))))
      yield* TestClock.adjust("1 millis")
      assert.isDefined(next.pollUnsafe())
    })
  )

  it.effect("the provider layer wraps the ModelProvider in context", () =>
    Effect.gen(function* () {
      const { provider, times } = yield* recordingProvider(1)
      const limited = yield* ModelProvider.ModelProvider.pipe(
        Effect.provide(
          ProviderLimiter.provider.pipe(
            Layer.provide(Layer.succeed(ModelProvider.ModelProvider, provider)),
            Layer.provide(ProviderLimiter.layerMemory({ key: "a", requests: { limit: 1, window: "1 minute" } }))
          )
        )
      )
      yield* ModelProvider.generate(limited, request())
      const second = yield* Effect.forkChild(ModelProvider.generate(limited, request()))
      yield* TestClock.adjust("59 seconds")
      assert.deepStrictEqual(yield* Ref.get(times), [0])
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(second)
      assert.deepStrictEqual(yield* Ref.get(times), [0, 60_000])
    })
  )

  it.effect("a store that cannot be reached lets the call through at once, static and adaptive", () =>
    Effect.gen(function* () {
      const { provider, times } = yield* recordingProvider(1)
      const broken: StateStore.Service = {
        modify: (options) => Effect.fail(new StateStore.StateStoreError({ key: options.key, message: "down" }))
      }
      const limiter = yield* ProviderLimiter.make({
        key: "account",
        requests: { limit: 1, window: "1 minute" },
        tokens: { limit: 1, window: "1 minute" },
        adaptive: true
      }).pipe(Effect.provideService(StateStore.StateStore, broken))
      const limited = ProviderLimiter.limit(provider, limiter)
      yield* ModelProvider.generate(limited, request(1_000))
      yield* ModelProvider.generate(limited, request(1_000))
      assert.deepStrictEqual(yield* Ref.get(times), [0, 0])
    })
  )
})

/** The adaptive state of `model` in `store`, as the limiter keyed `account` keeps it. */
const adaptiveState = (store: StateStore.Service, policy: AdaptiveRate.Policy, model = "m") =>
  store.modify({
    key: `limiter/account/adaptive/${model}`,
    schema: AdaptiveRate.State,
    initial: AdaptiveRate.initial(policy),
    f: (state) => [state, state] as const
  })

/** A provider that answers `first` failures of `category` (retry-after `retryAfterMs`), then succeeds; records when calls reached it. */
const throttlingProvider = (options: {
  readonly first: number
  readonly category: "rate_limited" | "overloaded"
  readonly retryAfterMs: number
  readonly streamOnly?: boolean
}) =>
  Effect.gen(function* () {
    const times = yield* Ref.make<ReadonlyArray<number>>([])
    const calls = yield* Ref.make(0)
    const error = ModelError.make(options.category, {
      provider: "throttling",
      model: "m",
      message: "slow down",
      retryAfter: Duration.millis(options.retryAfterMs)
    })
    const answer = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      yield* Ref.update(times, (all) => [...all, now])
      const call = yield* Ref.getAndUpdate(calls, (n) => n + 1)
      if (call < options.first) return yield* Effect.fail(error)
      return {
        model: "m",
        content: [{ type: "text" as const, text: "ok" }],
        stop_reason: "end_turn" as const,
        usage: { input_tokens: 1, output_tokens: 0 }
      }
    })
    const generated = ModelProvider.fromGenerate("throttling", () => answer)
    const provider = options.streamOnly
      ? ModelProvider.make("throttling", (request) =>
          Stream.unwrap(
            Effect.map(answer, (response) =>
              ModelProvider.fromGenerate("throttling", () => Effect.succeed(response)).stream(request)
            )
          )
        )
      : generated
    return { provider, times }
  })

describe("ProviderLimiter, adaptive", () => {
  /** A rate held at 2 a second until a throttle, so that the spacing is known. */
  const steady = AdaptiveRate.make({ initialRate: 2, maxRate: 2 })

  it.effect("paces each model on its own key, at the learnt rate", () =>
    Effect.gen(function* () {
      const { provider, times } = yield* recordingProvider(1)
      const limiter = yield* ProviderLimiter.make({ key: "account", adaptive: steady }).pipe(
        Effect.provide(StateStore.layerMemory)
      )
      const limited = ProviderLimiter.limit(provider, limiter)
      const calls = yield* Effect.forkChild(
        Effect.forEach(
          ["a", "a", "a", "b", "b", "b"],
          (model) =>
            Effect.flatMap(ModelProvider.generate(limited, request(undefined, model)), () =>
              Effect.clockWith((clock) => clock.currentTimeMillis)
            ),
          { concurrency: "unbounded" }
        )
      )
      yield* TestClock.adjust("5 seconds")
      const done = yield* Fiber.join(calls)
      const [a, b] = [done.slice(0, 3), done.slice(3)].map((model) => [...model].sort((x, y) => x - y))
      // Both models start at once: neither waits for the other's budget.
      assert.deepStrictEqual([a![0], b![0]], [0, 0])
      for (const model of [a!, b!])
        for (let i = 1; i < model.length; i++) assert.isAtLeast(model[i]! - model[i - 1]!, 500 - 1e-6)
      assert.strictEqual((yield* Ref.get(times)).length, 6)
    })
  )

  it.effect("a 429 holds the model's next send until its retry-after has passed, and cuts the rate", () =>
    Effect.gen(function* () {
      const { provider, times } = yield* throttlingProvider({ first: 1, category: "rate_limited", retryAfterMs: 3_000 })
      const store = yield* StateStore.makeMemory
      const limiter = yield* ProviderLimiter.make({ key: "account", adaptive: steady }).pipe(
        Effect.provideService(StateStore.StateStore, store)
      )
      const limited = ProviderLimiter.limit(provider, limiter)
      yield* Effect.flip(ModelProvider.generate(limited, request()))
      const state = yield* adaptiveState(store, steady)
      assert.closeTo(state.rate, 2 * steady.beta, 1e-9)
      assert.strictEqual(state.generation, 1)
      const next = yield* Effect.forkChild(ModelProvider.generate(limited, request()))
      yield* TestClock.adjust("2999 millis")
      assert.deepStrictEqual(yield* Ref.get(times), [0])
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(next)
      assert.deepStrictEqual(yield* Ref.get(times), [0, 3_000])
    })
  )

  it.effect("a stream that fails 529 teaches the same as a response: the next send waits for its retry-after", () =>
    Effect.gen(function* () {
      const { provider, times } = yield* throttlingProvider({
        first: 1,
        category: "overloaded",
        retryAfterMs: 1_000,
        streamOnly: true
      })
      const store = yield* StateStore.makeMemory
      const limiter = yield* ProviderLimiter.make({ key: "account", adaptive: steady }).pipe(
        Effect.provideService(StateStore.StateStore, store)
      )
      const limited = ProviderLimiter.limit(provider, limiter)
      assert.isUndefined(limited.generate)
      yield* Effect.flip(ModelProvider.generate(limited, request()))
      const next = yield* Effect.forkChild(ModelProvider.generate(limited, request()))
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(next)
      assert.deepStrictEqual(yield* Ref.get(times), [0, 1_000])
      assert.strictEqual((yield* adaptiveState(store, steady)).generation, 1)
    })
  )

  it.effect("callers waiting on one model ask the store one at a time, in the order they came, not each of them", () =>
    Effect.gen(function* () {
      const { provider } = yield* recordingProvider(1)
      const memory = yield* StateStore.makeMemory
      const asked = yield* Ref.make(0)
      const counting: StateStore.Service = {
        modify: (options) =>
          Effect.andThen(
            Ref.update(asked, (n) => n + 1),
            memory.modify(options)
          )
      }
      const limiter = yield* ProviderLimiter.make({ key: "account", adaptive: steady }).pipe(
        Effect.provideService(StateStore.StateStore, counting)
      )
      const limited = ProviderLimiter.limit(provider, limiter)
      const callers = 20
      const calls = yield* Effect.forkChild(
        Effect.forEach(
          Array.from({ length: callers }),
          () =>
            Effect.flatMap(ModelProvider.generate(limited, request()), () =>
              Effect.clockWith((clock) => clock.currentTimeMillis)
            ),
          { concurrency: "unbounded" }
        )
      )
      yield* TestClock.adjust("20 seconds")
      const done = yield* Fiber.join(calls)
      // First come, first served, at the learnt rate of 2 a second.
      for (let i = 1; i < callers; i++) assert.isAtLeast(done[i]! - done[i - 1]!, 500 - 1e-6)
      // A grant, a success and a come-back or two per call: the 19 waiting callers do not each poll the store.
      assert.isAtMost(yield* Ref.get(asked), 4 * callers)
    })
  )

  it.effect("successes grow the rate from the initial rate (a slow start)", () =>
    Effect.gen(function* () {
      const { provider } = yield* recordingProvider(1)
      const store = yield* StateStore.makeMemory
      const limiter = yield* ProviderLimiter.make({ key: "account", adaptive: true }).pipe(
        Effect.provideService(StateStore.StateStore, store)
      )
      const limited = ProviderLimiter.limit(provider, limiter)
      const calls = yield* Effect.forkChild(
        Effect.forEach(Array.from({ length: 40 }), () => ModelProvider.generate(limited, request()), {
          concurrency: "unbounded"
        })
      )
      yield* TestClock.adjust("2 seconds")
      const state = yield* adaptiveState(store, AdaptiveRate.defaults)
      assert.isAbove(state.rate, AdaptiveRate.defaults.initialRate * 2)
      yield* TestClock.adjust("30 seconds")
      yield* Fiber.join(calls)
    })
  )
})
