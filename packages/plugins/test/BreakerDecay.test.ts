/**
 * For MCP plugins: the breaker PluginToolbox builds from
 * the settings decays its total on success, so failures spread among
 * successes never open it, however many there are over a session; and a
 * plugin that fails more often than it succeeds still trips it, without ever
 * failing `breaker_consecutive_failures` times in a row.
 *
 * Real plugin processes (the fixture server); the failures are JSON-RPC
 * errors, which count toward the breaker without killing the process.
 */
import type { KernelEvent } from "@agent-kernel/kernel"
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { McpStdio, PluginToolbox } from "../src/index.js"
import { fixture, recordEvents, use } from "./helpers.js"

const settings = {
  tool_timeout_ms: 60_000,
  breaker_consecutive_failures: 3,
  breaker_total_failures: 4,
  breaker_cooldown_ms: 30_000
}

const toolbox = Effect.gen(function* () {
  const provider = yield* McpStdio.make(fixture("fx"))
  const box = yield* PluginToolbox.make({ providers: [Effect.succeed(provider)], settings })
  return { provider, box, breaker: box.breakers.get("fx")! }
})

const opened = (events: ReadonlyArray<KernelEvent.KernelEvent>) =>
  events.filter((event) => event.type === "breaker_changed" && event.to === "open")

describe("PluginToolbox's breaker: the total decays on success", () => {
  it.live(
    "30 failures, each after a success, never open it: breaker_total_failures is 4, the total stays at most 1",
    () =>
      Effect.gen(function* () {
        const recorded = yield* recordEvents
        yield* Effect.gen(function* () {
          const { box, breaker, provider } = yield* toolbox
          const failures = 30
          for (let i = 0; i < failures; i++) {
            const ok = yield* box.invoke(use("echo", { text: `call ${i}` }))
            expect(ok).toMatchObject({ content: `call ${i}`, is_error: false })
            const failed = yield* box.invoke(use("rpc-error"))
            expect(failed.is_error).toBe(true)
            expect(failed.content).toContain("the database is on fire")
            expect(yield* breaker.counts).toEqual({ consecutive: 1, total: 1 })
          }
          expect(failures).toBeGreaterThan(settings.breaker_total_failures)
          expect(yield* breaker.status).toBe("closed")
          // The tools are still offered, and still answer, from the one process.
          expect((yield* box.definitions).map((tool) => tool.name)).toContain("echo")
          expect(yield* box.invoke(use("echo", { text: "still here" }))).toMatchObject({ is_error: false })
          expect(yield* provider.stats).toMatchObject({ spawns: 1, crashes: 0 })
        }).pipe(Effect.provide(recorded.layer))
        expect(opened(yield* recorded.events)).toEqual([])
      }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live(
    "two failures for each success open it once the net total reaches breaker_total_failures, never 3 in a row",
    () =>
      Effect.gen(function* () {
        const recorded = yield* recordEvents
        yield* Effect.gen(function* () {
          const { box, breaker } = yield* toolbox
          // Net +1 a round: the total peaks at 2, then 3 (and falls back to 1, then 2, on success);
          // the second failure of the third round makes it 4.
          for (let round = 1; round <= 2; round++) {
            yield* box.invoke(use("rpc-error"))
            yield* box.invoke(use("rpc-error"))
            expect(yield* breaker.counts).toEqual({ consecutive: 2, total: round + 1 })
            expect(yield* box.invoke(use("echo", { text: "ok" }))).toMatchObject({ is_error: false })
            expect(yield* breaker.counts).toEqual({ consecutive: 0, total: round })
          }
          yield* box.invoke(use("rpc-error"))
          expect(yield* breaker.status).toBe("closed")
          const last = yield* box.invoke(use("rpc-error"))
          expect(yield* breaker.status).toBe("open")
          expect(yield* breaker.counts).toEqual({ consecutive: 2, total: 4 })
          expect(last.content).toContain("circuit breaker is now open")
        }).pipe(Effect.provide(recorded.layer))
        expect(opened(yield* recorded.events)).toHaveLength(1)
      }).pipe(Effect.provide(NodeServices.layer))
  )
})
