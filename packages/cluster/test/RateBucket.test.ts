import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as RateBucket from "../src/RateBucket.js"

/** An integer from `minimum` to `maximum`. */
const integer = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))

/** A rate, and reservations as (time since the previous one, in emission intervals; cost). */
const scenario = Arbitrary.all({
  limit: integer(1, 50),
  windowMs: Arbitrary.schema(Schema.Literals([100, 1_000, 60_000])),
  burst: integer(1, 50),
  calls: Arbitrary.array(
    // The gap in emission intervals (the time one token takes to refill), so that callers often find the bucket short.
    Arbitrary.all({
      gap: Arbitrary.map(integer(0, 3_000), (thousandths) => thousandths / 1_000),
      cost: integer(1, 10)
    }),
    { minLength: 1, maxLength: 60 }
  )
})

/**
 * Checks `property` on `runs` inputs of `arbitrary`, up to the size of the longest scenario (the generated
 * arrays grow with the size); fails with the shrunk counterexample.
 */
const holds = <A>(arbitrary: Arbitrary.Arbitrary<A>, property: (input: A) => boolean, runs = 100) =>
  Effect.map(Arbitrary.checkEffect(arbitrary, property, { runs, size: 60 }), (result) => {
    assert.strictEqual(result._tag, "Passed", Arbitrary.formatCheckFailure(result))
  })

interface Played {
  readonly rate: RateBucket.Rate
  readonly starts: ReadonlyArray<{ readonly at: number; readonly cost: number; readonly waited: number }>
}

const play = (input: typeof scenario extends Arbitrary.Arbitrary<infer A> ? A : never): Played => {
  const rate = RateBucket.rate({ limit: input.limit, window: input.windowMs, burst: input.burst })
  let bucket = RateBucket.full(rate)
  let now = 1_000_000
  const starts: Array<{ at: number; cost: number; waited: number }> = []
  for (const call of input.calls) {
    now += call.gap / rate.perMillisecond
    // The bound is for costs within the bucket: a larger one is lent the difference, and waits for it.
    const cost = Math.min(call.cost, rate.capacity)
    const [wait, next] = RateBucket.reserve(bucket, rate, now, cost)
    bucket = next
    starts.push({ at: now + wait, cost, waited: wait })
  }
  return { rate, starts }
}

describe("RateBucket", () => {
  it.effect("the tokens starting within any interval of length w add up to at most capacity + w × rate", () =>
    Effect.gen(function* () {
      let runs = 0
      let waited = 0
      let deepDebt = 0
      yield* holds(
        scenario,
        (input) => {
          const { rate, starts } = play(input)
          runs++
          if (starts.some((s) => s.waited > 0)) waited++
          if (starts.some((s) => s.waited * rate.perMillisecond > rate.capacity)) deepDebt++
          const sorted = [...starts].sort((a, b) => a.at - b.at)
          for (let i = 0; i < sorted.length; i++) {
            let tokens = 0
            for (let j = i; j < sorted.length; j++) {
              tokens += sorted[j]!.cost
              const span = sorted[j]!.at - sorted[i]!.at
              if (tokens > rate.capacity + span * rate.perMillisecond + 1e-6) return false
            }
          }
          return true
        },
        500
      )
      // The generator must reach the interesting cases: callers that wait, and debts beyond a full bucket.
      console.log(`RateBucket bound: ${runs} runs, ${waited} with a wait, ${deepDebt} with a debt beyond the capacity`)
      assert.isAbove(waited / runs, 0.5)
      assert.isAbove(deepDebt / runs, 0.1)
    })
  )

  it.effect("callers start in the order they reserved, and nobody waits while the bucket has their tokens", () =>
    holds(
      scenario,
      (input) => {
        const { rate, starts } = play(input)
        let bucket = RateBucket.full(rate)
        let now = 1_000_000
        for (let i = 0; i < input.calls.length; i++) {
          const call = input.calls[i]!
          now += call.gap / rate.perMillisecond
          const tokensNow = Math.min(rate.capacity, bucket.tokens + (now - bucket.at) * rate.perMillisecond)
          const cost = Math.min(call.cost, rate.capacity)
          const [wait, next] = RateBucket.reserve(bucket, rate, now, cost)
          if (tokensNow >= cost && wait !== 0) return false
          if (i > 0 && starts[i]!.at < starts[i - 1]!.at - 1e-6) return false
          bucket = next
        }
        return true
      },
      300
    )
  )

  it("a cost above the capacity is not refused: it waits until the refill has paid what it borrowed", () => {
    const rate = RateBucket.rate({ limit: 10, window: "1 second" })
    const [wait, bucket] = RateBucket.reserve(RateBucket.full(rate), rate, 0, 25)
    assert.strictEqual(wait, 1_500)
    assert.strictEqual(bucket.tokens, -15)
  })

  it.effect("an adjustment gives back at most up to the capacity, and takes more into debt", () =>
    holds(Arbitrary.all([integer(1, 100), integer(-500, 500)]), ([capacity, delta]) => {
      const rate = RateBucket.rate({ limit: capacity, window: "1 minute" })
      const [, reserved] = RateBucket.reserve(RateBucket.full(rate), rate, 0, capacity)
      const adjusted = RateBucket.adjust(reserved, rate, 0, delta)
      return adjusted.tokens === Math.min(capacity, -delta)
    })
  )
})
