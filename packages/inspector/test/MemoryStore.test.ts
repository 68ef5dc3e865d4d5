/**
 * The in-memory store over real kernel sessions: what any `InspectorStore`
 * promises (sequence numbers, the live follow without duplicates or gaps,
 * resume and interrupt, a store that goes away) and its snapshots.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { InspectorStore } from "../src/index.js"
import { MemoryStore } from "../src/testing/index.js"
import * as Lab from "./support/lab.js"

const answer = "Streaming answer, four characters at a time, slow enough to be followed while it arrives."

const streamed: Lab.Scenario = { plan: { steps: [Lab.slowAnswer(answer, 1), { kind: "reply", text: "second" }] } }
const crashing: Lab.Scenario = {
  plan: { steps: [{ kind: "hang" }, { kind: "reply", text: "finished after the resume" }] }
}

const seqs = (events: ReadonlyArray<InspectorStore.LoggedEvent>) => events.map((logged) => logged.seq)
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

/** The first event of a type, as the store follows it. */
const firstOf = (store: InspectorStore.Service, id: string, type: string) =>
  store.follow(id, 0).pipe(
    Stream.filter((logged) => logged.event.type === type),
    Stream.runHead,
    Effect.map(Option.getOrThrow)
  )

describe("the in-memory store", () => {
  it.live("numbers each session's events from 1, with no gap, across runs; reads them by range", () =>
    Effect.gen(function* () {
      const lab = yield* Lab.make({ s: streamed })
      yield* lab.memory.run("s", "first")
      yield* lab.memory.run("s", "second")
      const all = yield* lab.memory.store.events("s", { after: 0, limit: 100_000 })
      expect(seqs(all)).toEqual(range(1, all.length))
      const detail = yield* lab.memory.store.session("s")
      expect(detail.runs.map((run) => [run.index, run.run_id, run.status, run.first_seq])).toEqual([
        [1, "s/run-1", "completed", 1],
        [2, "s/run-2", "completed", detail.runs[0]!.last_seq + 1]
      ])
      expect(detail.runs[1]!.last_seq).toBe(all.length)
      expect(detail.summary).toMatchObject({
        id: "s",
        status: "completed",
        run_status: "completed",
        runs: 2,
        messages: 4
      })
      const window = yield* lab.memory.store.events("s", { after: 3, until: 9, limit: 4 })
      expect(seqs(window)).toEqual([4, 5, 6, 7])
      const quiet = yield* lab.memory.store.events("s", { after: 0, limit: 100_000, omitDeltas: true })
      expect(quiet.some((logged) => logged.event.type === "text_delta")).toBe(false)
      expect(quiet.length).toBeLessThan(all.length)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live("follow: what is stored after `after`, then each new event once, for followers joining at any point", () =>
    Effect.gen(function* () {
      const lab = yield* Lab.make({ s: streamed })
      const untilEnd = (after: number) =>
        lab.memory.store.follow("s", after).pipe(
          Stream.takeUntil((logged) => logged.event.type === "run_ended"),
          Stream.runCollect
        )
      yield* lab.memory.start("s", "go")
      const early = yield* Effect.forkChild(untilEnd(0), { startImmediately: true })
      const delta = yield* firstOf(lab.memory.store, "s", "text_delta")
      const late = yield* Effect.forkChild(untilEnd(delta.seq + 2), { startImmediately: true })
      const fromStart = yield* Fiber.join(early)
      const fromMiddle = yield* Fiber.join(late)
      const log = yield* lab.memory.store.events("s", { after: 0, limit: 100_000 })
      expect(seqs(fromStart)).toEqual(seqs(log))
      expect(seqs(fromMiddle)).toEqual(range(delta.seq + 3, log.length))
      const text = fromStart
        .flatMap((logged) => (logged.event.type === "text_delta" ? [logged.event.text] : []))
        .join("")
      expect(text).toBe(answer)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live("a crash leaves the run resumable; resume finishes the same run, its events going on in sequence", () =>
    Effect.gen(function* () {
      const lab = yield* Lab.make({ c: crashing })
      yield* lab.memory.start("c", "finish me")
      // The server holds the request: the process dies with the call in flight.
      yield* (yield* lab.server("c")).awaitRequests(1)
      yield* lab.memory.crash("c")
      const left = yield* lab.memory.store.session("c")
      expect(left.summary.status).toBe("resumable")
      expect(left.runs.map((run) => run.status)).toEqual([null])
      const refused = yield* Effect.flip(lab.memory.store.interrupt("c"))
      expect(refused._tag).toBe("ActionRefused")

      yield* lab.memory.store.resume("c")
      const outcome = yield* lab.memory.await("c")
      expect(Option.map(outcome, (o) => [o.status, o.final_text])).toEqual(
        Option.some(["completed", "finished after the resume"])
      )
      const log = yield* lab.memory.store.events("c", { after: 0, limit: 100_000 })
      expect(seqs(log)).toEqual(range(1, log.length))
      const detail = yield* lab.memory.store.session("c")
      expect(detail.runs.map((run) => [run.run_id, run.status, run.first_seq, run.last_seq])).toEqual([
        ["c/run-1", "completed", 1, log.length]
      ])
      expect(detail.summary.status).toBe("completed")
      expect(log.filter((logged) => logged.event.type === "run_started")).toHaveLength(2)
      expect((yield* (yield* lab.server("c")).requests).length).toBe(2)
      const again = yield* Effect.flip(lab.memory.store.resume("c"))
      expect(again).toMatchObject({ _tag: "ActionRefused", action: "resume" })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live("interrupt: the tool call in flight gets an error result and the run ends interrupted", () =>
    Effect.gen(function* () {
      const lab = yield* Lab.make({ h: Lab.hangingTool })
      yield* lab.memory.start("h", "deploy it")
      const started = yield* firstOf(lab.memory.store, "h", "tool_call_started")
      expect((yield* lab.memory.store.session("h")).summary.status).toBe("running")
      yield* lab.memory.store.interrupt("h")
      const detail = yield* lab.memory.store.session("h")
      expect(detail.summary).toMatchObject({ status: "interrupted", run_status: "interrupted" })
      const history = yield* lab.memory.store.history("h")
      const results = history.flatMap((message) =>
        message.content.flatMap((block) => (block.type === "tool_result" ? [block] : []))
      )
      expect(results).toEqual([
        expect.objectContaining({
          tool_use_id: started.event.type === "tool_call_started" ? started.event.id : "",
          is_error: true
        })
      ])
      const log = yield* lab.memory.store.events("h", { after: 0, limit: 100_000 })
      expect(log.at(-1)?.event).toMatchObject({ type: "run_ended", status: "interrupted" })
      const refused = yield* Effect.flip(lab.memory.store.interrupt("h"))
      expect(refused).toMatchObject({ _tag: "ActionRefused", action: "interrupt" })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live("a store that goes away: reads fail with its message, a follower ends with it; back, it answers again", () =>
    Effect.gen(function* () {
      const lab = yield* Lab.make({ s: streamed })
      yield* lab.memory.run("s", "go")
      const follower = yield* Effect.forkChild(Stream.runDrain(lab.memory.store.follow("s", 0)), {
        startImmediately: true
      })
      yield* lab.memory.goAway("the store file was deleted")
      const exit = yield* Fiber.await(follower)
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("the store file was deleted")
      const failed = yield* Effect.flip(lab.memory.store.sessions({ offset: 0, limit: 10 }))
      expect(failed).toMatchObject({ _tag: "StoreUnavailable", message: "the store file was deleted" })
      yield* lab.memory.comeBack
      expect((yield* lab.memory.store.sessions({ offset: 0, limit: 10 })).total).toBe(1)
      const missing = yield* Effect.flip(lab.memory.store.session("nobody"))
      expect(missing.message).toBe('no session "nobody" in the store')
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live("a snapshot holds the recorded sessions; a corrupt or foreign one is refused with what it is not", () =>
    Effect.gen(function* () {
      const lab = yield* Lab.make({ s: streamed })
      yield* lab.memory.run("s", "go")
      const json = yield* lab.memory.toSnapshot
      const copy = yield* MemoryStore.make(MemoryStore.noSessions)
      expect(yield* copy.addSnapshot(json)).toBe(1)
      expect(yield* copy.store.session("s")).toEqual(yield* lab.memory.store.session("s"))
      expect(yield* copy.store.events("s", { after: 0, limit: 100_000 })).toEqual(
        yield* lab.memory.store.events("s", { after: 0, limit: 100_000 })
      )
      for (const bad of ["{not json", JSON.stringify({ format: "agent-kernel/session@1", id: "x", state: {} })]) {
        const refused = yield* Effect.flip(copy.addSnapshot(bad))
        expect(refused._tag).toBe("StoreUnavailable")
        expect(refused.message).toMatch(/^not an agent-kernel inspector snapshot \(/)
      }
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live("the sessions list: newest activity first, search by id, filter by status, paging", () =>
    Effect.gen(function* () {
      const lab = yield* Lab.make({ alpha: streamed, beta: streamed, "Gamma-1": crashing })
      yield* lab.memory.run("alpha", "go")
      yield* lab.memory.run("beta", "go")
      yield* lab.memory.start("Gamma-1", "go")
      yield* (yield* lab.server("Gamma-1")).awaitRequests(1)
      const all = yield* lab.memory.store.sessions({ offset: 0, limit: 10 })
      expect(all.sessions.map((s) => [s.id, s.status])).toEqual([
        ["Gamma-1", "running"],
        ["beta", "completed"],
        ["alpha", "completed"]
      ])
      expect((yield* lab.memory.store.sessions({ offset: 1, limit: 1 })).sessions.map((s) => s.id)).toEqual(["beta"])
      const found = yield* lab.memory.store.sessions({ search: "gamma", offset: 0, limit: 10 })
      expect([found.total, found.sessions.map((s) => s.id)]).toEqual([1, ["Gamma-1"]])
      const done = yield* lab.memory.store.sessions({ status: "completed", offset: 0, limit: 10 })
      expect(done.total).toBe(2)
      expect(all.sessions[1]).toMatchObject({ runs: 1, retries_used: 0, retries_left: 10, messages: 2 })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )
})
