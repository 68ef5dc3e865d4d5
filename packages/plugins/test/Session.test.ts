import { type Content, EventBus, type KernelEvent, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"
import { Gate, McpStdio, PluginToolbox } from "../src/index.js"
import { eventually, fixture, inflight, liveGroup, use } from "./helpers.js"

const settings: Settings.Settings = {
  ...Settings.defaults,
  tool_timeout_ms: 10_000,
  breaker_consecutive_failures: 3,
  breaker_cooldown_ms: 30_000
}

/** A session over the fixture server, with a scripted model; processes are real, time is the TestClock's. */
const session = (script: ReadonlyArray<ScriptedModel.Step>, gate: Gate.Service = Gate.allowAll) =>
  Effect.gen(function* () {
    const events: Array<KernelEvent.KernelEvent> = []
    const bus = yield* EventBus.make([{ onEvent: (event) => Effect.sync(() => events.push(event)) }])
    const provider = yield* McpStdio.make(fixture("fx"))
    const toolbox = yield* PluginToolbox.make({ providers: [Effect.succeed(provider)], settings }).pipe(
      Effect.provideService(Gate.Gate, gate)
    )
    const model = yield* ScriptedModel.make(script)
    const s = yield* Session.make({ model: "model-a", settings }).pipe(
      Effect.provide(model.layer),
      Effect.provideService(EventBus.EventBus, bus),
      Effect.provideService(Toolbox.Toolbox, toolbox)
    )
    return { session: s, provider, model, events, toolbox, breaker: toolbox.breakers.get("fx")! }
  })

const results = (history: Content.History) =>
  history.flatMap((message) => message.content.flatMap((block) => (block.type === "tool_result" ? [block] : [])))

const toolNames = (request: { readonly tools: ReadonlyArray<{ readonly name: string }> } | undefined) =>
  (request?.tools ?? []).map((tool) => tool.name)

const breakerEvents = (events: ReadonlyArray<KernelEvent.KernelEvent>) =>
  events.flatMap((event) => (event.type === "breaker_changed" ? [`${event.from} -> ${event.to}`] : []))

describe("the kernel loop over plugins", () => {
  it.effect("a crash becomes an error tool_result and the run goes on", () =>
    Effect.gen(function* () {
      const { session: s, provider } = yield* session([
        ScriptedModel.toolCalls({ id: "t1", name: "crash", input: { code: 3, stderr: "fatal: out of cheese" } }),
        ScriptedModel.toolCalls({ id: "t2", name: "echo", input: { text: "after the crash" } }),
        ScriptedModel.text("recovered")
      ])
      const outcome = yield* s.run("go")
      expect(outcome.status).toBe("completed")
      expect(outcome.final_text).toBe("recovered")
      const [crash, echo] = results(outcome.history)
      expect(crash).toMatchObject({ tool_use_id: "t1", is_error: true })
      expect(crash!.content).toContain('Plugin "fx" crashed while handling the call (process_crashed: exit code 3')
      expect(crash!.content).toContain("fatal: out of cheese")
      expect(echo).toMatchObject({ tool_use_id: "t2", is_error: false, content: "after the crash" })
      expect((yield* provider.stats).spawns).toBe(2)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect(
    "the breaker opens at the threshold: tools withdrawn, no further spawns; half-open recovery on the TestClock",
    () =>
      Effect.gen(function* () {
        const crash = (id: string) => ScriptedModel.toolCalls({ id, name: "crash", input: { code: 1 } })
        const {
          session: s,
          provider,
          model,
          events,
          breaker
        } = yield* session([
          crash("c1"),
          crash("c2"),
          crash("c3"),
          // The model insists on a withdrawn tool.
          ScriptedModel.toolCalls({ id: "c4", name: "echo", input: { text: "anyone?" } }),
          ScriptedModel.text("the plugin is down"),
          // Second run, after the cooldown.
          ScriptedModel.toolCalls({ id: "p1", name: "echo", input: { text: "probe" } }),
          ScriptedModel.text("back")
        ])
        const first = yield* s.run("go")
        expect(first.status).toBe("completed")
        const r = results(first.history)
        expect(r.map((x) => x.is_error)).toEqual([true, true, true, true])
        expect(r[2]!.content).toContain("circuit breaker is now open")
        expect(r[3]!.content).toContain('the circuit breaker of plugin "fx" is open')
        const requests = yield* model.requests
        expect(toolNames(requests[2])).toContain("crash")
        expect(toolNames(requests[3])).toEqual([])
        expect(toolNames(requests[4])).toEqual([])
        expect((yield* provider.stats).spawns).toBe(3)
        expect(yield* breaker.status).toBe("open")

        yield* TestClock.adjust("30 seconds")
        const second = yield* s.run("try again")
        expect(second.status).toBe("completed")
        expect(results(second.history).at(-1)).toMatchObject({ tool_use_id: "p1", is_error: false, content: "probe" })
        expect(toolNames((yield* model.requests)[5])).toContain("echo")
        expect(yield* breaker.status).toBe("closed")
        expect((yield* provider.stats).spawns).toBe(4)
        expect(breakerEvents(events)).toEqual(["closed -> open", "open -> half_open", "half_open -> closed"])
      }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a denial storm trips the same breaker", () =>
    Effect.gen(function* () {
      const gate = Gate.rules({ deny: [{ tool: "echo", arguments: { text: /secret/ }, reason: "No secrets." }] })
      const echo = (id: string) => ScriptedModel.toolCalls({ id, name: "echo", input: { text: "the secret" } })
      const {
        session: s,
        model,
        events,
        provider
      } = yield* session(
        [
          echo("d1"),
          echo("d2"),
          echo("d3"),
          ScriptedModel.toolCalls({ id: "d4", name: "pid" }),
          ScriptedModel.text("ok")
        ],
        gate
      )
      const outcome = yield* s.run("go")
      expect(outcome.status).toBe("completed")
      const r = results(outcome.history)
      expect(
        r
          .slice(0, 3)
          .every((x) => x.is_error && x.content.includes("Permission denied") && x.content.includes("No secrets."))
      ).toBe(true)
      expect(r[3]!.content).toContain("circuit breaker")
      expect(toolNames((yield* model.requests)[3])).toEqual([])
      expect(breakerEvents(events)).toEqual(["closed -> open"])
      // Denied calls never reached the server; the one process was for listing the tools.
      expect((yield* provider.stats).spawns).toBe(1)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("interrupting a run mid-call kills the plugin's process group; the session goes on", () =>
    Effect.gen(function* () {
      const {
        session: s,
        provider,
        toolbox
      } = yield* session([
        ScriptedModel.toolCalls({ id: "h1", name: "spawn-grandchild" }),
        ScriptedModel.toolCalls({ id: "h2", name: "hang" }),
        // The second run.
        ScriptedModel.toolCalls({ id: "e1", name: "echo", input: { text: "still here" } }),
        ScriptedModel.text("done")
      ])
      const run = yield* Effect.forkChild(s.run("go"))
      yield* inflight(toolbox, 1)
      const leader = (yield* provider.stats).pid!
      expect(liveGroup(leader).length).toBe(2)
      yield* Fiber.interrupt(run)
      yield* eventually(() => liveGroup(leader).length === 0, "the group to be gone")
      const outcome = yield* s.run("again")
      expect(outcome.status).toBe("completed")
      expect(outcome.final_text).toBe("done")
      expect((yield* toolbox.invoke(use("echo", { text: "x" }))).content).toBe("x")
      expect((yield* provider.stats).spawns).toBe(2)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("interrupting a run kills every plugin's process group, not only the one a call was waiting on", () =>
    Effect.gen(function* () {
      const busy = yield* McpStdio.make(fixture("busy"))
      const idle = yield* McpStdio.make(fixture("idle"))
      const toolbox = yield* PluginToolbox.make({ providers: [Effect.succeed(busy), Effect.succeed(idle)], settings })
      const model = yield* ScriptedModel.make([ScriptedModel.toolCalls({ id: "h1", name: "hang" })])
      const s = yield* Session.make({ model: "model-a", settings }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
      const run = yield* Effect.forkChild(s.run("go"))
      yield* inflight(toolbox, 1)
      // Listing the tools for the first request started both servers; only "busy" has a call in flight.
      const [busyPid, idlePid] = [(yield* busy.stats).pid!, (yield* idle.stats).pid!]
      expect(liveGroup(busyPid).length).toBeGreaterThan(0)
      expect(liveGroup(idlePid).length).toBeGreaterThan(0)
      yield* Fiber.interrupt(run)
      yield* eventually(() => liveGroup(busyPid).length === 0, "the busy server's group to be gone")
      yield* eventually(() => liveGroup(idlePid).length === 0, "the idle server's group to be gone")
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
