/**
 * The inspector over the embedded durable store: a real SQLite file written
 * by real durable runs (the fake provider over HTTP), read by the adapter's
 * reader layer beside its live owner, as `agent ui --session FILE` reads a
 * running `agent --session FILE`: the sessions and their status, a session's
 * runs, history and events, a live run followed as it is logged, a stop asked
 * of the owner, and the store's failures as typed errors.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { Content } from "@agent-kernel/kernel"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import { DatabaseSync } from "node:sqlite"
import * as os from "node:os"
import * as path from "node:path"
import { DurableStore } from "../src/durable/index.js"
import { InspectorStore } from "../src/index.js"
import { answer, happyProvider, heldProvider, owner, rateLimitedProvider, until } from "./support/durable.js"

const storeFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "inspector-durable-")), "agent.db")

/** The adapter's store over the file, read beside its owner, for the life of the scope. */
const reader = (file: string, options: DurableStore.Options = {}) =>
  Effect.map(Layer.build(DurableStore.layerSqlite(file, { pollInterval: "50 millis", ...options })), (context) =>
    Context.get(context, InspectorStore.InspectorStore)
  )

const seqs = (events: ReadonlyArray<InspectorStore.LoggedEvent>) => events.map((logged) => logged.seq)
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

const statusOf = (store: InspectorStore.Service, id: string) =>
  Effect.map(store.session(id), (detail) => detail.summary.status)

/**
 * A crashed session: an owner of the file starts a run of each id, its model
 * calls held, and is closed once each run's start is in the log (a crash loses
 * what was not written yet). The held provider and a reader of the file are
 * returned.
 */
const crashedSession = (file: string, ids: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const held = yield* heldProvider
    const crashed = yield* owner(Engine.layerSqlite(file), held.url)
    for (const id of ids) {
      yield* crashed.start(id, "go")
    }
    yield* held.awaitRequests(ids.length)
    const store = yield* reader(file)
    for (const id of ids) {
      yield* until(store.events(id, { after: 0, limit: 10 }), (events) => events.length > 0)
    }
    yield* crashed.close
    return { held, store }
  })

describe("the durable adapter on the embedded store", () => {
  it.live("reads a store beside its live owner: sessions, a session's runs, history and events", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const file = storeFile()
        const provider = yield* happyProvider
        const process = yield* owner(Engine.layerSqlite(file), provider.url)
        yield* process.run("alpha", "first")
        yield* process.run("alpha", "second")
        yield* process.run("beta", "hello")
        const store = yield* reader(file)

        const page = yield* store.sessions({ offset: 0, limit: 10 })
        expect(page.total).toBe(2)
        expect(page.sessions.map((s) => [s.id, s.status, s.run_status, s.runs, s.messages])).toEqual([
          ["beta", "completed", "completed", 1, 2],
          ["alpha", "completed", "completed", 2, 4]
        ])
        expect(page.sessions[1]!.retries_used).toBe(0)
        const searched = yield* store.sessions({ search: "ALP", offset: 0, limit: 10 })
        expect(searched.sessions.map((s) => s.id)).toEqual(["alpha"])
        expect((yield* store.sessions({ status: "running", offset: 0, limit: 10 })).total).toBe(0)

        const detail = yield* store.session("alpha")
        expect(detail.runs.map((run) => [run.index, run.run_id, run.status, run.input])).toEqual([
          [1, "alpha/run-1", "completed", "first"],
          [2, "alpha/run-2", "completed", "second"]
        ])
        expect(detail.runs[1]!.first_seq).toBe(detail.runs[0]!.last_seq + 1)
        const all = yield* store.events("alpha", { after: 0, limit: 10_000 })
        expect(seqs(all)).toEqual(range(1, detail.runs[1]!.last_seq))
        const window = yield* store.events("alpha", { after: 2, until: 5, limit: 2 })
        expect(seqs(window)).toEqual([3, 4])
        const quiet = yield* store.events("alpha", { after: 0, limit: 10_000, omitDeltas: true })
        expect(quiet.some((logged) => logged.event.type === "text_delta")).toBe(false)
        expect(all.some((logged) => logged.event.type === "text_delta")).toBe(true)

        const history = yield* store.history("alpha")
        expect(history.map((message) => [message.role, Content.textOf(message)])).toEqual([
          ["user", "first"],
          ["assistant", answer],
          ["user", "second"],
          ["assistant", answer]
        ])

        // An unknown session, and actions that do not apply, are typed errors.
        const unknown: ReadonlyArray<
          Effect.Effect<unknown, InspectorStore.SessionNotFound | InspectorStore.StoreUnavailable>
        > = [store.session("nobody"), store.history("nobody"), store.events("nobody", { after: 0, limit: 5 })]
        for (const read of unknown) {
          expect(yield* Effect.flip(read)).toEqual(new InspectorStore.SessionNotFound({ session_id: "nobody" }))
        }
        const followed = yield* Effect.flip(Stream.runDrain(store.follow("nobody", 0)))
        expect(followed).toEqual(new InspectorStore.SessionNotFound({ session_id: "nobody" }))
        const resume = yield* Effect.flip(store.resume("alpha"))
        expect(resume).toEqual(
          new InspectorStore.ActionRefused({
            session_id: "alpha",
            action: "resume",
            reason: "it has no unfinished run (it is completed)"
          })
        )
        const interrupt = yield* Effect.flip(store.interrupt("alpha"))
        expect(interrupt._tag).toBe("ActionRefused")
      })
    )
  )

  it.live("follows a live run of the owner as it is logged, and stops another through the owner", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const file = storeFile()
        const provider = yield* heldProvider
        const process = yield* owner(Engine.layerSqlite(file), provider.url)
        yield* process.start("followed", "go")
        yield* process.start("stopped", "go")
        yield* provider.awaitRequests(2)
        const store = yield* reader(file)
        yield* until(statusOf(store, "followed"), (status) => status === "running")
        expect(yield* statusOf(store, "stopped")).toBe("running")

        // The follower starts while the answers are held: what it reads after the release was logged after it began.
        const seen: Array<InspectorStore.LoggedEvent> = []
        const follower = yield* Effect.forkChild(
          store.follow("followed", 0).pipe(
            Stream.takeUntil((logged) => logged.event.type === "run_ended"),
            Stream.runForEach((logged) => Effect.sync(() => void seen.push(logged)))
          )
        )
        yield* until(
          Effect.sync(() => seen.length),
          (n) => n > 0
        )
        expect(seen.some((logged) => logged.event.type === "run_ended")).toBe(false)

        // Interrupt: the owner is asked, stops the run as Ctrl-C does, and the adapter returns once it ended.
        yield* store.interrupt("stopped")
        const stopped = yield* store.session("stopped")
        expect([stopped.summary.status, stopped.summary.run_status]).toEqual(["interrupted", "interrupted"])
        expect(stopped.runs.map((run) => run.status)).toEqual(["interrupted"])
        const stoppedEnd = (yield* store.events("stopped", { after: 0, limit: 1_000 })).at(-1)?.event
        expect(stoppedEnd).toMatchObject({ type: "run_ended", status: "interrupted" })
        expect(yield* Effect.flip(store.interrupt("stopped"))).toEqual(
          new InspectorStore.ActionRefused({
            session_id: "stopped",
            action: "interrupt",
            reason: "it has no run in progress (it is interrupted)"
          })
        )

        yield* provider.release
        yield* Fiber.join(follower)
        expect(seqs(seen)).toEqual(range(1, seen.length))
        expect(seen.some((logged) => logged.event.type === "text_delta")).toBe(true)
        expect(seen.at(-1)!.event).toMatchObject({ type: "run_ended", status: "completed", final_text: answer })
        expect(yield* statusOf(store, "followed")).toBe("completed")
      })
    )
  )

  it.live(
    "a reader told how to resume finishes a run no live process holds; a resume failing at once is refused, saying why",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const file = storeFile()
          yield* crashedSession(file, ["crashed"])

          const failing = yield* reader(file, {
            resume: () => Effect.fail(new Error("the session store is in use by another process"))
          })
          expect(yield* Effect.flip(failing.resume("crashed"))).toEqual(
            new InspectorStore.ActionRefused({
              session_id: "crashed",
              action: "resume",
              reason: "the session store is in use by another process"
            })
          )
          expect(yield* statusOf(failing, "crashed")).toBe("resumable")

          // As agent ui does: the store's ownership taken for the run, let go when it ends.
          const happy = yield* happyProvider
          const resuming = yield* reader(file, {
            resume: (id) =>
              Effect.flatMap(owner(Engine.layerSqlite(file), happy.url), (taken) =>
                Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume(id)).pipe(
                  Effect.provide(taken.context),
                  Effect.ensuring(taken.close)
                )
              )
          })
          yield* resuming.resume("crashed")
          yield* until(statusOf(resuming, "crashed"), (status) => status === "completed")
          const events = yield* resuming.events("crashed", { after: 0, limit: 100 })
          expect(seqs(events)).toEqual(range(1, events.length))
          expect(events.filter((logged) => logged.event.type === "run_ended").map((logged) => logged.event)).toEqual([
            expect.objectContaining({ type: "run_ended", status: "completed", final_text: answer })
          ])
          // Let go once the run has ended: the store can be owned again.
          const again = Effect.exit(Effect.flatMap(owner(Engine.layerSqlite(file), happy.url), (next) => next.close))
          yield* until(again, Exit.isSuccess)
        })
      )
  )

  it.live(
    "a reader resumes one batch at a time: taking the store finishes every unfinished run of it, once each; another resume meanwhile is refused, naming them",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const file = storeFile()
          const { held } = yield* crashedSession(file, ["first", "second"])

          // As agent ui does: the store's ownership taken (its answers held), let go once every run it resumed ended.
          const given: Array<ReadonlyArray<string>> = []
          const resuming = yield* reader(file, {
            // The page is answered at once: the held runs log nothing new until released.
            resumeWait: "100 millis",
            resume: (_, runs) =>
              Effect.flatMap(owner(Engine.layerSqlite(file), held.url), (taken) =>
                Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
                  Effect.forEach(runs, (run) => sessions.resume(run), { concurrency: "unbounded" })
                ).pipe(
                  Effect.provide(taken.context),
                  Effect.ensuring(taken.close),
                  Effect.andThen(Effect.sync(() => given.push(runs)))
                )
              )
          })
          yield* resuming.resume("second")
          // Both runs' model calls are in flight again, once each.
          yield* held.awaitRequests(4)
          const busy = (id: string) =>
            new InspectorStore.ActionRefused({
              session_id: id,
              action: "resume",
              reason:
                "this inspector is resuming the runs of second, first (taking the store resumes all its unfinished runs): try again when they end"
            })
          expect(yield* Effect.flip(resuming.resume("first"))).toEqual(busy("first"))
          expect(yield* Effect.flip(resuming.resume("second"))).toEqual(busy("second"))

          yield* held.release
          // The one resume finishes both: the store is let go once both ended.
          yield* until(
            Effect.sync(() => given.length),
            (count) => count === 1
          )
          expect(given).toEqual([["second", "first"]])
          for (const id of ["first", "second"]) {
            expect(yield* statusOf(resuming, id)).toBe("completed")
            const events = yield* resuming.events(id, { after: 0, limit: 100 })
            expect(seqs(events)).toEqual(range(1, events.length))
            expect(events.filter((logged) => logged.event.type === "run_ended").map((logged) => logged.event)).toEqual([
              expect.objectContaining({ type: "run_ended", status: "completed", final_text: answer })
            ])
          }
          // Two calls cut off by the crash, and one each to finish: none sent again after.
          expect((yield* held.requests).length).toBe(4)
          const again = Effect.exit(Effect.flatMap(owner(Engine.layerSqlite(file), held.url), (next) => next.close))
          yield* until(again, Exit.isSuccess)
        })
      )
  )

  it.live("a paused run of a cluster's store is not resumed here: the refusal says who resumes it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const file = storeFile()
        const provider = yield* rateLimitedProvider
        const process = yield* owner(Engine.layerClusterSqlite(file), provider.url, {
          on_exhausted: "pause",
          max_retries: 1,
          base_delay_ms: 1
        })
        expect((yield* process.run("held", "go")).status).toBe("paused")
        const store = yield* reader(file)
        expect(yield* statusOf(store, "held")).toBe("paused")
        expect(yield* Effect.flip(store.resume("held"))).toEqual(
          new InspectorStore.ActionRefused({
            session_id: "held",
            action: "resume",
            reason:
              "a paused run of a cluster store is resumed by its runners at its resume_at, or by DurableSessions.resume in a process of the cluster: none runs here"
          })
        )
      })
    )
  )

  it.live("a paused run is listed paused with why and since when, and filtered as paused", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const file = storeFile()
        const provider = yield* rateLimitedProvider
        const process = yield* owner(Engine.layerSqlite(file), provider.url, {
          on_exhausted: "pause",
          max_retries: 1,
          base_delay_ms: 1
        })
        const outcome = yield* process.run("held", "go")
        expect(outcome.status).toBe("paused")
        const store = yield* reader(file)
        const page = yield* store.sessions({ status: "paused", offset: 0, limit: 10 })
        expect(page.sessions.map((s) => [s.id, s.status, s.paused?.reason, s.paused?.error?.category])).toEqual([
          ["held", "paused", "retries_exhausted", "rate_limited"]
        ])
        expect(page.sessions[0]!.paused?.paused_at).toBeGreaterThan(0)
        expect((yield* store.sessions({ status: "resumable", offset: 0, limit: 10 })).total).toBe(0)
        const events = yield* store.events("held", { after: 0, limit: 100 })
        expect(events.map((logged) => logged.event.type)).toContain("run_paused")
        const detail = yield* store.session("held")
        expect(detail.runs.map((run) => [run.status, run.paused?.reason])).toEqual([[null, "retries_exhausted"]])
      })
    )
  )

  it.live("a run its owner left unfinished is resumable; the reader refuses to resume it, saying how", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { store } = yield* crashedSession(storeFile(), ["crashed"])
        const detail = yield* store.session("crashed")
        expect([detail.summary.status, detail.summary.run_status]).toEqual(["resumable", null])
        expect(detail.runs.map((run) => [run.run_id, run.status])).toEqual([["crashed/run-1", null]])
        const resume = yield* Effect.flip(store.resume("crashed"))
        expect(resume._tag === "ActionRefused" && resume.reason).toMatch(/agent --session FILE --resume/)
        const interrupt = yield* Effect.flip(store.interrupt("crashed"))
        expect(interrupt._tag === "ActionRefused" && interrupt.reason).toBe(
          "it has no run in progress (it is resumable)"
        )
        const resumable = yield* store.sessions({ status: "resumable", offset: 0, limit: 10 })
        expect(resumable.sessions.map((s) => s.id)).toEqual(["crashed"])
      })
    )
  )

  it.live(
    "in the process that runs the sessions: a running session's history as its run has it; interrupt stops it here",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const file = storeFile()
          const provider = yield* heldProvider
          const process = yield* owner(Engine.layerSqlite(file), provider.url)
          const store = Context.get(
            yield* Layer.build(DurableStore.layerSessions().pipe(Layer.provide(process.sessions))),
            InspectorStore.InspectorStore
          )
          yield* process.start("here", "what now?")
          yield* provider.awaitRequests(1)
          yield* until(statusOf(store, "here"), (status) => status === "running")
          const history = yield* store.history("here")
          expect(history.map((message) => [message.role, Content.textOf(message)])).toEqual([["user", "what now?"]])
          yield* store.interrupt("here")
          const detail = yield* store.session("here")
          expect([detail.summary.status, detail.runs.map((run) => run.status)]).toEqual([
            "interrupted",
            ["interrupted"]
          ])
          expect(yield* Effect.flip(store.resume("here"))).toEqual(
            new InspectorStore.ActionRefused({
              session_id: "here",
              action: "resume",
              reason: "it has no unfinished run (it is interrupted)"
            })
          )
          yield* provider.release
        })
      )
  )

  it.live("a missing file, a file that is no store and a store deleted under a follower are StoreUnavailable", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "inspector-durable-"))
        const missing = path.join(dir, "missing.db")
        expect(yield* Effect.flip(reader(missing))).toEqual(
          new InspectorStore.StoreUnavailable({ message: `there is no session store at ${missing}` })
        )
        const text = path.join(dir, "notes.txt")
        fs.writeFileSync(text, "not a database, just some notes\n".repeat(200))
        const textError = yield* Effect.flip(reader(text))
        expect(textError._tag).toBe("StoreUnavailable")
        expect(textError.message).toContain(text)
        expect(textError.message).not.toContain("\n")
        const foreign = path.join(dir, "other.db")
        const database = new DatabaseSync(foreign)
        database.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hello')")
        database.close()
        expect(yield* Effect.flip(reader(foreign))).toEqual(
          new InspectorStore.StoreUnavailable({
            message: `${foreign} is not an agent-kernel session store (it has no sessions table): it is left as it is`
          })
        )

        const file = storeFile()
        const provider = yield* happyProvider
        const process = yield* owner(Engine.layerSqlite(file), provider.url)
        yield* process.run("s", "hello")
        yield* process.close
        const store = yield* reader(file)
        const last = (yield* store.session("s")).runs[0]!.last_seq
        const follower = yield* Effect.forkChild(Stream.runDrain(store.follow("s", last)))
        fs.rmSync(path.dirname(file), { recursive: true, force: true })
        const gone = yield* Effect.flip(Fiber.join(follower))
        expect(gone._tag).toBe("StoreUnavailable")
        expect(gone.message).toContain(file)
      })
    )
  )
})
