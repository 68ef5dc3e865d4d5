/**
 * What a store tells of its sessions, for `agent sessions` and the run inspector: an unfinished run is
 * live while a process holds the store and resumable once none does (a killed process's included), its
 * retries counted as they happen, its progress read from the journal and log; a page of many sessions;
 * a stop asked from another process; a running session's history. Real files and real processes
 * (tests/fixtures/storeProcess.ts); waits on what a process prints, with generous bounds.
 */
import { DurableSessions, Engine, EventLog } from "@agent-kernel/durable"
import { Content, type ModelProvider, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { settle } from "./eventLoop.js"

const root = path.resolve(import.meta.dirname, "../../..")
const fixture = path.join(import.meta.dirname, "fixtures", "storeProcess.ts")

const store = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "durable-status-")), "agent.db")

interface Child {
  readonly child: ChildProcess
  /** Resolves once the process has printed `line`. */
  readonly printed: (line: string) => Promise<void>
  readonly exited: Promise<number | null>
}

const storeProcess = (mode: "hang" | "hold" | "wait", file: string): Child => {
  const child = spawn(process.execPath, ["--import", "tsx", fixture, mode, file], {
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  const waiting: Array<() => void> = []
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk
    for (const check of waiting) check()
  })
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  const printed = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => stdout.split("\n").includes(line) && resolve()
      waiting.push(check)
      check()
      const timer = setTimeout(
        () => reject(new Error(`no "${line}" after 60 s; stdout:\n${stdout}\nstderr:\n${stderr}`)),
        60_000
      )
      timer.unref()
      void exited.then(() =>
        setTimeout(() => reject(new Error(`exited without "${line}"; stdout:\n${stdout}\nstderr:\n${stderr}`)), 100)
      )
    })
  return { child, printed, exited }
}

/** Until `check` holds, read again every 20 ms; a failure after 60 s of real time (a loaded machine's bound). */
const until = async (check: () => Promise<boolean>): Promise<void> => {
  const start = performance.now()
  while (!(await check())) {
    if (performance.now() - start > 60_000) throw new Error("never held")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const read = <A, E>(file: string, effect: Effect.Effect<A, E, import("effect/sql/SqlClient").SqlClient>) =>
  Effect.runPromise(Effect.provide(effect, Engine.layerSqliteReader(file)) as Effect.Effect<A, E | Engine.StoreError>)

describe("an unfinished run: live while a process holds the store, resumable once none does", () => {
  it("a killed process's run: listed resumable with the retry it spent, and its progress; live while it ran", async () => {
    const file = store()
    const owner = storeProcess("hang", file)
    await owner.printed("calling 2")
    // Read beside the live owner, without its lock: the run is live.
    const whileHeld = await read(file, DurableSessions.summaries)
    expect(whileHeld.map((s) => [s.id, s.status, s.unfinished, s.live, s.resumable, s.retries_used])).toEqual([
      ["s", "running", true, true, false, 1]
    ])
    // The log holds what the run waits on (written within moments of the call's start), then the kill.
    await until(async () => {
      const run = await read(file, DurableSessions.unfinished("s"))
      return Option.getOrUndefined(run)?.last_event?.event.type === "model_request"
    })
    owner.child.kill("SIGKILL")
    await owner.exited
    const listed = await read(file, DurableSessions.summaries)
    expect(listed.map((s) => [s.id, s.status, s.unfinished, s.live, s.resumable, s.retries_used])).toEqual([
      ["s", "running", true, false, true, 1]
    ])
    const run = Option.getOrThrow(await read(file, DurableSessions.unfinished("s")))
    expect({ ...run, began_at: 0, last_event: run.last_event?.event.type }).toEqual({
      run: 1,
      run_id: "s/run-1",
      input: "go",
      began_at: 0,
      turn: 1,
      model_calls: 1,
      tool_calls: 0,
      retries_used: 1,
      waiting_until: null,
      last_event: "model_request",
      live: false,
      paused: null
    })
    expect(run.began_at).toBeGreaterThan(0)
    // The reader wrote nothing and left nothing behind: the file alone.
    expect(fs.readdirSync(path.dirname(file)).filter((name) => name.startsWith("agent.db-"))).toEqual([])
  })

  it("a killed process's run in a retry wait: its deadline, as journaled", async () => {
    const file = store()
    const owner = storeProcess("wait", file)
    await owner.printed("calling 1")
    let deadline: number | null = null
    await until(async () => {
      deadline = Option.getOrUndefined(await read(file, DurableSessions.unfinished("s")))?.waiting_until ?? null
      return deadline !== null
    })
    owner.child.kill("SIGKILL")
    await owner.exited
    const run = Option.getOrThrow(await read(file, DurableSessions.unfinished("s")))
    expect([run.waiting_until, run.retries_used, run.model_calls, run.last_event?.event.type, run.live]).toEqual([
      deadline,
      1,
      1,
      "retry_scheduled",
      false
    ])
    expect(run.waiting_until! - run.began_at).toBeGreaterThanOrEqual(60_000)
  })

  it("a reader of a store that is not there, or of a file that is no store, says so and creates nothing", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "durable-status-"))
    const missing = await Effect.runPromise(
      Effect.flip(Effect.scoped(Layer.build(Engine.layerSqliteReader(path.join(dir, "missing.db")))))
    )
    expect([missing.reason, missing.message]).toEqual([
      "missing",
      `there is no session store at ${path.join(dir, "missing.db")}`
    ])
    const empty = path.join(dir, "empty.db")
    fs.writeFileSync(empty, "")
    const notAStore = await Effect.runPromise(Effect.flip(Effect.scoped(Layer.build(Engine.layerSqliteReader(empty)))))
    expect([notAStore.reason, notAStore.message]).toEqual([
      "foreign",
      `${empty} is not an agent-kernel session store (it has no sessions table): it is left as it is`
    ])
    expect(fs.readdirSync(dir)).toEqual(["empty.db"])
  })

  it("a stop asked from another process: the owner stops the run as Ctrl-C would, and the log says so", async () => {
    const file = store()
    const owner = storeProcess("hang", file)
    await owner.printed("calling 2")
    expect(await read(file, DurableSessions.requestStop("s"))).toBe(true)
    await owner.printed("ran interrupted")
    expect(await owner.exited).toBe(0)
    const listed = await Effect.runPromise(Effect.provide(DurableSessions.summaries, Engine.layerSqliteStore(file)))
    expect(listed.map((s) => [s.status, s.unfinished, s.run_status])).toEqual([["interrupted", false, "interrupted"]])
    const logged = await read(file, EventLog.events("s"))
    const ended = logged[logged.length - 1]?.event
    expect(ended?.type === "run_ended" && ended.status).toBe("interrupted")
    expect(await read(file, DurableSessions.requestStop("s"))).toBe(false)
    const nobody = await Effect.runPromise(
      Effect.flip(Effect.provide(DurableSessions.requestStop("nobody"), Engine.layerSqliteReader(file)))
    )
    expect(nobody).toEqual(new DurableSessions.SessionNotFound({ session_id: "nobody" }))
  })
})

const settings: Settings.Settings = {
  ...Settings.defaults,
  jitter: "none",
  max_session_retries: 3,
  session_retries_refill: false
}

const hang: ScriptedModel.Step = () => Effect.never as Effect.Effect<ModelProvider.ModelResponse>

const echo: Toolbox.Service = {
  definitions: Effect.succeed([]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, "ok"))
}

const sessionsOn = (file: string, model: ScriptedModel.ScriptedModel) =>
  DurableSessions.layer({ model: "m", settings }).pipe(
    Layer.provideMerge(Engine.layerSqlite(file)),
    Layer.provide(model.layer),
    Layer.provide(Toolbox.layer(echo))
  )

describe("the service's view of its sessions", () => {
  it.live("a running session's history as its run has it, and interrupt stops the run", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.toolCalls({ id: "a", name: "echo", input: 1 }), hang])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const caller = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* settle(Effect.map(model.calls, (calls) => calls.length >= 2))
        const history = yield* sessions.history("s")
        expect(history.map((message) => message.role)).toEqual(["user", "assistant", "user"])
        expect(yield* sessions.list).toMatchObject([{ id: "s", unfinished: true, live: true, resumable: false }])
        expect(yield* sessions.interrupt("s")).toBe(true)
        expect((yield* Fiber.join(caller)).status).toBe("interrupted")
        expect(yield* sessions.interrupt("s")).toBe(false)
        expect((yield* Effect.flip(sessions.history("nobody")))._tag).toBe("SessionNotFound")
      }).pipe(Effect.provide(sessionsOn(store(), model)), Effect.scoped)
    })
  )

  it.live("a run's end records the budget's retries left", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 10 }),
        ScriptedModel.text("ok")
      ])
      const listed = yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        yield* sessions.run("s", "go")
        return yield* sessions.list
      }).pipe(Effect.provide(sessionsOn(store(), model)), Effect.scoped)
      expect(listed.map((s) => [s.retries_used, s.retries_left, s.run_status, s.resumable])).toEqual([
        [1, 2, "completed", false]
      ])
      expect(listed[0]!.last_seq).toBeGreaterThan(0)
    })
  )

  it.live("a page of sessions: newest first, a search, a state, offset and limit, and how many match", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make(Array.from({ length: 12 }, (_, i) => ScriptedModel.text(`answer ${i}`)))
      const file = store()
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        for (let i = 0; i < 12; i++) {
          yield* sessions.run(i % 3 === 0 ? `Support_${i}` : `ops-${i}`, "go")
          yield* Effect.sleep("2 millis")
        }
        yield* sessions.create("fresh", { history: [] })
        const all = yield* sessions.page({ limit: 5 })
        expect(all.total).toBe(13)
        expect(all.sessions.map((s) => s.id)).toEqual(["fresh", "ops-11", "ops-10", "Support_9", "ops-8"])
        const next = yield* sessions.page({ limit: 5, offset: 5 })
        expect(next.sessions.map((s) => s.id)).toEqual(["ops-7", "Support_6", "ops-5", "ops-4", "Support_3"])
        // Ignoring case; `_` is a letter, not a wildcard.
        const support = yield* sessions.page({ search: "support_" })
        expect([support.total, support.sessions.map((s) => s.id)]).toEqual([
          4,
          ["Support_9", "Support_6", "Support_3", "Support_0"]
        ])
        expect((yield* sessions.page({ search: "s_" })).total).toBe(0)
        expect((yield* sessions.page({ activity: "completed" })).total).toBe(12)
        expect((yield* sessions.page({ activity: "new" })).sessions.map((s) => s.id)).toEqual(["fresh"])
        expect((yield* sessions.page({ activity: "resumable" })).total).toBe(0)
      }).pipe(Effect.provide(sessionsOn(file, model)), Effect.scoped)
      // The same page read by another process, without an engine.
      const read = yield* DurableSessions.page({ activity: "completed", limit: 2 }).pipe(
        Effect.provide(Engine.layerSqliteReader(file))
      )
      expect([read.total, read.sessions.map((s) => s.id)]).toEqual([12, ["ops-11", "ops-10"]])
    })
  )
})
