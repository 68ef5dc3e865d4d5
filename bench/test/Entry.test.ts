import { describe, expect, it } from "@effect/vitest"
import * as Entry from "../src/Entry.js"

const section = (title: string): Entry.Section => ({ title, run: async () => [] })
const sections = [section("Loop cost per step"), section("Concurrent sessions"), section("Idle sessions")]

describe("Entry.parse", () => {
  it("reads --quick and every --only, in both spellings", () => {
    expect(Entry.parse(["--quick", "--only", "concurrent", "--only=idle"])).toEqual({
      quick: true,
      only: ["concurrent", "idle"]
    })
    expect(Entry.parse([])).toEqual({ quick: false, only: [] })
  })

  it("says what is wrong with an unknown argument or an --only without a word", () => {
    expect(Entry.parse(["--fast"])).toBe("unknown argument: --fast")
    expect(Entry.parse(["--only"])).toBe("--only needs a word of a section's title")
    expect(Entry.parse(["--only="])).toBe("--only needs a word of a section's title")
  })
})

describe("Entry.select", () => {
  it("keeps every section without --only", () => {
    expect(Entry.select(sections, [])).toBe(sections)
  })

  it("keeps the sections whose title has a word, in their own order, case ignored", () => {
    const chosen = Entry.select(sections, ["IDLE", "concurrent"])
    expect(typeof chosen === "string" ? chosen : chosen.map((each) => each.title)).toEqual([
      "Concurrent sessions",
      "Idle sessions"
    ])
  })

  it("names the titles when a word matches none, rather than running nothing", () => {
    const chosen = Entry.select(sections, ["concurent"])
    expect(chosen).toContain('no section\'s title contains "concurent"')
    expect(chosen).toContain("  Idle sessions")
  })
})
