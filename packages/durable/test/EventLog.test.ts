/**
 * The persisted event log of durable sessions: each session's events in the store, numbered 1, 2, ...
 * across runs and resumes, with no event twice and none missing after a crash (the engine torn down
 * under a run, as a dying process's), agreeing with the store, read by sequence number and followed
 * live. Real SQLite files; a crash's test runs in real time with short waits and generous bounds.
 */
import { AgentRun, DurableSessions, Engine, EventLog } from "@agent-kernel/durable"
import { Content, EventBus, type KernelEvent, ModelProvider, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { endBesideAFlush, endOnlyWithItsRecord, flushThenRollBack } from "./logTransaction.js"

const settings: Settings.Settings = { ...Settings.defaults, jitter: "none" }

const store = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "durable-event-log-")), "agent.db")

const echo: Toolbox.Service = {
  definitions: Effect.succeed([]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, `did ${call.id}`))
}

type EngineOf = (file: string) => Layer.Layer<Engine.Engine, Engine.StoreError>

const processOn = (
  file: string,
  model: ScriptedModel.ScriptedModel,
  options: {
    readonly toolbox?: Toolbox.Service
    readonly engine?: EngineOf
    readonly observed?: Array<KernelEvent.KernelEvent>
    readonly observers?: ReadonlyArray<EventBus.Observer>
    readonly gate?: AgentRun.StepGate
  } = {}
) =>
  DurableSessions.layer({ model: "m", settings }).pipe(
    Layer.provideMerge((options.engine ?? Engine.layerSqlite)(file)),
    Layer.provide(options.gate === undefined ? Layer.empty : Layer.succeed(AgentRun.StepGate, options.gate)),
    Layer.provide(model.layer),
    Layer.provide(Toolbox.layer(options.toolbox ?? echo)),
    Layer.provide(
      EventBus.layer([
        ...(options.observed === undefined
          ? []
          : [{ onEvent: (event: KernelEvent.KernelEvent) => Effect.sync(() => void options.observed!.push(event)) }]),
        ...(options.observers ?? [])
      ])
    )
  )

/** Starts `run(id, input)` as a process would, and returns the crash that tears its engine down under it. */
const crashable = <A, E>(layer: Layer.Layer<A | DurableSessions.DurableSessions, E>, id: string, input: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, scope)
    yield* Effect.forkDetach(
      Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run(id, input)).pipe(
        Effect.provide(context)
      )
    )
    return { crash: Scope.close(scope, Exit.void), context }
  })

/** Real time passes here; the bound is generous. */
const until = <A, E>(check: Effect.Effect<A, E>, done: (a: A) => boolean) =>
  Effect.repeat(check, { until: done, schedule: Schedule.spaced(Duration.millis(10)) }).pipe(
    Effect.timeoutOrElse({ duration: Duration.seconds(30), orElse: () => Effect.die(new Error("timed out waiting")) })
  )

const hang: ScriptedModel.Step = () => Effect.never as Effect.Effect<ModelProvider.ModelResponse>

/** The log of session `id` in the store `file` (no process holds it). */
const logOf = (file: string, id = "s") =>
  EventLog.events(id, { limit: 100_000 }).pipe(Effect.provide(Engine.layerSqliteStore(file)))

/** An event as the tests compare it: its type and what tells it from the others of its turn, no times. */
const shape = (event: KernelEvent.KernelEvent): string => {
  const detail =
    "id" in event
      ? event.id
      : "text" in event
        ? event.text
        : "attempt" in event
          ? `#${event.attempt}`
          : event.type === "run_ended"
            ? event.status
            : ""
  return `${event.type}${"turn" in event ? `/${event.turn}` : ""}${detail === "" ? "" : `:${detail}`}`
}

/** Consecutive deltas of one model attempt as one, their text joined: what the log keeps of them. */
const joinDeltas = (events: ReadonlyArray<KernelEvent.KernelEvent>): Array<KernelEvent.KernelEvent> =>
  events.reduce<Array<KernelEvent.KernelEvent>>((joined, event) => {
    const last = joined[joined.length - 1]
    if (
      last !== undefined &&
      (event.type === "text_delta" || event.type === "thinking_delta") &&
      last.type === event.type &&
      last.turn === event.turn &&
      last.attempt === event.attempt
    ) {
      joined[joined.length - 1] = { ...last, text: last.text + event.text }
    } else joined.push(event)
    return joined
  }, [])

const seqs = (logged: ReadonlyArray<EventLog.LoggedEvent>) => logged.map((entry) => entry.seq)
const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

describe("a durable session's event log", () => {
  it.effect("holds every event its runs published, as their observers saw them, numbered 1, 2, ... across runs", () =>
    Effect.gen(function* () {
      const file = store()
      const observed: Array<KernelEvent.KernelEvent> = []
      const model = yield* ScriptedModel.make([
        ScriptedModel.chunked(ScriptedModel.toolCalls({ id: "a", name: "echo", input: 1 }), [3]),
        ScriptedModel.chunked(ScriptedModel.text("all done, thanks"), [2, 3, 4]),
        ScriptedModel.text("second")
      ])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        yield* sessions.run("s", "first")
        yield* sessions.run("s", "again")
      }).pipe(Effect.provide(processOn(file, model, { observed })), Effect.scoped)
      const logged = yield* logOf(file)
      expect(logged.map((entry) => shape(entry.event))).toEqual(joinDeltas(observed).map(shape))
      expect(logged.filter((entry) => entry.event.type === "text_delta").map((entry) => shape(entry.event))).toEqual([
        "text_delta/2:all done, thanks",
        "text_delta/1:second"
      ])
      expect(seqs(logged)).toEqual(oneToN(logged.length))
      expect(logged.map((entry) => entry.run)).toEqual(
        logged.map((entry) => (entry.seq <= logged.findIndex((e) => e.event.type === "run_ended") + 1 ? 1 : 2))
      )
      // The runs, as the log tells them.
      const runs = yield* EventLog.runs("s").pipe(Effect.provide(Engine.layerSqliteStore(file)))
      expect(runs.map((run) => [run.run, run.run_id, run.input, run.status, run.first_seq])).toEqual([
        [1, "s/run-1", "first", "completed", 1],
        [2, "s/run-2", "again", "completed", runs[0]!.last_seq + 1]
      ])
      expect(runs[1]!.last_seq).toBe(logged.length)
    })
  )

  it.effect("reads by sequence number: after, until, limit, without deltas", () =>
    Effect.gen(function* () {
      const file = store()
      const model = yield* ScriptedModel.make([ScriptedModel.chunked(ScriptedModel.text("streamed"), [2])])
      yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run("s", "go")).pipe(
        Effect.provide(processOn(file, model)),
        Effect.scoped
      )
      yield* Effect.gen(function* () {
        const all = yield* EventLog.events("s")
        expect(seqs(yield* EventLog.events("s", { after: 2, until: 4 }))).toEqual([3, 4])
        expect(seqs(yield* EventLog.events("s", { after: 1, limit: 2 }))).toEqual([2, 3])
        const withoutDeltas = yield* EventLog.events("s", { omitDeltas: true })
        expect(withoutDeltas.map((entry) => entry.event.type)).toEqual(
          all.map((entry) => entry.event.type).filter((type) => type !== "text_delta")
        )
        expect(yield* EventLog.lastSeq("s")).toBe(all.length)
        expect(yield* EventLog.events("nobody")).toEqual([])
        expect(yield* EventLog.lastSeq("nobody")).toBe(0)
      }).pipe(Effect.provide(Engine.layerSqliteStore(file)))
    })
  )

  const crashes = [
    {
      name: "in a model call",
      script: [ScriptedModel.toolCalls({ id: "a", name: "echo", input: 1 }), hang],
      resumed: [ScriptedModel.chunked(ScriptedModel.text("done"), [2])],
      reference: [
        ScriptedModel.toolCalls({ id: "a", name: "echo", input: 1 }),
        ScriptedModel.chunked(ScriptedModel.text("done"), [2])
      ],
      crashWhen: (calls: number) => calls >= 2,
      toolbox: echo
    },
    {
      name: "in a tool call",
      script: [ScriptedModel.toolCalls({ id: "a", name: "slow", input: 1 }), ScriptedModel.text("done")],
      resumed: [ScriptedModel.text("done")],
      reference: [ScriptedModel.toolCalls({ id: "a", name: "slow", input: 1 }), ScriptedModel.text("done")],
      crashWhen: (calls: number) => calls >= 1,
      toolbox: {
        definitions: Effect.succeed([]),
        invoke: (call: Content.ToolUseBlock) =>
          call.name === "slow" ? Effect.never : Effect.succeed(Content.toolResult(call.id, "ok"))
      } satisfies Toolbox.Service
    },
    {
      name: "in a retry wait",
      script: [ScriptedModel.rateLimited({ retryAfterMs: 400 }), ScriptedModel.text("done")],
      resumed: [ScriptedModel.text("done")],
      reference: [ScriptedModel.rateLimited({ retryAfterMs: 400 }), ScriptedModel.text("done")],
      crashWhen: (calls: number) => calls >= 1,
      toolbox: echo
    }
  ]
  for (const { name, script, resumed, reference, crashWhen, toolbox } of crashes) {
    it.live(`a crash ${name}: the resumed run goes on with the next number, no event twice, none missing`, () =>
      Effect.gen(function* () {
        // The same run with no crash, for reference (the tool's answer may differ; its events do not).
        const calm = store()
        const calmModel = yield* ScriptedModel.make(reference)
        yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run("s", "go")).pipe(
          Effect.provide(
            processOn(calm, calmModel, {
              toolbox: { ...echo, invoke: (call) => Effect.succeed(Content.toolResult(call.id, "ok")) }
            })
          ),
          Effect.scoped
        )
        const expected = (yield* logOf(calm)).map((entry) => shape(entry.event))

        const file = store()
        const first = yield* ScriptedModel.make(script)
        const { crash, context } = yield* crashable(processOn(file, first, { toolbox }), "s", "go")
        yield* until(first.calls, (calls) => crashWhen(calls.length))
        // What the run waits on is in the log before it waits (a reader sees it).
        const waitingOn =
          name === "in a retry wait"
            ? "retry_scheduled"
            : name === "in a tool call"
              ? "tool_call_started"
              : "model_request"
        yield* until(
          Effect.provide(
            Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.events("s")),
            context
          ),
          (logged) =>
            logged.some(
              (entry) => entry.event.type === waitingOn && (waitingOn !== "model_request" || entry.event.turn === 2)
            )
        )
        yield* crash
        const cut = yield* logOf(file)
        // The crash's interruption is no end of the run: the log does not say the run ended.
        expect(cut.some((entry) => entry.event.type === "run_ended")).toBe(false)

        const next = yield* ScriptedModel.make(resumed)
        const outcome = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("s")).pipe(
          Effect.provide(processOn(file, next, { toolbox: echo })),
          Effect.scoped
        )
        const logged = yield* logOf(file)
        expect(seqs(logged)).toEqual(oneToN(logged.length))
        expect(logged.slice(0, cut.length)).toEqual(cut)
        expect(logged.map((entry) => shape(entry.event))).toEqual(expected)
        // The log agrees with the store and the outcome: the run ended as they say.
        const ended = logged[logged.length - 1]!.event
        expect(ended.type === "run_ended" && [ended.status, ended.turns]).toEqual(
          Option.match(outcome, { onNone: () => false, onSome: (run) => [run.status, run.turns] })
        )
        const listed = yield* DurableSessions.summaries.pipe(Effect.provide(Engine.layerSqliteStore(file)))
        expect(listed.map((session) => session.status)).toEqual([ended.type === "run_ended" ? ended.status : ""])
      })
    )
  }

  it.live("a run its caller stops (Ctrl-C) ends the log with run_ended interrupted, as the store records it", () =>
    Effect.gen(function* () {
      const file = store()
      const model = yield* ScriptedModel.make([hang])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const caller = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* until(model.calls, (calls) => calls.length >= 1)
        yield* Fiber.interrupt(caller)
        const logged = yield* sessions.events("s")
        const ended = logged[logged.length - 1]!.event
        expect(ended.type === "run_ended" && ended.status).toBe("interrupted")
        expect(seqs(logged)).toEqual(oneToN(logged.length))
        expect((yield* sessions.list).map((session) => session.status)).toEqual(["interrupted"])
      }).pipe(Effect.provide(processOn(file, model)), Effect.scoped)
    })
  )

  it.live("follow: the events logged so far, then each new one as it is logged, across a crash and a resume", () =>
    Effect.gen(function* () {
      const file = store()
      const first = yield* ScriptedModel.make([ScriptedModel.toolCalls({ id: "a", name: "echo", input: 1 }), hang])
      const { crash } = yield* crashable(processOn(file, first), "s", "go")
      yield* until(first.calls, (calls) => calls.length >= 2)
      yield* crash
      const next = yield* ScriptedModel.make([ScriptedModel.text("done")])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        // An hour between reads: only this process's writes can wake the follower in time.
        const follower = yield* Effect.forkChild(
          Stream.runCollect(
            Stream.takeUntil(
              sessions.follow("s", { pollInterval: "1 hour" }),
              (entry) => entry.event.type === "run_ended"
            )
          )
        )
        yield* Effect.sleep("20 millis")
        yield* sessions.resume("s")
        const followed = yield* Fiber.join(follower).pipe(Effect.timeout("30 seconds"))
        expect(followed).toEqual(yield* sessions.events("s"))
        // From a point: what comes after it only.
        const tail = yield* Stream.runCollect(Stream.take(sessions.follow("s", { after: followed.length - 2 }), 2))
        expect(tail).toEqual(followed.slice(-2))
      }).pipe(Effect.provide(processOn(file, next)), Effect.scoped)
    })
  )

  it.live("follow fails with StoreError once the store's file is gone, rather than wait for ever", () =>
    Effect.gen(function* () {
      const file = store()
      const model = yield* ScriptedModel.make([ScriptedModel.text("done")])
      yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run("s", "go")).pipe(
        Effect.provide(processOn(file, model)),
        Effect.scoped
      )
      const error = yield* Effect.gen(function* () {
        const follower = yield* Effect.forkChild(Stream.runDrain(EventLog.follow("s", { pollInterval: "20 millis" })))
        yield* Effect.sleep("50 millis")
        fs.rmSync(file)
        return yield* Effect.flip(Fiber.join(follower)).pipe(Effect.timeout("30 seconds"))
      }).pipe(Effect.provide(Engine.layerSqliteStore(file)), Effect.scoped)
      expect([error.reason, error.message]).toEqual([
        "missing",
        `the session store ${file} is gone (deleted or replaced): it cannot be read`
      ])
    })
  )
})

/**
 * A model that streams "Hello " at once, then the rest ("world") when `gate` opens (never, for a crash),
 * and counts its calls.
 */
const gatedStream = (gate: Deferred.Deferred<void>) =>
  Effect.gen(function* () {
    const calls = yield* Ref.make(0)
    const step = ScriptedModel.chunked(ScriptedModel.text("Hello world"), [6])
    const [first, ...rest] = step.parts
    const provider = ModelProvider.make("gated", () =>
      Stream.unwrap(
        Effect.as(
          Ref.update(calls, (n) => n + 1),
          Stream.concat(
            Stream.make(first!),
            Stream.concat(Stream.fromEffect(Deferred.await(gate)).pipe(Stream.drain), Stream.fromIterable(rest))
          )
        )
      )
    )
    return { layer: Layer.succeed(ModelProvider.ModelProvider, provider), calls: Ref.get(calls) }
  })

const streamedLayer = (file: string, model: Layer.Layer<ModelProvider.ModelProvider>) =>
  DurableSessions.layer({ model: "m", settings }).pipe(
    Layer.provideMerge(Engine.layerSqlite(file)),
    Layer.provide(model),
    Layer.provide(Toolbox.layer(echo))
  )

describe("a streamed answer in the log", () => {
  it.live("its text is logged while the call streams, before the call ends", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const model = yield* gatedStream(gate)
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const caller = yield* Effect.forkChild(sessions.run("s", "go"))
        // An hour between reads: only the writes wake the follower.
        const firstText = yield* Stream.runHead(
          Stream.filter(sessions.follow("s", { pollInterval: "1 hour" }), (entry) => entry.event.type === "text_delta")
        ).pipe(Effect.timeout("30 seconds"))
        expect(Option.map(firstText, (entry) => shape(entry.event))).toEqual(Option.some("text_delta/1:Hello "))
        // The call is still streaming (the rest waits on the gate): no response yet.
        expect((yield* sessions.events("s")).some((entry) => entry.event.type === "model_response")).toBe(false)
        yield* Deferred.succeed(gate, undefined)
        expect((yield* Fiber.join(caller)).final_text).toBe("Hello world")
        const texts = (yield* sessions.events("s")).flatMap((entry) =>
          entry.event.type === "text_delta" ? [entry.event.text] : []
        )
        expect(texts.join("")).toBe("Hello world")
      }).pipe(Effect.provide(streamedLayer(store(), model.layer)), Effect.scoped)
    })
  )

  it.live("a crash mid-stream: the resumed call's text follows a stream_restarted discarding what was streamed", () =>
    Effect.gen(function* () {
      const file = store()
      const model = yield* gatedStream(yield* Deferred.make<void>())
      const { crash, context } = yield* crashable(streamedLayer(file, model.layer), "s", "go")
      yield* until(
        Effect.provide(
          Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.events("s")),
          context
        ),
        (logged) => logged.some((entry) => entry.event.type === "text_delta")
      )
      yield* crash
      const next = yield* ScriptedModel.make([ScriptedModel.text("Hello world")])
      yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("s")).pipe(
        Effect.provide(processOn(file, next)),
        Effect.scoped
      )
      const logged = yield* logOf(file)
      expect(seqs(logged)).toEqual(oneToN(logged.length))
      expect(logged.map((entry) => shape(entry.event))).toEqual([
        "run_started",
        "turn_started/1",
        "model_request/1:#1",
        "text_delta/1:Hello ",
        "stream_restarted/1:#1",
        "text_delta/1:Hello world",
        "model_response/1",
        "turn_ended/1",
        "run_ended:completed"
      ])
      const restart = logged.find((entry) => entry.event.type === "stream_restarted")?.event
      expect(
        restart?.type === "stream_restarted" && [restart.category, restart.discarded_text_chars, restart.model]
      ).toEqual(["process_crashed", 6, "m"])
    })
  )
})

describe("the event log on every engine, through a durable wait's replay", () => {
  const engines: ReadonlyArray<readonly [string, EngineOf]> = [
    ["the light engine", Engine.layerSqlite],
    ["the memory engine", () => Engine.layerMemory],
    ["the cluster engine (SQLite)", (file) => Engine.layerClusterSqlite(file)]
  ]
  for (const [name, engine] of engines) {
    it.effect(`${name}: the log of a run that waited (and replayed its journal) is a plain session's events`, () =>
      Effect.gen(function* () {
        const script = () => [
          ScriptedModel.toolCalls({ id: "a", name: "echo", input: 1 }),
          ScriptedModel.rateLimited({ retryAfterMs: 2_000 }),
          ScriptedModel.chunked(ScriptedModel.text("done at last"), [4])
        ]
        const plainEvents: Array<KernelEvent.KernelEvent> = []
        const plainModel = yield* ScriptedModel.make(script())
        const plain = yield* Session.make({ id: "s", model: "m", settings }).pipe(
          Effect.provide(plainModel.layer),
          Effect.provideService(Toolbox.Toolbox, echo),
          Effect.provide(EventBus.layer([{ onEvent: (event) => Effect.sync(() => void plainEvents.push(event)) }]))
        )
        yield* TestClockDriver.run(plain.run("go"))
        const model = yield* ScriptedModel.make(script())
        const logged = yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          yield* TestClockDriver.run(sessions.run("s", "go"), { horizon: "1 minute" })
          return yield* sessions.events("s")
        }).pipe(Effect.provide(processOn(store(), model, { engine })), Effect.scoped)
        expect(logged.map((entry) => shape(entry.event))).toEqual(joinDeltas(plainEvents).map(shape))
        expect(seqs(logged)).toEqual(oneToN(logged.length))
      })
    )
  }
})

/** The statuses of the run_ended events among `events`. */
const endsOf = (events: ReadonlyArray<KernelEvent.KernelEvent>) =>
  events.flatMap((event) => (event.type === "run_ended" ? [event.status] : []))

describe("run_ended on the bus: only the end the store records", () => {
  const engines: ReadonlyArray<readonly [string, EngineOf, boolean]> = [
    ["the light engine", Engine.layerSqlite, true],
    ["the memory engine", () => Engine.layerMemory, false],
    ["the cluster engine (SQLite)", (file) => Engine.layerClusterSqlite(file), true]
  ]
  for (const [name, engine, resumable] of engines) {
    it.live(
      `${name}: a run whose engine stops mid-step publishes no end; resumed by another engine, its real end once`,
      () =>
        Effect.gen(function* () {
          const file = store()
          const cut: Array<KernelEvent.KernelEvent> = []
          const first = yield* ScriptedModel.make([hang])
          const { crash } = yield* crashable(processOn(file, first, { engine, observed: cut }), "s", "go")
          yield* until(first.calls, (calls) => calls.length >= 1)
          yield* crash
          // The engine interrupted the body (as a moved shard's does): no caller stopped the run, it did not end.
          expect(cut.map((event) => event.type)).toContain("model_request")
          expect(endsOf(cut)).toEqual([])
          if (!resumable) return
          const resumedEvents: Array<KernelEvent.KernelEvent> = []
          const next = yield* ScriptedModel.make([ScriptedModel.text("done")])
          const outcome = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
            sessions.resume("s")
          ).pipe(Effect.provide(processOn(file, next, { engine, observed: resumedEvents })), Effect.scoped)
          expect(Option.map(outcome, (run) => run.status)).toEqual(Option.some("completed"))
          expect(endsOf(resumedEvents)).toEqual(["completed"])
          expect(endsOf(cut)).toEqual([])
        })
    )

    it.live(`${name}: a run its caller stops publishes run_ended interrupted once`, () =>
      Effect.gen(function* () {
        const observed: Array<KernelEvent.KernelEvent> = []
        const model = yield* ScriptedModel.make([hang])
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          const caller = yield* Effect.forkChild(sessions.run("s", "go"))
          yield* until(model.calls, (calls) => calls.length >= 1)
          yield* Fiber.interrupt(caller)
          yield* until(
            Effect.sync(() => endsOf(observed)),
            (ends) => ends.length > 0
          )
        }).pipe(Effect.provide(processOn(store(), model, { engine, observed })), Effect.scoped)
        expect(endsOf(observed)).toEqual(["interrupted"])
      })
    )

    it.live(`${name}: when an observer gets run_ended, the store already records the run's end`, () =>
      Effect.gen(function* () {
        // What the store says of the session at each run_ended, read by the observer as it gets the event.
        const seen: Array<string> = []
        const client: { sql?: SqlClient.SqlClient } = {}
        const reading: EventBus.Observer = {
          onEvent: (event) =>
            event.type !== "run_ended" || client.sql === undefined
              ? Effect.void
              : DurableSessions.summaries.pipe(
                  Effect.provideService(SqlClient.SqlClient, client.sql),
                  Effect.flatMap((listed) =>
                    Effect.sync(() => void seen.push(`${event.status}: ${listed.map((s) => s.status).join()}`))
                  ),
                  Effect.orDie
                )
        }
        const model = yield* ScriptedModel.make([ScriptedModel.text("done"), hang])
        yield* Effect.gen(function* () {
          client.sql = yield* SqlClient.SqlClient
          const sessions = yield* DurableSessions.DurableSessions
          yield* sessions.run("s", "first")
          const caller = yield* Effect.forkChild(sessions.run("s", "second"))
          yield* until(model.calls, (calls) => calls.length >= 2)
          yield* Fiber.interrupt(caller)
          yield* until(
            Effect.sync(() => seen.length),
            (n) => n >= 2
          )
        }).pipe(Effect.provide(processOn(store(), model, { engine, observers: [reading] })), Effect.scoped)
        expect(seen).toEqual(["completed: completed", "interrupted: interrupted"])
      })
    )
  }
})

describe("a stop at the run's end: observers and the log get the end the store records, once", () => {
  /** Runs "go" to a model's "done" on the light engine, stopped (its caller interrupted) once `reached` is done. */
  const stoppedAtEnd = (
    reached: Deferred.Deferred<void>,
    options: { readonly engine?: EngineOf; readonly gate?: AgentRun.StepGate }
  ) =>
    Effect.gen(function* () {
      const file = store()
      const observed: Array<KernelEvent.KernelEvent> = []
      const model = yield* ScriptedModel.make([ScriptedModel.text("done")])
      const status = yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const caller = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* Deferred.await(reached)
        // The caller's interruption stops the body and waits for it to end, its stop recorded (or not).
        yield* Fiber.interrupt(caller)
        const [listed] = yield* sessions.list
        return listed?.status
      }).pipe(Effect.provide(processOn(file, model, { ...options, observed })), Effect.scoped)
      const logged = yield* logOf(file)
      return {
        status,
        observed: endsOf(observed),
        logged: endsOf(logged.map((entry) => entry.event)),
        seqs: seqs(logged)
      }
    })

  it.live("a stop in the end step's journal write, after the end was recorded: run_ended completed is published", () =>
    Effect.gen(function* () {
      const inEndWrite = yield* Deferred.make<void>()
      const engine: EngineOf = (file) =>
        Engine.layerSqlite(file, {
          beforeWrite: (write) =>
            write.kind === "activity" && write.name.startsWith("end")
              ? Effect.andThen(Deferred.succeed(inEndWrite, undefined), Effect.never)
              : Effect.void
        })
      const ended = yield* stoppedAtEnd(inEndWrite, { engine })
      expect(ended).toEqual({
        status: "completed",
        observed: ["completed"],
        logged: ["completed"],
        seqs: oneToN(ended.seqs.length)
      })
    })
  )

  it.live(
    "a stop after the loop ended, before the end step: the store, the log and observers all say interrupted",
    () =>
      Effect.gen(function* () {
        const atEnd = yield* Deferred.make<void>()
        let passes = 0
        // The third step is the end (after the start and the model's answer): held there until the stop.
        const gate: AgentRun.StepGate = (step) =>
          Effect.suspend(() =>
            ++passes === 3 ? Effect.andThen(Deferred.succeed(atEnd, undefined), Effect.never) : step
          )
        const ended = yield* stoppedAtEnd(atEnd, { gate })
        expect(ended).toEqual({
          status: "interrupted",
          observed: ["interrupted"],
          logged: ["interrupted"],
          seqs: oneToN(ended.seqs.length)
        })
      })
  )
})

describe("the event log's transaction on SQLite's one connection", () => {
  it.live("a run's end written with its events while another write of the log waits for the connection completes", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(Engine.layerSqlite(store()))
      const rows = yield* endBesideAFlush(Context.get(context, SqlClient.SqlClient))
      expect(rows).toEqual([{ seq: 1, event: { text: "hello world" } }])
    })
  )

  const endings: ReadonlyArray<readonly [string, Effect.Effect<never, string>]> = [
    ["fails (a store write after the flush failing)", Effect.fail("the end's record failed")],
    ["is interrupted", Effect.interrupt]
  ]
  for (const [name, ending] of endings) {
    it.live(`a transaction that writes events and then ${name}: the next write logs them, numbered without a gap`, () =>
      Effect.gen(function* () {
        const context = yield* Layer.build(Engine.layerSqlite(store()))
        const { rows, exit } = yield* flushThenRollBack(Context.get(context, SqlClient.SqlClient), ending)
        expect(Exit.isFailure(exit)).toBe(true)
        expect(rows).toEqual([
          { seq: 1, event: { text: "first" } },
          { seq: 2, event: { text: "rolled back" } },
          { seq: 3, event: { text: "after" } }
        ])
      })
    )
  }

  it.live("a run_ended is written only by the transaction that records its end: other writes leave it waiting", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(Engine.layerSqlite(store()))
      const { flushed, rolledBack, flushedAgain, recorded } = yield* endOnlyWithItsRecord(
        Context.get(context, SqlClient.SqlClient)
      )
      expect(flushed).toEqual([{ seq: 1, type: "text_delta" }])
      expect(Exit.isFailure(rolledBack)).toBe(true)
      expect(flushedAgain).toEqual([{ seq: 1, type: "text_delta" }])
      expect(recorded).toEqual([
        { seq: 1, type: "text_delta" },
        { seq: 2, type: "run_ended" }
      ])
    })
  )
})
