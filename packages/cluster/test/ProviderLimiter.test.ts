import { ModelError, ModelProvider } from "@agent-kernel/kernel"
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as TestClock from "effect/testing/TestClock"
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

const request = (maxOutputTokens?: number): ModelProvider.ModelRequest => ({
  model: "m",
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
})
