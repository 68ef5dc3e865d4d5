/**
 * The durable sessions guide's sample (packages/durable/README.md) runs as quoted.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as DurableSample from "./durable-sessions.js"

describe("guide samples: durable sessions", () => {
  it.effect("durable-sessions: a run on the memory engine is listed and exports", () =>
    Effect.gen(function* () {
      const result = yield* Effect.scoped(DurableSample.main)
      assert.strictEqual(result.status, "completed")
      assert.strictEqual(result.sessions, 1)
      assert.isAbove(result.bytes, 0)
    })
  )
})
