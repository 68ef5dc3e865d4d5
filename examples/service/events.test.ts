import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as Events from "./internal/events.js"

describe("the event log's session of a run", () => {
  it("is the run id without its last /run-N", () => {
    expect(Events.sessionOfRunId("alpha/run-1")).toEqual(Option.some("alpha"))
    expect(Events.sessionOfRunId("a/run-2/run-12")).toEqual(Option.some("a/run-2"))
  })

  it("is none for a run id the kernel does not make", () => {
    expect(Events.sessionOfRunId("alpha")).toEqual(Option.none())
    expect(Events.sessionOfRunId("/run-1")).toEqual(Option.none())
    expect(Events.sessionOfRunId("alpha/run-x")).toEqual(Option.none())
  })

  it("numbers a run from its run id, the last /run-N", () => {
    expect(Events.runOfRunId("alpha/run-1")).toEqual(Option.some(1))
    expect(Events.runOfRunId("a/run-2/run-12")).toEqual(Option.some(12))
    expect(Events.runOfRunId("alpha")).toEqual(Option.none())
    expect(Events.runOfRunId("alpha/run-x")).toEqual(Option.none())
  })

  it("ends a followed stream at run_ended only", () => {
    expect(Events.endsRun("run_ended")).toBe(true)
    expect(Events.endsRun("turn_ended")).toBe(false)
    expect(Events.endsRun("run_started")).toBe(false)
  })
})
