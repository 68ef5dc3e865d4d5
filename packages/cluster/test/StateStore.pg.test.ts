import { RetryBudget } from "@agent-kernel/kernel"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as SharedRetryQuota from "../src/SharedRetryQuota.js"
import * as StateStore from "../src/StateStore.js"
import { pgLayer } from "./postgres.js"

/** A store over its own connection pool: two of them stand for two processes. */
const store = (table: string) => Layer.build(StateStore.layerPostgres({ table }).pipe(Layer.provide(pgLayer())))

const Counter = Schema.Struct({ count: Schema.Number })

describe("StateStore over Postgres", () => {
  it.effect("concurrent updates through two pools lose nothing", () =>
    Effect.gen(function* () {
      const table = `state_${Date.now()}_a`
      const one = StateStore.StateStore.pipe(Effect.provide(yield* store(table)))
      const two = StateStore.StateStore.pipe(Effect.provide(yield* store(table)))
      const stores = [yield* one, yield* two]
      const increment = (s: StateStore.Service) =>
        s.modify({
          key: "counter",
          schema: Counter,
          initial: { count: 0 },
          f: (state) => [state.count, { count: state.count + 1 }] as const
        })
      const seen = yield* Effect.forEach(Array.from({ length: 60 }), (_, i) => increment(stores[i % 2]!), {
        concurrency: "unbounded"
      })
      // Each update saw a different count: none read a state another was about to overwrite.
      assert.deepStrictEqual(
        [...seen].sort((a, b) => a - b),
        Array.from({ length: 60 }, (_, i) => i)
      )
      assert.strictEqual(yield* increment(stores[0]!), 60)
    })
  )

  it.effect("the clock is the database's: it moves forward between updates", () =>
    Effect.gen(function* () {
      const s = yield* StateStore.StateStore.pipe(Effect.provide(yield* store(`state_${Date.now()}_b`)))
      const stamp = s.modify({ key: "k", schema: Counter, initial: { count: 0 }, f: (state, now) => [now, state] })
      const first = yield* stamp
      const second = yield* stamp
      assert.isAbove(first, Date.UTC(2020, 0, 1))
      assert.isAtLeast(second, first)
    })
  )

  it.effect("a key holding a state of another shape is a StateStoreError, not a crash", () =>
    Effect.gen(function* () {
      const s = yield* StateStore.StateStore.pipe(Effect.provide(yield* store(`state_${Date.now()}_c`)))
      yield* s.modify({ key: "k", schema: Counter, initial: { count: 0 }, f: (state) => [undefined, state] })
      const error = yield* Effect.flip(
        s.modify({
          key: "k",
          schema: Schema.Struct({ name: Schema.String }),
          initial: { name: "x" },
          f: (state) => [undefined, state]
        })
      )
      assert.strictEqual(error._tag, "StateStoreError")
      assert.match(error.message, /another shape/)
    })
  )

  it.effect("a retry quota in Postgres is one bucket for every pool", () =>
    Effect.gen(function* () {
      const table = `state_${Date.now()}_d`
      const quota = (context: Layer.Layer<StateStore.StateStore>) =>
        SharedRetryQuota.make({ key: "anthropic", budget: RetryBudget.fixed(3) }).pipe(Effect.provide(context))
      const a = yield* quota(Layer.succeedContext(yield* store(table)))
      const b = yield* quota(Layer.succeedContext(yield* store(table)))
      const granted = yield* Effect.forEach(
        Array.from({ length: 8 }),
        (_, i) => (i % 2 === 0 ? a : b).acquire({ model: "m", category: "rate_limited" }),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(granted.filter(Boolean).length, 3)
    })
  )
})
