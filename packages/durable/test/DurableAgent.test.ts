/**
 * The kernel's `Agent` with its session in a durable store (`DurableAgent`):
 * the session outlives the process, and a run a crash cut short is finished by
 * the next run of the session, which is that run when its input is the same.
 * The crash is the engine stopped under a run, as a dying process's would be.
 */
import { DurableAgent, DurableSessions, Engine } from "@agent-kernel/durable"
import { Agent, Content, type ModelProvider, RetryPolicy, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const store = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "durable-agent-")), "agent.db")

const hang: ScriptedModel.Step = () => Effect.never as Effect.Effect<ModelProvider.ModelResponse>

/** A `book` tool that records each call it runs. */
const booking = (booked: Array<string>): Toolbox.Service => ({
  definitions: Effect.succeed([{ name: "book", description: "Books a table", input_schema: { type: "object" } }]),
  invoke: (call) =>
    Effect.sync(() => {
      booked.push(call.id)
      return Content.toolResult(call.id, "Booked for 8 pm")
    })
})

const agentOn = (file: string, model: ScriptedModel.ScriptedModel, toolbox: Toolbox.Service = Toolbox.empty) =>
  DurableAgent.layer(file, {
    model: "m",
    provider: model.layer,
    tools: Toolbox.layer(toolbox),
    session: "demo",
    settings: { jitter: "none" }
  })

/** Starts `Agent.run(input)` on an agent over `file`, and returns a `crash` that stops the engine under it. */
const crashable = <E>(layer: Layer.Layer<Agent.Agent, E>, input: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, scope)
    // Never interrupted: the caller of a dead process does not decide to end its run (that is a Ctrl-C).
    yield* Effect.forkDetach(Agent.run(input).pipe(Effect.provide(context)))
    return Scope.close(scope, Exit.void)
  })

/** Real time passes: the store is a real file. The bound is generous. */
const until = <A>(check: Effect.Effect<A>, done: (a: A) => boolean) =>
  Effect.repeat(check, { until: done, schedule: Schedule.spaced(Duration.millis(20)) }).pipe(
    Effect.timeoutOrElse({ duration: Duration.seconds(30), orElse: () => Effect.fail(new Error("timed out waiting")) })
  )

const bookThenAnswer = [ScriptedModel.toolCalls({ id: "t1", name: "book" }), ScriptedModel.text("Booked.")]

describe("DurableAgent", () => {
  it.live("the session outlives its Layer: an agent on the same file later continues the conversation", () =>
    Effect.gen(function* () {
      const file = store()
      const first = yield* ScriptedModel.make([ScriptedModel.text("Noted: Friday.")])
      yield* Agent.run("The deploy is on Friday.").pipe(Effect.provide(agentOn(file, first)))
      const later = yield* ScriptedModel.make([ScriptedModel.text("On Friday.")])
      const [before, outcome] = yield* Effect.gen(function* () {
        const agent = yield* Agent.Agent
        return [yield* agent.history, yield* agent.run("When is the deploy?")] as const
      }).pipe(Effect.provide(agentOn(file, later)))
      expect(before.map(Content.textOf)).toEqual(["The deploy is on Friday.", "Noted: Friday."])
      expect(outcome.history.map(Content.textOf)).toEqual([
        "The deploy is on Friday.",
        "Noted: Friday.",
        "When is the deploy?",
        "On Friday."
      ])
      // The model was sent the whole conversation.
      const [request] = yield* later.requests
      expect(request?.messages).toHaveLength(3)
    })
  )

  it.live(
    "the input a crash cut short, run again, is that run finished: the completed tool call is not run again",
    () =>
      Effect.gen(function* () {
        const file = store()
        const booked: Array<string> = []
        const crashed = yield* ScriptedModel.make([bookThenAnswer[0]!, hang])
        const crash = yield* crashable(agentOn(file, crashed, booking(booked)), "Book a table")
        yield* until(crashed.calls, (calls) => calls.length >= 2)
        yield* crash
        expect(booked).toEqual(["t1"])

        const after = yield* ScriptedModel.make([ScriptedModel.text("Your table is booked.")])
        const texts: Array<string> = []
        const outcome = yield* Agent.run("Book a table", { onText: (text) => texts.push(text) }).pipe(
          Effect.provide(agentOn(file, after, booking(booked)))
        )
        expect(outcome.status).toBe("completed")
        expect(booked).toEqual(["t1"])
        // One run: the input once, the call cut short sent again with the journaled tool result.
        expect(outcome.history.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"])
        expect(Content.textOf(outcome.history[0]!)).toBe("Book a table")
        const requests = yield* after.requests
        expect(requests).toHaveLength(1)
        expect(requests[0]?.messages).toEqual(outcome.history.slice(0, 3))
        // The resumed run streams to the callbacks of the run that finishes it.
        expect(texts.join("")).toBe("Your table is booked.")
      })
  )

  it.live(
    "an unfinished run the engine finishes before the agent asks is still the answer, read from the journal",
    () =>
      Effect.gen(function* () {
        const file = store()
        const booked: Array<string> = []
        const crashed = yield* ScriptedModel.make([bookThenAnswer[0]!, hang])
        const crash = yield* crashable(agentOn(file, crashed, booking(booked)), "Book a table")
        yield* until(crashed.calls, (calls) => calls.length >= 2)
        yield* crash

        // An engine whose registration returns only once the run it resumed has finished.
        const lateEngine = Layer.effect(
          WorkflowEngine.WorkflowEngine,
          Effect.gen(function* () {
            const engine = yield* WorkflowEngine.WorkflowEngine
            const context = yield* Effect.context<Engine.Engine>()
            const finished = until(
              Effect.orDie(Effect.provideContext(DurableSessions.pending("demo"), context)),
              Option.isNone
            )
            return {
              ...engine,
              register: (workflow, execute) =>
                Effect.tap(engine.register(workflow, execute), () => Effect.orDie(finished))
            }
          })
        ).pipe(Layer.provideMerge(Engine.layerSqlite(file)))
        const after = yield* ScriptedModel.make([ScriptedModel.text("Your table is booked.")])
        const outcome = yield* Agent.run("Book a table").pipe(
          Effect.provide(
            Agent.layer({
              model: "m",
              provider: after.layer,
              tools: Toolbox.layer(booking(booked)),
              sessions: DurableAgent.sessions(lateEngine, { session: "demo" }),
              settings: { jitter: "none" }
            })
          )
        )
        expect(outcome.status).toBe("completed")
        expect(outcome.final_text).toBe("Your table is booked.")
        expect(booked).toEqual(["t1"])
        expect(yield* after.requests).toHaveLength(1)
      })
  )

  it.live("another input after a crash runs once the unfinished run is finished, after it in the history", () =>
    Effect.gen(function* () {
      const file = store()
      const booked: Array<string> = []
      const crashed = yield* ScriptedModel.make([bookThenAnswer[0]!, hang])
      const crash = yield* crashable(agentOn(file, crashed, booking(booked)), "Book a table")
      yield* until(crashed.calls, (calls) => calls.length >= 2)
      yield* crash

      const after = yield* ScriptedModel.make([ScriptedModel.text("Booked."), ScriptedModel.text("At 8 pm.")])
      const outcome = yield* Agent.run("What time?").pipe(Effect.provide(agentOn(file, after, booking(booked))))
      expect(outcome.status).toBe("completed")
      expect(outcome.final_text).toBe("At 8 pm.")
      expect(booked).toEqual(["t1"])
      expect(outcome.history.filter((message) => message.role === "user").map(Content.textOf)).toEqual([
        "Book a table",
        "",
        "What time?"
      ])
    })
  )

  it.live("a second run of an input that completed is a new run: a durable session is a conversation", () =>
    Effect.gen(function* () {
      const file = store()
      const model = yield* ScriptedModel.make([ScriptedModel.text("Hello."), ScriptedModel.text("Hello again.")])
      const outcomes = yield* Effect.all([Agent.run("Hi"), Agent.run("Hi")]).pipe(Effect.provide(agentOn(file, model)))
      expect(outcomes.map((outcome) => outcome.final_text)).toEqual(["Hello.", "Hello again."])
      expect(outcomes[1]?.history).toHaveLength(4)
    })
  )

  it.live("the agent's policy and request options govern its durable runs", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.rateLimited(), ScriptedModel.text("Hello.")])
      const outcome = yield* Agent.run("Hi").pipe(
        Effect.provide(
          DurableAgent.layer(store(), {
            model: "m",
            provider: model.layer,
            // The settings allow five retries; the policy allows none.
            policy: RetryPolicy.fromSettings({ ...Settings.defaults, max_retries: 0 }),
            request: { temperature: 0 }
          })
        )
      )
      expect(outcome.status).toBe("retries_exhausted")
      const requests = yield* model.requests
      expect(requests.map((request) => request.temperature)).toEqual([0])
    })
  )
})
