/**
 * The run lock: runs of one session are serialised. A run interrupted at any point (before, while or just
 * after it takes the session, while it waits for it, or while its close fails) never keeps the session, and a
 * run asked for as the previous one ends is never lost. All timing is on the TestClock.
 */
import { Content, EventBus, ModelProvider, Session, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as References from "effect/References"
import * as TestClock from "effect/testing/TestClock"

class Tenant extends Context.Service<Tenant, string>()("RunLock/Tenant") {}

const tools: Toolbox.Service = {
  definitions: Effect.succeed([{ name: "echo", description: "Echo", input_schema: { type: "object" } }]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, "echoed"))
}

/** Answers by the conversation's last message, so a run interrupted anywhere leaves the next one a fitting answer. */
const provider = ModelProvider.fromGenerate("by-last", (request) => {
  const last = request.messages.at(-1)
  const answered = last?.content.some((block) => block.type === "tool_result") === true
  if (answered) return Effect.succeed(ScriptedModel.text("after tool"))
  const input = last === undefined ? "" : Content.textOf(last)
  return Effect.succeed(
    input === "first"
      ? { ...ScriptedModel.toolCalls({ id: `t-${request.messages.length}`, name: "echo" }), model: request.model }
      : { ...ScriptedModel.text(`answer to ${input}`), model: request.model }
  )
})

/** Whether the fiber is still running a second of TestClock later; interrupts it if so. */
const stuck = (fiber: Fiber.Fiber<unknown>) =>
  Effect.gen(function* () {
    yield* TestClock.adjust("1 second")
    if (fiber.pollUnsafe() !== undefined) return false
    yield* Fiber.interrupt(fiber)
    return true
  })

/** A caller that has run `n` operations without suspending when it asks for `effect` (a chain of syncs). */
const afterOperations = <A>(n: number, effect: Effect.Effect<A>): Effect.Effect<A> => {
  let caller = effect
  for (let i = 0; i < n; i++) caller = Effect.andThen(Effect.sync(constUndefined), caller)
  return caller
}

const constUndefined = () => undefined

const userInputs = (history: Content.History) =>
  history
    .filter((message) => message.role === "user")
    .map(Content.textOf)
    .filter((text) => text.length > 0)

describe("the run lock: a run interrupted as it takes a free session", () => {
  // A fiber yields to the scheduler once it has run `MaxOpsBeforeYield` operations without suspending. Each
  // value below puts that yield at a different operation of the run's start; the test interrupts the run at
  // that yield, then asks the session for another run, which must start.
  it.effect("a run interrupted right after taking a free lock does not leave the session locked", () =>
    Effect.gen(function* () {
      const locked: Array<number> = []
      for (let maxOps = 10; maxOps <= 160; maxOps++) {
        const model = yield* ScriptedModel.make([ScriptedModel.text("one"), ScriptedModel.text("two")])
        const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
        const first = yield* Effect.forkChild(
          session.run("first").pipe(Effect.provideService(References.MaxOpsBeforeYield, maxOps))
        )
        yield* Effect.yieldNow
        yield* Fiber.interrupt(first)
        if (yield* stuck(yield* Effect.forkChild(session.run("second")))) locked.push(maxOps)
      }
      assert.deepStrictEqual(locked, [], "the session's next run never started")
    })
  )

  // The same with Effect's default operation budget: a caller whose fiber has run ~2,040 operations without
  // suspending when it asks for a run, interrupted at that yield (a timeout, a race, a client gone).
  it.effect("with the default yield budget too, an interrupted caller never leaves the session locked", () =>
    Effect.gen(function* () {
      const locked: Array<string> = []
      for (let n = 990; n <= 1050; n++) {
        for (const odd of [false, true]) {
          const model = yield* ScriptedModel.make([ScriptedModel.text("one"), ScriptedModel.text("two")])
          const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
          const asked = afterOperations(n, session.run("first"))
          const first = yield* Effect.forkChild(odd ? Effect.suspend(() => asked) : asked)
          yield* Effect.yieldNow
          yield* Fiber.interrupt(first)
          if (yield* stuck(yield* Effect.forkChild(session.run("second")))) locked.push(`${n}${odd ? "+1" : ""}`)
        }
      }
      assert.deepStrictEqual(locked, [], "the session's next run never started")
    })
  )
})

describe("the run lock: a run waiting for the session", () => {
  // A run waits for the session while another holds it. The holder is let go, and the waiting caller
  // (yielding every `maxOps` operations) is interrupted after the test has yielded `yields` times: while it
  // waits, as it wakes, as it takes the lock, as it runs or ends. Whichever it is, the session serves the
  // next run, and the interrupted caller's context is its own.
  it.effect("a waiting run interrupted at any operation, before or after its wake-up, never keeps the session", () =>
    Effect.gen(function* () {
      const problems: Array<string> = []
      const waiterEnded = new Map<string, number>()
      for (const maxOps of [10, 11, 12, 13, 14, 15, 16, 17])
        for (let yields = 0; yields <= 45; yields++) {
          const at = `${maxOps}x${yields}`
          const gate = yield* Deferred.make<void>()
          const held: Toolbox.Service = {
            ...tools,
            invoke: (call) => Effect.as(Deferred.await(gate), Content.toolResult(call.id, "done"))
          }
          const session = yield* Session.make({ model: "m" }).pipe(
            Effect.provideService(ModelProvider.ModelProvider, provider),
            Effect.provideService(Toolbox.Toolbox, held)
          )
          const holder = yield* Effect.forkChild(session.run("first"))
          yield* TestClock.adjust("1 second")
          let restored: boolean | undefined
          const waiter = yield* Effect.forkChild(
            Effect.flatMap(Effect.context<never>(), (before) =>
              Effect.onExit(session.run("waiter"), () =>
                Effect.map(Effect.context<never>(), (after) => {
                  restored = after === before
                })
              )
            ).pipe(Effect.provideService(Tenant, "waiter"), Effect.provideService(References.MaxOpsBeforeYield, maxOps))
          )
          yield* Effect.yieldNow
          yield* Deferred.succeed(gate, undefined)
          for (let i = 0; i < yields; i++) yield* Effect.yieldNow
          yield* Fiber.interrupt(waiter)
          const exit = yield* Fiber.await(waiter)
          const first = yield* Fiber.join(holder)
          if (first.status !== "completed") problems.push(`${at}: the holder ${first.status}`)
          if (restored === false) problems.push(`${at}: context not put back`)
          if (yield* stuck(yield* Effect.forkChild(session.run("next"))))
            problems.push(`${at}: the next run never started`)
          const history = yield* session.history
          const unanswered = Content.unansweredToolUses(history)
          if (unanswered.length > 0) problems.push(`${at}: unanswered ${unanswered.join(",")}`)
          const inputs = userInputs(history)
          const waited = inputs.includes("waiter") ? "ran" : "never started"
          const key = `${waited}${Exit.hasInterrupts(exit) ? "" : ", not interrupted"}`
          waiterEnded.set(key, (waiterEnded.get(key) ?? 0) + 1)
          const expected = waited === "ran" ? ["first", "waiter", "next"] : ["first", "next"]
          if (inputs.join() !== expected.join()) problems.push(`${at}: runs ${inputs.join()}`)
          if ((yield* session.state).runs !== expected.length)
            problems.push(`${at}: ${(yield* session.state).runs} runs`)
        }
      assert.deepStrictEqual(problems, [])
      // The waiter was interrupted before it got the session, and after it had (its run ran).
      assert.isAbove(waiterEnded.get("never started") ?? 0, 0)
      assert.isAbove(waiterEnded.get("ran") ?? 0, 0)
    })
  )

  // A caller that has run ~2,040 operations without suspending asks for a run as the session's run ends (that
  // run held up by an observer of its run_ended): the yield falls at each operation of the asking run's start,
  // and the run must start once the session is free.
  it.effect("a run asked for as the session's run ends starts once it is free", () =>
    Effect.gen(function* () {
      const lost: Array<number> = []
      for (let n = 990; n <= 1050; n++) {
        const gate = yield* Deferred.make<void>()
        const bus = EventBus.of([
          {
            onEvent: (event) =>
              event.type === "run_ended" && event.run_id.endsWith("/run-1") ? Deferred.await(gate) : Effect.void
          }
        ])
        const model = yield* ScriptedModel.make([ScriptedModel.text("one"), ScriptedModel.text("two")])
        const session = yield* Session.make({ model: "m" }).pipe(
          Effect.provide(model.layer),
          Effect.provideService(EventBus.EventBus, bus)
        )
        const holder = yield* Effect.forkChild(session.run("first"))
        yield* TestClock.adjust("1 second")
        // Forked before the holder is let go, so the scheduler runs the caller first, up to its yield.
        const waiter = yield* Effect.forkChild(afterOperations(n, session.run("second")))
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(holder)
        if (yield* stuck(waiter)) lost.push(n)
      }
      assert.deepStrictEqual(lost, [], "a run of a free session never started")
    })
  )

  // Three runs wait while one holds the session; interrupting the one the release would let in first must not
  // strand the other two.
  it.effect("three waiters, the first interrupted as the holder leaves: the other two run, one at a time", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      let inside = 0
      let most = 0
      const held: Toolbox.Service = {
        ...tools,
        invoke: (call) =>
          Effect.as(
            Effect.ensuring(
              Effect.andThen(
                Effect.sync(() => {
                  inside++
                  most = Math.max(most, inside)
                }),
                Deferred.await(gate)
              ),
              Effect.sync(() => inside--)
            ),
            Content.toolResult(call.id, "done")
          )
      }
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, provider),
        Effect.provideService(Toolbox.Toolbox, held)
      )
      const holder = yield* Effect.forkChild(session.run("first"))
      yield* TestClock.adjust("1 second")
      const waiters = [
        yield* Effect.forkChild(session.run("first")),
        yield* Effect.forkChild(session.run("first")),
        yield* Effect.forkChild(session.run("first"))
      ]
      yield* TestClock.adjust("1 second")
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.interrupt(waiters[0]!)
      yield* Fiber.join(holder)
      const rest = yield* TestClockDriver.run(Fiber.joinAll([waiters[1]!, waiters[2]!]))
      assert.deepStrictEqual(
        rest.map((outcome) => outcome.status),
        ["completed", "completed"]
      )
      assert.strictEqual(most, 1, "two runs of one session ran a tool at once")
      assert.deepStrictEqual(Content.unansweredToolUses(yield* session.history), [])
    })
  )
})

describe("the run lock: an interrupted run whose close fails", () => {
  // Closing an interrupted run calls the toolbox's `onRunInterrupted`; a close that dies must not keep the
  // session, or every later run of it would wait for good.
  it.effect("a toolbox whose onRunInterrupted dies still frees the session", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "t1", name: "echo" }),
        ScriptedModel.text("two")
      ])
      const toolbox: Toolbox.Service = {
        definitions: Effect.succeed([{ name: "echo", description: "Echo", input_schema: { type: "object" } }]),
        invoke: () => Effect.never,
        onRunInterrupted: Effect.die(new Error("cleanup failed"))
      }
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
      const first = yield* Effect.forkChild(session.run("first"))
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(first)
      assert.isFalse(
        yield* stuck(yield* Effect.forkChild(session.run("second"))),
        "the session's next run never started"
      )
      // The run's end still answered the call it left pending.
      assert.deepStrictEqual(Content.unansweredToolUses(yield* session.history), [])
    })
  )
})
