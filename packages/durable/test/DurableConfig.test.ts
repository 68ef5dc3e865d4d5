/**
 * A durable session takes what `Session.make` takes, with the same meaning: a retry policy, request
 * options, a wrapper of the live effects and a live event stream, also for a run a second process
 * resumes after a crash; a first history or state through `create`. Real SQLite files; the crash is
 * the engine torn down under a run (real time, short waits, generous bounds).
 */
import { type AgentRun, DurableSessions, Engine } from "@agent-kernel/durable"
import {
  Content,
  type KernelEvent,
  type ModelProvider,
  RetryPolicy,
  Session,
  Settings,
  Toolbox
} from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const settings: Settings.Settings = { ...Settings.defaults, jitter: "none", max_retries: 5 }

const store = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "durable-config-")), "agent.db")

const processOn = (file: string, model: ScriptedModel.ScriptedModel, config: Partial<AgentRun.Config> = {}) =>
  DurableSessions.layer({ model: "m", settings, ...config }).pipe(
    Layer.provideMerge(Engine.layerSqlite(file)),
    Layer.provide(model.layer),
    Layer.provide(Toolbox.layer(Toolbox.empty))
  )

/** Starts `run(id, input)` on `layer` as a process would, and returns the crash that tears the engine down under it. */
const crashable = <A, E>(layer: Layer.Layer<A | DurableSessions.DurableSessions, E>, id: string, input: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, scope)
    yield* Effect.forkDetach(
      Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run(id, input)).pipe(
        Effect.provide(context)
      )
    )
    return Scope.close(scope, Exit.void)
  })

/** Real time passes here; the bound is generous. */
const until = <A>(check: Effect.Effect<A>, done: (a: A) => boolean) =>
  Effect.repeat(check, { until: done, schedule: Schedule.spaced(Duration.millis(20)) }).pipe(
    Effect.timeoutOrElse({ duration: Duration.seconds(30), orElse: () => Effect.fail(new Error("timed out waiting")) })
  )

const overloaded = ScriptedModel.error("overloaded")
const hang: ScriptedModel.Step = () => Effect.never as Effect.Effect<ModelProvider.ModelResponse>

/** One retry, 20 ms after the error: the settings alone would allow five. */
const oneRetry: RetryPolicy.RetryPolicy = Schedule.spaced("20 millis").pipe(RetryPolicy.upTo(1))

describe("a durable session takes what Session.make takes", () => {
  it.live("a custom retry policy decides the retries, also in the run a second process resumes", () =>
    Effect.gen(function* () {
      // In one process: the policy's one retry, then the run ends, where the settings would retry on.
      const first = yield* ScriptedModel.make([overloaded, overloaded, ScriptedModel.text("too late")])
      const outcome = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
        sessions.run("s", "go")
      ).pipe(Effect.provide(processOn(store(), first, { policy: oneRetry })), Effect.scoped)
      expect([outcome.status, (yield* first.calls).length]).toEqual(["retries_exhausted", 2])

      // A crash during the retried call; the next process, given the same policy, ends the run by it.
      const file = store()
      const crashed = yield* ScriptedModel.make([overloaded, hang])
      const crash = yield* crashable(processOn(file, crashed, { policy: oneRetry }), "s", "go")
      yield* until(crashed.calls, (calls) => calls.length >= 2)
      yield* crash
      const next = yield* ScriptedModel.make([overloaded, ScriptedModel.text("too late")])
      const resumed = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("s")).pipe(
        Effect.provide(processOn(file, next, { policy: oneRetry })),
        Effect.scoped
      )
      expect(Option.map(resumed, (run) => [run.status, run.retries.max_per_call])).toEqual(
        Option.some(["retries_exhausted", 1])
      )
      // The call in flight was sent again, and failed: no second retry.
      expect((yield* next.calls).length).toBe(1)
    })
  )

  it.live("request options reach every model request, in a resumed run too", () =>
    Effect.gen(function* () {
      const file = store()
      const request: ModelProvider.RequestOptions = { temperature: 0.2, stop_sequences: ["END"] }
      const crashed = yield* ScriptedModel.make([hang])
      const crash = yield* crashable(processOn(file, crashed, { request }), "s", "go")
      yield* until(crashed.calls, (calls) => calls.length >= 1)
      yield* crash
      const next = yield* ScriptedModel.make([ScriptedModel.text("done")])
      yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("s")).pipe(
        Effect.provide(processOn(file, next, { request })),
        Effect.scoped
      )
      const sent = [...(yield* crashed.calls), ...(yield* next.calls)]
      expect(sent.map((call) => [call.request.temperature, call.request.stop_sequences])).toEqual([
        [0.2, ["END"]],
        [0.2, ["END"]]
      ])
    })
  )

  it.live("a wrapper of the live effects wraps them inside the journal: a replayed step does not call it", () =>
    Effect.gen(function* () {
      const file = store()
      const wrapped: Array<string> = []
      const effects = (live: Session.Effects): Session.Effects => ({
        ...live,
        model: (request, info) =>
          Effect.andThen(
            Effect.sync(() => wrapped.push(`model ${info.turn}/${info.attempt}`)),
            live.model(request, info)
          )
      })
      const crashed = yield* ScriptedModel.make([overloaded, hang])
      const crash = yield* crashable(processOn(file, crashed, { effects }), "s", "go")
      yield* until(crashed.calls, (calls) => calls.length >= 2)
      yield* crash
      expect(wrapped).toEqual(["model 1/1", "model 1/2"])
      const next = yield* ScriptedModel.make([ScriptedModel.text("done")])
      const resumed = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("s")).pipe(
        Effect.provide(processOn(file, next, { effects })),
        Effect.scoped
      )
      expect(Option.map(resumed, (run) => run.status)).toEqual(Option.some("completed"))
      // The journaled attempt 1 was answered from the journal; only the one in flight ran again.
      expect(wrapped).toEqual(["model 1/1", "model 1/2", "model 1/2"])
    })
  )

  it.live("subscribe streams a session's events, across its runs and a resume, replayed steps not again", () =>
    Effect.gen(function* () {
      const file = store()
      const typesOf = (events: ReadonlyArray<KernelEvent.KernelEvent>) => events.map((event) => event.type)
      // A first run, streamed to a subscriber as a plain session's subscriber gets it.
      const first = yield* ScriptedModel.make([ScriptedModel.text("one")])
      const streamed = yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const stream = yield* sessions.subscribe("s")
        const reader = yield* Effect.forkChild(
          Stream.runCollect(Stream.takeUntil(stream, (event) => event.type === "run_ended"))
        )
        yield* sessions.run("s", "first")
        return yield* Fiber.join(reader)
      }).pipe(
        Effect.provide(processOn(file, first, { subscriberCapacity: Session.SubscriberCapacity.make(4) })),
        Effect.scoped
      )
      const plain = yield* ScriptedModel.make([ScriptedModel.text("one")])
      const expected = yield* Effect.gen(function* () {
        const session = yield* Session.make({ model: "m", settings })
        const stream = yield* session.subscribe
        const reader = yield* Effect.forkChild(
          Stream.runCollect(Stream.takeUntil(stream, (event) => event.type === "run_ended"))
        )
        yield* session.run("first")
        return yield* Fiber.join(reader)
      }).pipe(Effect.provide(plain.layer), Effect.scoped)
      expect(typesOf(streamed)).toEqual(typesOf(expected))

      // A second run crashes after a failed attempt; the resume's subscriber sees what runs after the journal
      // only (as the run's observers do: the call in flight is sent again, its answer streamed).
      const crashed = yield* ScriptedModel.make([overloaded, hang])
      const crash = yield* crashable(processOn(file, crashed), "s", "second")
      yield* until(crashed.calls, (calls) => calls.length >= 2)
      yield* crash
      const next = yield* ScriptedModel.make([ScriptedModel.text("two")])
      const resumedEvents = yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const stream = yield* sessions.subscribe("s")
        const reader = yield* Effect.forkChild(
          Stream.runCollect(Stream.takeUntil(stream, (event) => event.type === "run_ended"))
        )
        yield* sessions.resume("s")
        return yield* Fiber.join(reader)
      }).pipe(Effect.provide(processOn(file, next)), Effect.scoped)
      expect(typesOf(resumedEvents)).toEqual(["text_delta", "model_response", "turn_ended", "run_ended"])
    })
  )

  it.live("create starts a session from a history, or from a whole state, as Session.make does", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.text("again"), ScriptedModel.text("more")])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const history = [Content.userText("earlier"), { role: "assistant" as const, content: [Content.text("noted")] }]
        yield* sessions.create("h", { history })
        const outcome = yield* sessions.run("h", "next")
        expect(outcome.history.map(Content.textOf)).toEqual(["earlier", "noted", "next", "again"])
        expect(outcome.run_id).toBe("h/run-1")
        const state = Option.getOrThrow(yield* sessions.state("h"))
        yield* sessions.create("copy", { state })
        const copied = yield* sessions.run("copy", "and then")
        expect(copied.run_id).toBe("copy/run-2")
        expect(copied.history.map(Content.textOf)).toEqual(["earlier", "noted", "next", "again", "and then", "more"])
        const exists = yield* Effect.flip(sessions.create("h", { history }))
        expect(exists).toEqual(new DurableSessions.SessionExists({ session_id: "h" }))
      }).pipe(Effect.provide(processOn(store(), model)), Effect.scoped)
    })
  )
})

describe("the unfinished run, read without an engine", () => {
  it.live(
    "pending gives the payload of the run a crash left (session, life, run, input), none once it is finished",
    () =>
      Effect.gen(function* () {
        const file = store()
        const crashed = yield* ScriptedModel.make([hang])
        const crash = yield* crashable(processOn(file, crashed), "s", "go")
        yield* until(crashed.calls, (calls) => calls.length >= 1)
        yield* crash
        const pending = yield* DurableSessions.pending("s").pipe(Effect.provide(Engine.layerSqliteStore(file)))
        expect(
          Option.map(pending, (payload) => [payload.session_id, payload.run, Content.textOf(payload.input)])
        ).toEqual(Option.some(["s", 1, "go"]))
        expect(Option.map(pending, (payload) => typeof payload.life)).toEqual(Option.some("string"))
        const next = yield* ScriptedModel.make([ScriptedModel.text("done")])
        yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("s")).pipe(
          Effect.provide(processOn(file, next)),
          Effect.scoped
        )
        expect(yield* DurableSessions.pending("s").pipe(Effect.provide(Engine.layerSqliteStore(file)))).toEqual(
          Option.none()
        )
      })
  )
})
