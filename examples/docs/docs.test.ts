/**
 * The guides' samples: each runs here, and each guide quotes its file verbatim.
 */
import { ProviderLimiter } from "@agent-kernel/cluster"
import { Content, type RunOutcome } from "@agent-kernel/kernel"
import { TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AdaptiveLimiter from "./adaptive-limiter.js"
import * as ComparePolicies from "./compare-policies.js"
import * as ComposePolicy from "./compose-policy.js"
import * as ContextSample from "./context-provider.js"
import * as Observe from "./observe.js"
import * as Plugins from "./plugins.js"
import * as ProvidersFake from "./providers-fake.js"
import * as Streaming from "./streaming.js"

const root = path.resolve(import.meta.dirname, "../..")

describe("guide samples", () => {
  it("every TypeScript block of the READMEs and guides is a checked file, quoted verbatim", () => {
    const markdown = [
      "README.md",
      "examples/README.md",
      ...fs.readdirSync(path.join(root, "packages")).map((pkg) => `packages/${pkg}/README.md`),
      ...fs.readdirSync(path.join(root, "docs")).map((doc) => `docs/${doc}`)
    ].filter((file) => file.endsWith(".md") && fs.existsSync(path.join(root, file)))
    let quoted = 0
    for (const doc of markdown) {
      const text = fs.readFileSync(path.join(root, doc), "utf8")
      const blocks = text.split("```ts\n").length - 1
      const samples = [...text.matchAll(/<!-- sample: (\S+) -->\n```ts\n([\s\S]*?)```/g)]
      assert.strictEqual(samples.length, blocks, `${doc}: a ts block without a <!-- sample: --> file`)
      for (const match of samples) {
        assert.strictEqual(match[2], fs.readFileSync(path.join(root, match[1]!), "utf8"), `${doc} quotes ${match[1]}`)
        quoted++
      }
    }
    assert.isAtLeast(quoted, 13)
  })

  it.effect("providers-fake: the README's fault-plan server starts on loopback and answers per plan", () =>
    Effect.gen(function* () {
      const server = yield* ProvidersFake.server
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/)
      const response = yield* Effect.promise(() =>
        fetch(`${server.url}/v1/messages`, { method: "POST", body: JSON.stringify({ model: "m", messages: [] }) })
      )
      assert.strictEqual(response.status, 429)
      assert.strictEqual(response.headers.get("retry-after"), "2")
    })
  )

  it.effect("adaptive-limiter: the layer paces and learns, with no static limit set", () =>
    Effect.gen(function* () {
      const limiter = yield* ProviderLimiter.ProviderLimiter.pipe(Effect.provide(AdaptiveLimiter.limiter))
      assert.isDefined(limiter.pace)
      assert.isDefined(limiter.learn)
      // No static limit: acquiring any number of tokens does not wait.
      yield* limiter.acquire(1_000_000)
    })
  )

  it.effect("compose-policy: the preview stops at the auth error and honours the 30 s retry-after", () =>
    Effect.gen(function* () {
      const delays = yield* ComposePolicy.preview.pipe(Random.withSeed("docs"))
      assert.lengthOf(delays, 2)
      assert.isAtMost(Duration.toMillis(delays[0]!), 1_000)
      assert.strictEqual(Duration.toMillis(delays[1]!), 30_000)
      const outcome = yield* TestClockDriver.run(ComposePolicy.run)
      assert.strictEqual(outcome.status, "completed")
      assert.strictEqual(outcome.retries.session_total, 1)
    })
  )

  it.effect("compare-policies: one row a contender, the user's settings last, each run counted once", () =>
    Effect.gen(function* () {
      const report = yield* ComparePolicies.comparison
      assert.deepStrictEqual(
        report.policies.map((policy) => policy.name),
        ["kernel-default", "anthropic-sdk", "vercel-ai-sdk", "yours"]
      )
      for (const policy of report.policies) {
        const counted = Object.values(policy.figures.outcomes).reduce((sum, n) => sum + n, 0)
        assert.strictEqual(counted, 200, policy.name)
      }
    })
  )

  it.effect("context-provider: the overflow is answered by a smaller request that keeps the latest input", () =>
    Effect.gen(function* () {
      const { outcome, sent } = yield* ContextSample.run
      assert.strictEqual(outcome.status, "completed")
      assert.isBelow(sent[1]!.length + JSON.stringify(sent[1]).length, sent[0]!.length + JSON.stringify(sent[0]).length)
      assert.strictEqual(Content.textOf(sent[1]!.at(-1)!), "And what is a Layer?")
    })
  )

  it.live("plugins: a good call, a bad argument, a denial and a real MCP call all come back as tool results", () =>
    Effect.gen(function* () {
      const outcome: RunOutcome.RunOutcome = yield* Plugins.run
      assert.strictEqual(outcome.status, "completed")
      const results = outcome.history[2]!.content.flatMap((block) => (block.type === "tool_result" ? [block] : []))
      assert.deepStrictEqual(
        results.map((r) => r.is_error),
        [false, true, true, false]
      )
      assert.strictEqual(results[0]!.content, "5")
      assert.include(results[2]!.content, "secrets stay private")
      assert.include(results[3]!.content, "package.json")
    })
  )

  it.effect("observe: observers, the response hook, the stream and the metrics all see the retry", () =>
    Effect.gen(function* () {
      const { outcome, lines, retriesSeen, overloadedRetriesTotal } = yield* TestClockDriver.run(Observe.run)
      assert.strictEqual(outcome.status, "completed")
      assert.include(lines, "retry_scheduled")
      assert.include(lines, "turn 1: end_turn, 5 tokens out")
      assert.strictEqual(retriesSeen, 1)
      assert.isAtLeast(overloadedRetriesTotal, 1)
    })
  )

  it.effect("streaming: the reader shows the answer once, the failed attempt's text dropped at the restart", () =>
    Effect.gen(function* () {
      const { outcome, shown } = yield* TestClockDriver.run(Streaming.run)
      assert.strictEqual(outcome.status, "completed")
      assert.strictEqual(shown, "Streams arrive in pieces.")
      assert.strictEqual(shown, outcome.final_text)
    })
  )
})
