import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as AiSdkLoop from "../src/AiSdkLoop.js"
import * as Effect3Kernel from "../src/Effect3Kernel.js"
import * as EffectAiLoop from "../src/EffectAiLoop.js"
import * as EffectFloor from "../src/EffectFloor.js"
import * as KernelLoop from "../src/KernelLoop.js"
import * as PlainLoop from "../src/PlainLoop.js"
import * as Script from "../src/Script.js"

// The comparisons are fair only if every loop does the same work: these
// check it with the loops' own counters, which the benchmark's runs check too.
describe("the compared loops", () => {
  it("each complete a run of exactly N tool steps, twice in a row (no state carried over)", async () => {
    const effect3 = await Effect3Kernel.load()
    for (const steps of [1, 7]) {
      for (let again = 0; again < 2; again++) {
        await PlainLoop.run(steps)
        await KernelLoop.run(steps, { observed: false })
        await KernelLoop.run(steps, { observed: true })
        await effect3.run(steps, { observed: true })
        await AiSdkLoop.run(steps)
        await EffectAiLoop.run(steps)
        for (const variant of EffectFloor.variants) await Effect.runPromise(EffectFloor.run(steps, { variant }))
      }
    }
  })

  it("give every Effect floor the plain loop's conversation", async () => {
    const plain = await PlainLoop.run(3)
    for (const variant of EffectFloor.variants)
      expect(await Effect.runPromise(EffectFloor.run(3, { variant })), variant).toEqual(plain)
  })

  it("run many Effect 3 kernel sessions at once, waiting on the live clock", async () => {
    const effect3 = await Effect3Kernel.load()
    const started = performance.now()
    await effect3.runMany(20, 2, { observed: true, latencyMs: 20 })
    // Three model calls a session, each after 20 ms: the run cannot end sooner, whatever the machine.
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * 20)
  })

  it("reject a run with the wrong number of calls", () => {
    expect(() => Script.check("loop", 3, { model: 4, tool: 3 })).not.toThrow()
    expect(() => Script.check("loop", 3, { model: 3, tool: 3 })).toThrow(/made 3 model calls and 3 tool calls/)
    expect(() => Script.check("loop", 3, { model: 4, tool: 0 })).toThrow(/expected 4 and 3/)
  })

  it("give the kernel and the plain loop the same conversation", async () => {
    const plain = await PlainLoop.run(3)
    const session = await KernelLoop.run(3, { observed: true })
    const kernel = await Effect.runPromise(session.history)
    expect(JSON.parse(JSON.stringify(kernel))).toEqual(JSON.parse(JSON.stringify(plain)))
  })

  it("keep the AI SDK mock's call log from growing", async () => {
    const counted: Script.Counted = { model: 0, tool: 0 }
    const model = AiSdkLoop.mockModel(2, counted)
    for (let call = 0; call < 3; call++) await model.doGenerate({ prompt: [] })
    expect(counted.model).toBe(3)
    expect(model.doGenerateCalls).toHaveLength(0)
  })
})
