import { ModelError, ModelProvider } from "@agent-kernel/kernel"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AdaptiveRate from "../src/AdaptiveRate.js"
import * as ProviderLimiter from "../src/ProviderLimiter.js"
import * as StateStore from "../src/StateStore.js"
import { pgLayer } from "./postgres.js"

/** A store over its own connection pool: two of them stand for two processes. */
const store = (table: string) =>
  Effect.flatMap(Layer.build(StateStore.layerPostgres({ table }).pipe(Layer.provide(pgLayer()))), (context) =>
    StateStore.StateStore.pipe(Effect.provide(context))
  )

const request: ModelProvider.ModelRequest = {
  model: "m",
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: []
}

const throttled = ModelProvider.fromGenerate("shared", () =>
  Effect.fail(
    ModelError.make("rate_limited", {
      provider: "shared",
      model: "m",
      message: "slow down",
      retryAfter: Duration.millis(1_500)
    })
  )
)

/** A provider that answers at once and records when (epoch milliseconds) each call reached it. */
const recording = (times: Array<number>) =>
  ModelProvider.fromGenerate("shared", () =>
    Effect.sync(() => {
      times.push(Date.now())
      return {
        model: "m",
        content: [{ type: "text" as const, text: "ok" }],
        stop_reason: "end_turn" as const,
        usage: { input_tokens: 1, output_tokens: 0 }
      }
    })
  )

describe("the adaptive limiter over Postgres", () => {
  it.live("two limiters on two pools share one adaptive state: a 429 one of them sees holds and slows the other", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const table = `adaptive_${Date.now()}`
        const policy = AdaptiveRate.make({ initialRate: 2, maxRate: 2 })
        const options = { key: "account", adaptive: policy } as const
        const one = yield* ProviderLimiter.make(options).pipe(
          Effect.provideService(StateStore.StateStore, yield* store(table))
        )
        const otherStore = yield* store(table)
        const other = yield* ProviderLimiter.make(options).pipe(
          Effect.provideService(StateStore.StateStore, otherStore)
        )
        const read = otherStore.modify({
          key: "limiter/account/adaptive/m",
          schema: AdaptiveRate.State,
          initial: AdaptiveRate.initial(policy),
          f: (state) => [state, state] as const
        })
        // Before the throttle: the hold runs from the database's clock at the throttle, which is no earlier.
        const beforeThrottle = Date.now()
        yield* Effect.flip(ModelProvider.generate(ProviderLimiter.limit(throttled, one), request))
        // The other pool reads the cut the first limiter made.
        const cut = yield* read
        assert.strictEqual(cut.generation, 1)
        assert.closeTo(cut.rate, 2 * policy.beta, 1e-9)
        const times: Array<number> = []
        yield* ModelProvider.generate(ProviderLimiter.limit(recording(times), other), request)
        // The other limiter never saw the 429, and still waited for its retry-after (on the database's clock; a timer
        // may fire up to a millisecond early).
        assert.isAtLeast(times[0]! - beforeThrottle, 1_500 - 1)
        // And its success counts in the state both share.
        assert.strictEqual((yield* read).accepted, 1)
      })
    )
  )
})
