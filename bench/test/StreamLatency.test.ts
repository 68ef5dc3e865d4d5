import { describe, expect, it } from "@effect/vitest"
import * as StreamLatency from "../src/StreamLatency.js"

// Each reader must see the whole stream, or its figures mean nothing: every
// sample checks the deltas it saw against the text the server sent.
describe("the streaming readers", () => {
  it("each read every delta of a real stream, and time the first before the last", async () => {
    for (const contender of StreamLatency.contenders(40, 1)) {
      const timing = await contender.measure()
      expect(timing.firstMs, contender.name).toBeGreaterThanOrEqual(0)
      expect(timing.lastMs, contender.name).toBeGreaterThanOrEqual(timing.firstMs)
    }
  })
})
