import { ModelProvider, Settings } from "@agent-kernel/kernel"
import { Capacity, PolicyComparison } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"

const { anthropicSdk, vercelAiSdk, anchorDelay } = PolicyComparison

const scenario = (overrides: Partial<PolicyComparison.Scenario>): PolicyComparison.Scenario => ({
  ...PolicyComparison.defaultScenario,
  ...overrides
})

const anchor = (name: string, value: PolicyComparison.Anchor): PolicyComparison.Contender => ({
  _tag: "Anchor",
  name,
  label: name,
  anchor: value
})

const kernel = (settings: Settings.Settings): PolicyComparison.Contender => ({
  _tag: "Kernel",
  name: "kernel",
  label: "kernel",
  settings
})

const noJitter: Settings.Settings = { ...Settings.defaults, jitter: "none" }

describe("the anchors' documented delays", () => {
  it("Vercel AI SDK: 2 s, then 4 s, the same on every draw (no jitter)", () => {
    for (const random of [0, 0.5, 0.999]) {
      assert.deepStrictEqual(
        [0, 1].map((retry) => anchorDelay(vercelAiSdk, retry, undefined, random)),
        [2_000, 4_000]
      )
    }
    assert.strictEqual(vercelAiSdk.max_retries, 2)
  })

  it("Anthropic SDK: 0.5 s, then 1 s, each times 1 - U * 0.25, and capped at 8 s", () => {
    assert.deepStrictEqual(
      [0, 1].map((retry) => anchorDelay(anthropicSdk, retry, undefined, 0)),
      [500, 1_000]
    )
    assert.deepStrictEqual(
      [0, 1].map((retry) => anchorDelay(anthropicSdk, retry, undefined, 0.5)),
      [437.5, 875]
    )
    assert.deepStrictEqual(
      [3, 4, 5, 9].map((retry) => anchorDelay(anthropicSdk, retry, undefined, 0)),
      [4_000, 8_000, 8_000, 8_000]
    )
    assert.strictEqual(anthropicSdk.max_retries, 2)
  })

  it.prop(
    "every Anthropic backoff lies in (0.75 d, d], d the uncapped-then-capped doubling",
    [
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 12 })),
      Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 0.9999 }))
    ],
    ([retry, random]) => {
      const nominal = Math.min(500 * 2 ** retry, 8_000)
      const delay = anchorDelay(anthropicSdk, retry, undefined, random)
      assert.isAbove(delay, 0.75 * nominal)
      assert.isAtMost(delay, nominal)
    }
  )

  it("Vercel AI SDK waits a retry-after below 60 s, falls back to its backoff at 60 s, unless the hint is below the backoff", () => {
    assert.strictEqual(anchorDelay(vercelAiSdk, 0, 59_999, 0), 59_999)
    assert.strictEqual(anchorDelay(vercelAiSdk, 0, 60_000, 0), 2_000)
    assert.strictEqual(anchorDelay(vercelAiSdk, 1, 3_832_000, 0), 4_000)
    // A hint shorter than the backoff is waited, even one shorter than the first 2 s.
    assert.strictEqual(anchorDelay(vercelAiSdk, 0, 300, 0), 300)
    // The sixth retry's backoff is 64 s: a 60 s hint is below it, so it is waited.
    assert.strictEqual(anchorDelay(vercelAiSdk, 5, 60_000, 0), 60_000)
  })

  it("Anthropic SDK waits a retry-after of any length as is, in place of its jittered backoff", () => {
    assert.strictEqual(anchorDelay(anthropicSdk, 0, 120_000, 0.9), 120_000)
    assert.strictEqual(anchorDelay(anthropicSdk, 1, 250, 0.9), 250)
  })

  it("a hint in the past: the Anthropic SDK retries at once, the Vercel AI SDK waits its backoff", () => {
    assert.strictEqual(anchorDelay(anthropicSdk, 0, -5_000, 0), 0)
    assert.strictEqual(anchorDelay(vercelAiSdk, 0, -5_000, 0), 2_000)
  })
})

describe("Capacity.admit", () => {
  it("admits n requests in any second and refuses the next with the ms until the oldest leaves the window", () => {
    let window = Capacity.empty
    const answers: Array<Option.Option<number>> = []
    for (const now of [0, 100, 200, 999, 1_000, 1_100]) {
      const [answer, next] = Capacity.admit(window, 2, now)
      answers.push(answer)
      window = next
    }
    assert.deepStrictEqual(answers, [
      Option.none(),
      Option.none(),
      Option.some(800),
      Option.some(1),
      Option.none(),
      Option.none()
    ])
  })
})

describe("Capacity windows", () => {
  it("are values: two requests admitted from one window make two windows, each answering for its own", () => {
    const [, one] = Capacity.admit(Capacity.empty, 2, 0)
    const [, early] = Capacity.admit(one, 2, 100)
    const [, late] = Capacity.admit(one, 2, 600)
    // At 1,050 ms the request at 0 has left both windows; the next refusal waits for each one's own second request.
    const refusalAfter = (window: Capacity.Window) => Capacity.admit(Capacity.admit(window, 2, 1_050)[1], 2, 1_060)[0]
    assert.deepStrictEqual(refusalAfter(early), Option.some(40))
    assert.deepStrictEqual(refusalAfter(late), Option.some(540))
    assert.deepStrictEqual(refusalAfter(early), Option.some(40))
  })

  it("say a wait in whole seconds rounded up, so a client waiting the header is never early", () => {
    assert.deepStrictEqual([1, 999, 1_000, 1_001].map(Capacity.retryAfterSeconds), [1, 1, 1, 2])
  })

  it("admit the capacity in every second of a long run, and refuse the next", () => {
    // Far more arrivals than a log keeps before it compacts: every second admits exactly the capacity.
    let window = Capacity.empty
    const admitted = new Array<number>(20).fill(0)
    for (let now = 0; now < 20_000; now += 0.25) {
      const [answer, next] = Capacity.admit(window, 1_500, now)
      if (Option.isNone(answer)) admitted[Math.floor(now / 1_000)]! += 1
      window = next
    }
    assert.deepStrictEqual(admitted, new Array<number>(20).fill(1_500))
  })
})

describe("PolicyComparison fleets", () => {
  // Four clients at once, one request a second, no retry-after: Vercel's loop admits one at 0 s, one at
  // 2 s (the two others were refused again) and one at 6 s; the fourth is refused at 6 s with no retry left.
  it.effect("an anchor runs its documented loop against the shared capacity", () =>
    Effect.gen(function* () {
      const result = yield* PolicyComparison.runContender(
        scenario({ clients: 4, capacity_rps: 1, turns: 1, retry_after: "none" }),
        anchor("vercel", vercelAiSdk)
      )
      const f = result.figures
      assert.deepStrictEqual(f.outcomes, { completed: 3, retries_exhausted: 1 })
      assert.deepStrictEqual([f.attempts, f.successes, f.retries], [9, 3, 5])
      assert.deepStrictEqual([f.latency_p50_ms, f.latency_p99_ms, f.makespan_ms], [2_000, 6_000, 6_000])
      assert.strictEqual(f.attempts_per_success, 3)
      assert.strictEqual(f.completion_pct, 75)
    })
  )

  it.effect("the kernel never retries sooner than the provider's retry-after; without one it waits its backoff", () =>
    Effect.gen(function* () {
      // One client, one request a second, two calls: the second is refused at 0 with a retry-after of 1 s.
      const run = (retry_after: PolicyComparison.RetryAfterHint) =>
        PolicyComparison.runContender(
          scenario({ clients: 1, capacity_rps: 1, turns: 2, retry_after }),
          kernel(noJitter)
        )
      const hinted = yield* run("ms")
      const blind = yield* run("none")
      assert.strictEqual(hinted.figures.latency_p50_ms, 1_000)
      // 500 ms, then 1 s: the window has room at 1 s.
      assert.strictEqual(blind.figures.latency_p50_ms, 1_500)
      assert.deepStrictEqual([blind.figures.attempts, blind.figures.retries], [4, 2])
    })
  )

  it.effect("an anchor waits the retry-after, not its longer backoff", () =>
    Effect.gen(function* () {
      const result = yield* PolicyComparison.runContender(
        scenario({ clients: 1, capacity_rps: 1, turns: 2, retry_after: "ms" }),
        anchor("vercel", vercelAiSdk)
      )
      assert.strictEqual(result.figures.latency_p50_ms, 1_000)
    })
  )

  it.effect("a retry-after in whole seconds rounds the provider's wait up; in ms it is exact", () =>
    Effect.gen(function* () {
      // Two clients, 300 ms apart, one request a second: the second is refused with 700 ms to wait.
      const run = (retry_after: PolicyComparison.RetryAfterHint) =>
        PolicyComparison.runContender(
          scenario({ clients: 2, capacity_rps: 1, turns: 1, arrival_ms: 600, retry_after }),
          anchor("vercel", vercelAiSdk)
        )
      assert.strictEqual((yield* run("ms")).figures.latency_p99_ms, 700)
      assert.strictEqual((yield* run("seconds")).figures.latency_p99_ms, 1_000)
      assert.strictEqual((yield* run("none")).figures.latency_p99_ms, 2_000)
    })
  )

  it.effect(
    "a kernel policy behind a front: made once per fleet, every call goes through it, on the virtual clock",
    () =>
      Effect.gen(function* () {
        let made = 0
        // One call at a time, each 1.5 s after the last: four clients at once against one request a second never meet a 429.
        const oneByOne: PolicyComparison.Front = {
          label: "one call at a time",
          make: Effect.map(
            Effect.andThen(
              Effect.sync(() => made++),
              Semaphore.make(1)
            ),
            (gate) => (provider) =>
              ModelProvider.fromGenerate(provider.name, (request) =>
                gate.withPermit(Effect.andThen(Effect.sleep("1500 millis"), ModelProvider.generate(provider, request)))
              )
          )
        }
        const fleet = scenario({ clients: 4, capacity_rps: 1, turns: 1 })
        const fronted = yield* PolicyComparison.runContender(fleet, {
          _tag: "Kernel",
          name: "kernel",
          label: "kernel",
          settings: noJitter,
          front: oneByOne
        })
        const bare = yield* PolicyComparison.runContender(fleet, kernel(noJitter))
        assert.strictEqual(made, 1)
        assert.strictEqual(fronted.runs_as === "kernel" ? fronted.in_front : undefined, "one call at a time")
        assert.isFalse("in_front" in bare)
        const f = fronted.figures
        assert.deepStrictEqual(f.outcomes, { completed: 4 })
        assert.deepStrictEqual([f.attempts, f.successes, f.retries], [4, 4, 0])
        assert.deepStrictEqual([f.latency_p50_ms, f.makespan_ms], [3_000, 6_000])
        assert.isAbove(bare.figures.retries, 0)
      })
  )

  it.effect("kernel runs whose session budget runs out count as budget exhausted", () =>
    Effect.gen(function* () {
      const result = yield* PolicyComparison.runContender(
        scenario({ clients: 4, capacity_rps: 1, turns: 1 }),
        kernel({ ...noJitter, max_session_retries: 0 })
      )
      assert.deepStrictEqual(result.figures.outcomes, { completed: 1, retry_budget_exhausted: 3 })
      assert.strictEqual(result.figures.budget_exhausted, 3)
      assert.strictEqual(result.figures.retries, 0)
    })
  )

  it.effect("a kernel run takes every turn of the scenario, beyond the settings' cap on turns", () =>
    Effect.gen(function* () {
      const turns = Settings.defaults.max_turns + 1
      const result = yield* PolicyComparison.runContender(
        scenario({ clients: 2, capacity_rps: 1_000, turns }),
        kernel(Settings.defaults)
      )
      assert.deepStrictEqual(result.figures.outcomes, { completed: 2 })
      assert.strictEqual(result.figures.successes, 2 * turns)
    })
  )

  it.effect("decodeScenario names every bad field", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        PolicyComparison.decodeScenario({ ...PolicyComparison.defaultScenario, clients: 0, turns: 1.5, arrival_ms: -1 })
      )
      assert.include(error.message, "clients")
      assert.include(error.message, "turns")
      assert.include(error.message, "arrival_ms")
    })
  )

  it.effect("decodeScenario refuses a fleet of more than a million calls, naming both factors", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        PolicyComparison.decodeScenario({ ...PolicyComparison.defaultScenario, clients: 100_000, turns: 11 })
      )
      assert.deepStrictEqual(error.issues, [
        {
          field: "turns",
          problem: "Expected at most 1000000 successful calls in all (clients x turns), got 100000 x 11"
        }
      ])
      const largest = yield* PolicyComparison.decodeScenario({
        ...PolicyComparison.defaultScenario,
        clients: 100_000,
        turns: 10
      })
      assert.strictEqual(largest.clients * largest.turns, 1_000_000)
    })
  )
})

describe("describeScenario", () => {
  it("names the scenario in one line, with one turn in the singular", () => {
    assert.strictEqual(
      PolicyComparison.describeScenario({ ...PolicyComparison.defaultScenario, turns: 1, arrival_ms: 2_000 }),
      "1000 clients x 1 turn against 50 req/s, arriving over 2.00 s, retry-after in ms, seed 1"
    )
  })
})

const golden = path.join(import.meta.dirname, "fixtures", "policy-comparison.golden.json")

/** The golden report's scenario: a user's full-jitter settings against the kernel's default and the anchors. */
const goldenReport = Effect.gen(function* () {
  const yours = yield* Settings.decode({ jitter: "full", max_retries: 8, max_session_retries: 30 })
  return yield* PolicyComparison.compare(
    { clients: 200, capacity_rps: 20, turns: 3, arrival_ms: 5_000, retry_after: "ms", seed: 7 },
    PolicyComparison.contenders(yours)
  )
})

describe("the comparison report", () => {
  it.effect("for a fixed seed is byte for byte the golden JSON (UPDATE_GOLDEN=1 rewrites it)", () =>
    Effect.gen(function* () {
      const json = PolicyComparison.toJson(yield* goldenReport)
      if (process.env["UPDATE_GOLDEN"] === "1") writeFileSync(golden, json)
      assert.strictEqual(json, readFileSync(golden, "utf8"))
    })
  )

  it.effect("is the same bytes on a second run, differs for another seed, and decodes back through its Schema", () =>
    Effect.gen(function* () {
      const first = PolicyComparison.toJson(yield* goldenReport)
      const second = PolicyComparison.toJson(yield* goldenReport)
      assert.strictEqual(first, second)
      const decoded = Schema.decodeUnknownSync(PolicyComparison.Report)(JSON.parse(first))
      assert.deepStrictEqual(
        decoded.policies.map((policy) => [policy.name, policy.runs_as]),
        [
          ["kernel-default", "kernel"],
          ["anthropic-sdk", "anchor"],
          ["vercel-ai-sdk", "anchor"],
          ["yours", "kernel"]
        ]
      )
      const other = yield* PolicyComparison.compare(
        { ...decoded.scenario, seed: 8 },
        PolicyComparison.contenders(Settings.defaults)
      )
      assert.notStrictEqual(PolicyComparison.toJson(other), first)
    })
  )
})
