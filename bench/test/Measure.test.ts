import { describe, expect, it } from "@effect/vitest"
import * as v8 from "node:v8"
import * as Measure from "../src/Measure.js"

describe("Measure", () => {
  it("takes the median of odd and even counts, and NaN of none", () => {
    expect(Measure.median([3, 1, 2])).toBe(2)
    expect(Measure.median([4, 1, 3, 2])).toBe(2.5)
    expect(Measure.median([])).toBeNaN()
  })

  it("counts what collections freed, not only what the heap grew by", () => {
    // 10 MB grew overall, and two collections freed 30 MB and 25 MB of it.
    const collections = [
      { usedBefore: 40e6, usedAfter: 10e6 },
      { usedBefore: 35e6, usedAfter: 10e6 }
    ]
    expect(Measure.allocatedBytes(5e6, 15e6, collections)).toBe(65e6)
  })

  it("measures allocation that overflows the young generation many times", async () => {
    const semiSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0
    const elements = 2_000 // about 16 KB each
    // Eight times the young generation in all, whatever its size on this Node.
    const arrays = Math.ceil((8 * semiSpace) / (elements * 8))
    let kept: Array<number> = []
    const { bytes } = await Measure.sample(async () => {
      for (let i = 0; i < arrays; i++) kept = new Array<number>(elements).fill(i)
    })
    expect(kept.length).toBe(elements)
    // A heap delta alone would read about one array here.
    expect(bytes).toBeGreaterThanOrEqual(arrays * elements * 8)
    expect(bytes).toBeLessThan(arrays * elements * 8 * 1.25)
  })

  it("spreads a contender's few samples across the rounds and rotates the order", () => {
    expect([...Measure.roundsOf(1, 5)]).toEqual([2])
    expect([...Measure.roundsOf(2, 6)]).toEqual([1, 4])
    expect([...Measure.roundsOf(9, 3)]).toEqual([0, 1, 2])
    expect([...Measure.roundsOf(0, 3)]).toEqual([])
    expect(Measure.orderOf(0, 3)).toEqual([0, 1, 2])
    expect(Measure.orderOf(4, 3)).toEqual([1, 2, 0])
  })

  it("interleaves contenders round by round", async () => {
    const log: Array<string> = []
    const contender = (name: string, samples: number) => ({
      name,
      samples,
      measure: async () => {
        log.push(name)
        return name
      }
    })
    const samples = await Measure.interleave([contender("a", 3), contender("b", 3), contender("once", 1)], 3)
    expect(log).toEqual(["a", "b", "b", "once", "a", "a", "b"])
    expect(samples.map((taken) => taken.length)).toEqual([3, 3, 1])
  })
})
