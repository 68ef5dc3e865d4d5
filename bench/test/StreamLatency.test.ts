import { describe, expect, it } from "@effect/vitest"
import { performance } from "node:perf_hooks"
import * as StreamLatency from "../src/StreamLatency.js"

// Each reader must see the whole stream, or its figures mean nothing: every
// sample checks the deltas it saw against the text the server sent.
describe("the streaming readers", () => {
  it("each read every delta of a real stream, timed inside the sample from the server's first byte", async () => {
    for (const contender of StreamLatency.contenders(40, 1)) {
      const started = performance.now()
      const timing = await contender.measure()
      const elapsed = performance.now() - started
      expect(timing.firstMs, contender.name).toBeLessThanOrEqual(timing.lastMs)
      // The clock starts when the server writes, after the request was sent: never before the sample did.
      expect(timing.lastMs, contender.name).toBeLessThanOrEqual(elapsed)
    }
  })

  it("reject a reader that missed a delta or saw one too many", () => {
    const seen = new StreamLatency.Seen()
    seen.start()
    for (const piece of ["a", "b"]) seen.delta(piece)
    expect(() => seen.timing("abc", "reader")).toThrow("reader: saw 2 deltas (2 characters), expected 3")
    seen.delta("c")
    expect(seen.timing("abc", "reader").lastMs).toBe(seen.last - seen.startedAt)
    seen.delta("d")
    expect(() => seen.timing("abc", "reader")).toThrow("saw 4 deltas")
  })
})
