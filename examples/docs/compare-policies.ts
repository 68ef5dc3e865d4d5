import { Settings } from "@agent-kernel/kernel"
import { PolicyComparison } from "@agent-kernel/kernel/testing"
import * as Effect from "effect/Effect"

// 200 clients arriving over 10 s, 3 calls each, against a provider admitting 20 requests a second:
// the kernel's default, the Anthropic and Vercel AI SDKs' loops, and your own settings.
export const comparison = Effect.gen(function* () {
  const yours = yield* Settings.decode({ jitter: "full", max_retries: 8 })
  const report = yield* PolicyComparison.compare(
    { ...PolicyComparison.defaultScenario, clients: 200, capacity_rps: 20, arrival_ms: 10_000 },
    PolicyComparison.contenders(yours)
  )
  yield* Effect.log(`\n${PolicyComparison.formatTable(report)}`)
  return report
})
