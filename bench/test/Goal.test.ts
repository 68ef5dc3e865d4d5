import { describe, expect, it } from "@effect/vitest"
import * as Goal from "../src/Goal.js"
import * as Report from "../src/Report.js"

describe("Goal", () => {
  it("judges each comparison at, below and above its limit", () => {
    const at = (comparison: Goal.Comparison) =>
      [0.9, 1, 1.1].map((figure) => Goal.judge(Goal.make("g", comparison, 1, "x", "test"), figure).status)
    expect(at("at most")).toEqual(["met", "met", "not met"])
    expect(at("less than")).toEqual(["met", "not met", "not met"])
    expect(at("at least")).toEqual(["not met", "met", "met"])
    expect(at("more than")).toEqual(["not met", "not met", "met"])
  })

  it("never marks a figure that was not measured as met", () => {
    const goal = Goal.make("g", "at most", 30, "µs", "test")
    expect(Goal.judge(goal, undefined).status).toBe("not measured")
    expect(Goal.judge(goal, Number.NaN).status).toBe("not measured")
    expect(Goal.judge(goal, Number.POSITIVE_INFINITY).status).toBe("not measured")
  })

  it("has no ratio when a figure is missing or the divisor is zero", () => {
    expect(Goal.ratio(10, 4)).toBe(2.5)
    expect(Goal.ratio(undefined, 4)).toBeUndefined()
    expect(Goal.ratio(10, Number.NaN)).toBeUndefined()
    expect(Goal.ratio(10, 0)).toBeUndefined()
  })

  it("prints each verdict beside its figure, its target and where it was set", () => {
    const printed = Report.verdicts([
      Goal.judge(Goal.make("time per step", "at most", 30, "µs", "issue 9"), 118.4),
      Goal.judge(Goal.make("faster than the AI SDK", "at least", 5, "x", "issue 22"), 6.25),
      Goal.judge(Goal.make("skipped", "at least", 50, "x", "issue 22"), undefined)
    ]).split("\n")
    expect(printed[1]).toMatch(/^time per step\s+118\.4 µs\s+at most 30\.0 µs\s+NOT MET\s+issue 9$/)
    expect(printed[2]).toMatch(/^faster than the AI SDK\s+6\.25x\s+at least 5\.00x\s+met\s+issue 22$/)
    expect(printed[3]).toMatch(/^skipped\s+—\s+at least 50\.0x\s+not measured\s+issue 22$/)
  })
})
