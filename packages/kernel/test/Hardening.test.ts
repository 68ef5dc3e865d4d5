/**
 * The kernel's items of issue 10 (an adversarial audit): each test here failed on the code the
 * audit read, and names the item it proves.
 */
import {
  Content,
  ContextProvider,
  EventBus,
  type KernelEvent,
  ModelProvider,
  ResponsePart,
  Session,
  Settings,
  Toolbox
} from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { echoToolbox, ofType, runScript } from "./harness.js"

const noJitter = { jitter: "none" } as const

/** A toolbox that counts its calls and echoes their input. */
const countingToolbox = () => {
  const invoked: Array<string> = []
  const toolbox: Toolbox.Service = {
    ...echoToolbox,
    invoke: (call) => Effect.sync(() => invoked.push(call.id)).pipe(Effect.zipRight(echoToolbox.invoke(call)))
  }
  return { toolbox, invoked }
}

const toolUseIds = (message: Content.Message | undefined) =>
  message === undefined ? [] : Content.toolUses(message).map((call) => call.id)

const resultIds = (message: Content.Message | undefined) =>
  (message?.content ?? []).flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : []))

describe("item 1: tool_use ids are made unique before tools run", () => {
  for (const [name, ids] of [
    ["two calls share an id", ["dup", "dup"]],
    ["a server that omits ids sends empty ones", ["", ""]]
  ] as const) {
    it.effect(`${name}: every result is kept, and history, events and the next request agree`, () =>
      Effect.gen(function* () {
        const { outcome, events, calls } = yield* runScript(
          [
            ScriptedModel.toolCalls(
              { id: ids[0], name: "echo", input: { n: 1 } },
              { id: ids[1], name: "echo", input: { n: 2 } }
            ),
            ScriptedModel.text("done")
          ],
          { toolbox: echoToolbox }
        )
        assert.strictEqual(outcome.status, "completed")
        const [, assistant, results] = outcome.history
        const uses = toolUseIds(assistant)
        assert.lengthOf(new Set(uses), 2, `ids ${uses.join(", ")} are not unique`)
        assert.isTrue(uses.every((id) => id !== ""))
        // Each result sits with the call that produced it.
        assert.deepStrictEqual(resultIds(results), uses)
        assert.deepStrictEqual(
          results?.content.map((block) => (block.type === "tool_result" ? block.content : "")),
          ['{"n":1}', '{"n":2}']
        )
        assert.deepStrictEqual(
          ofType(events, "tool_call_started").map((event) => event.id),
          uses
        )
        assert.deepStrictEqual(
          ofType(events, "tool_result").map((event) => event.id),
          uses
        )
        const next = calls[1]!.request.messages
        assert.deepStrictEqual(toolUseIds(next.at(-2)), uses)
        assert.deepStrictEqual(resultIds(next.at(-1)), uses)
      })
    )
  }

  it.effect("a unique id is kept as the model sent it", () =>
    Effect.gen(function* () {
      const { outcome } = yield* runScript(
        [ScriptedModel.toolCalls({ id: "a", name: "echo" }, { id: "b", name: "echo" }), ScriptedModel.text("done")],
        { toolbox: echoToolbox }
      )
      assert.deepStrictEqual(toolUseIds(outcome.history[1]), ["a", "b"])
    })
  )
})

describe("item 2: a content-filtered response that asks for tools", () => {
  it.effect("every tool_use gets an error tool_result, no tool runs, and the next run sends a valid history", () =>
    Effect.gen(function* () {
      const { toolbox, invoked } = countingToolbox()
      const filtered: ModelProvider.ModelResponse = {
        ...ScriptedModel.refusal("I started to"),
        content: [Content.text("I started to"), Content.toolUse("t1", "echo", {}), Content.toolUse("t2", "echo", {})]
      }
      const model = yield* ScriptedModel.make([filtered, ScriptedModel.text("fine")])
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
      const outcome = yield* session.run("go")
      assert.strictEqual(outcome.status, "content_filtered")
      assert.deepStrictEqual(invoked, [])
      const last = outcome.history.at(-1)
      assert.strictEqual(last?.role, "user")
      assert.deepStrictEqual(resultIds(last), ["t1", "t2"])
      assert.isTrue(last?.content.every((block) => block.type === "tool_result" && block.is_error))
      yield* session.run("again")
      const [, second] = yield* model.requests
      const sent = second!.messages
      const uses = sent.findIndex((message) => toolUseIds(message).length > 0)
      assert.deepStrictEqual(resultIds(sent[uses + 1]), toolUseIds(sent[uses]))
    })
  )
})

describe("item 8: each model of the fallback chain gets its own max_retries", () => {
  it.effect("six 529s exhaust the primary, then a single 429 on the fallback is retried, not fatal", () =>
    Effect.gen(function* () {
      const { outcome, calls, events } = yield* runScript(
        [
          ...Array.from({ length: 6 }, () => ScriptedModel.error("overloaded")),
          ScriptedModel.rateLimited(),
          ScriptedModel.text("from b")
        ],
        { settings: { ...noJitter, fallback_models: ["model-b"] } }
      )
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(
        calls.map((call) => call.request.model),
        [...Array.from({ length: 6 }, () => "model-a"), "model-b", "model-b"]
      )
      assert.deepStrictEqual(
        ofType(events, "retry_scheduled").map((event) => [event.model, event.attempt]),
        [1, 2, 3, 4, 5].map((n) => ["model-a", n]).concat([["model-b", 1]])
      )
      // The session budget is the shared ceiling: every retry, and the fallback step, is charged.
      assert.strictEqual(outcome.retries.session_total, 7)
    })
  )

  it.effect("the session budget still caps the whole chain and is never reset by a fallback", () =>
    Effect.gen(function* () {
      const { outcome, calls } = yield* runScript(
        Array.from({ length: 20 }, () => ScriptedModel.error("server_error")),
        { settings: { ...noJitter, max_retries: 3, max_session_retries: 5, fallback_models: ["model-b", "model-c"] } }
      )
      assert.strictEqual(outcome.status, "retry_budget_exhausted")
      // model-a: a call and 3 retries (3 charges), the fallback (4), model-b: a call and one retry (5).
      assert.deepStrictEqual(
        calls.map((call) => call.request.model),
        ["model-a", "model-a", "model-a", "model-a", "model-b", "model-b"]
      )
      assert.strictEqual(outcome.retries.session_total, 5)
    })
  )
})

describe("item 9: the session budget refills the AWS SDK's way", () => {
  /** One session, several runs, each run's first call rate limited. */
  const interactive = (settings: Partial<Settings.Settings>, script: ReadonlyArray<"429" | "ok">, runs: number) =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make(
        script.map((step) => (step === "429" ? ScriptedModel.rateLimited() : ScriptedModel.text("ok")))
      )
      const session = yield* Session.make({
        model: "m",
        settings: { ...Settings.defaults, ...noJitter, ...settings }
      }).pipe(Effect.provide(model.layer))
      const statuses: Array<string> = []
      for (let i = 0; i < runs; i++) statuses.push((yield* TestClockDriver.run(session.run(`q${i}`))).status)
      return { statuses, budget: yield* session.retryBudget }
    })
  const eachRunRetriedOnce = (runs: number) => Array.from({ length: runs }, () => ["429", "ok"] as const).flat()

  it.effect("each successful call gives a retry back: a long session never starves", () =>
    Effect.gen(function* () {
      const { statuses, budget } = yield* interactive({ max_session_retries: 2 }, eachRunRetriedOnce(6), 6)
      assert.deepStrictEqual(
        statuses,
        Array.from({ length: 6 }, () => "completed")
      )
      assert.deepStrictEqual(budget, { used: 6, remaining: 2 })
    })
  )

  it.effect("session_retries_refill: false keeps a budget that never refills", () =>
    Effect.gen(function* () {
      const { statuses, budget } = yield* interactive(
        { max_session_retries: 2, session_retries_refill: false },
        [...eachRunRetriedOnce(2), "429", "429"],
        4
      )
      assert.deepStrictEqual(statuses, ["completed", "completed", "retry_budget_exhausted", "retry_budget_exhausted"])
      assert.deepStrictEqual(budget, { used: 2, remaining: 0 })
    })
  )

  it.effect("the refill never lifts the budget above max_session_retries: a storm is stopped at the ceiling", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ...Array.from({ length: 5 }, () => ScriptedModel.toolCalls({ id: "t", name: "echo" })),
        ...Array.from({ length: 10 }, () => ScriptedModel.error("overloaded")),
        ScriptedModel.text("never")
      ])
      const session = yield* Session.make({
        model: "m",
        settings: { ...Settings.defaults, ...noJitter, max_retries: 10, max_session_retries: 3 }
      }).pipe(Effect.provide(model.layer), Effect.provideService(Toolbox.Toolbox, echoToolbox))
      const outcome = yield* TestClockDriver.run(session.run("go"))
      assert.strictEqual(outcome.status, "retry_budget_exhausted")
      // Five successes refunded nothing past the ceiling: three retries, then the budget ran out.
      assert.strictEqual(outcome.retries.session_total, 3)
    })
  )
})

describe("item 10: a retry-after longer than max_retry_wait_ms", () => {
  const dayAndAnHour = 25 * 3_600_000

  it.effect("25 h: the call ends at once, retries_exhausted, with no sleep", () =>
    Effect.gen(function* () {
      const { outcome, calls } = yield* runScript([
        ScriptedModel.rateLimited({ retryAfterMs: dayAndAnHour }),
        ScriptedModel.text("never")
      ])
      assert.strictEqual(outcome.status, "retries_exhausted")
      assert.strictEqual(calls.length, 1)
      assert.strictEqual(outcome.wall_ms, 0)
      assert.deepStrictEqual(outcome.error?.retryAfter, Duration.millis(dayAndAnHour))
    })
  )

  it.effect("25 h with a fallback chain: the next model is tried at once", () =>
    Effect.gen(function* () {
      const { outcome, calls } = yield* runScript(
        [ScriptedModel.rateLimited({ retryAfterMs: dayAndAnHour }), ScriptedModel.text("from b")],
        { settings: { fallback_models: ["model-b"] } }
      )
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(
        calls.map((call) => [call.request.model, call.at]),
        [
          ["model-a", 0],
          ["model-b", 0]
        ]
      )
    })
  )
})

describe("item 12: an interrupt during a retry's sleep", () => {
  it.effect("gives the retry's budget token back: a retry that never ran is not charged", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 10_000 }),
        ScriptedModel.text("never")
      ])
      const ended: Array<string> = []
      const scheduled: Array<number> = []
      const bus = yield* EventBus.make([
        {
          onEvent: (event) =>
            Effect.sync(() => {
              if (event.type === "run_ended") ended.push(`${event.status} ${event.retries.session_total}`)
              if (event.type === "retry_scheduled") scheduled.push(event.session_retries_used)
            })
        }
      ])
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(EventBus.EventBus, bus)
      )
      const fiber = yield* Effect.fork(session.run("go"))
      yield* TestClock.adjust("1 second")
      // The retry was charged when it was scheduled, and the run is asleep until 10 s.
      assert.deepStrictEqual(scheduled, [1])
      assert.strictEqual((yield* session.retryBudget).used, 1)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(ended, ["interrupted 0"])
      assert.deepStrictEqual(yield* session.retryBudget, { used: 0, remaining: 20 })
      assert.lengthOf(yield* model.calls, 1)
    })
  )
})

describe("item 13: usage of failed attempts is counted", () => {
  it.effect("a stream cut mid-way spends its tokens: they count in usage and towards max_cost_usd", () =>
    Effect.gen(function* () {
      const spent = { input_tokens: 1_000, output_tokens: 1_000 }
      const { outcome, calls } = yield* runScript(
        [ScriptedModel.error("overloaded", { midStream: true, usage: spent }), ScriptedModel.text("never")],
        {
          // $1000 per million tokens each way: the failed attempt alone cost $2.
          settings: { max_cost_usd: 1, prices: { "model-a": { input_per_mtok: 1_000, output_per_mtok: 1_000 } } }
        }
      )
      assert.strictEqual(outcome.status, "cost_exceeded")
      assert.strictEqual(calls.length, 1)
      assert.deepInclude(outcome.usage, spent)
      assert.closeTo(outcome.cost_usd!, 2, 1e-9)
    })
  )

  it.effect("and in the run's usage when the retry then succeeds", () =>
    Effect.gen(function* () {
      const { outcome } = yield* runScript([
        ScriptedModel.error("overloaded", { midStream: true, usage: { input_tokens: 7, output_tokens: 3 } }),
        ScriptedModel.text("whole answer")
      ])
      assert.strictEqual(outcome.status, "completed")
      // 7 + 10 input and 3 + 5 output: the failed attempt, then the scripted answer's usage.
      assert.deepInclude(outcome.usage, { input_tokens: 17, output_tokens: 8 })
    })
  )
})

describe("item 5 (kernel side): model-call timeouts", () => {
  it.effect("model_attempt_timeout_ms cuts a hung attempt on the Clock as a transient timeout, then retries", () =>
    Effect.gen(function* () {
      const { outcome, calls, events } = yield* runScript([() => Effect.never, ScriptedModel.text("second try")], {
        settings: { ...noJitter, model_attempt_timeout_ms: 1_000 }
      })
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(
        calls.map((call) => call.at),
        [0, 1_500]
      )
      assert.deepStrictEqual(
        ofType(events, "retry_scheduled").map((event) => [event.category, event.delay_ms]),
        [["timeout", 500]]
      )
    })
  )

  // On the live clock the timeout is a plain timer rather than a sleeping fiber; it fires the same way,
  // with the attempt's parts observed (a stream, whose held time it leaves out) or not (a one-shot call).
  for (const observed of [false, true])
    it.live(
      `on the live clock, model_attempt_timeout_ms cuts a hung attempt too (${observed ? "a stream observed" : "a one-shot call"})`,
      () =>
        Effect.gen(function* () {
          let calls = 0
          const answer = ScriptedModel.text("second try")
          const provider = observed
            ? ModelProvider.make("p", () =>
                calls++ === 0 ? Stream.never : Stream.fromIterable(ResponsePart.fromResponse(answer))
              )
            : ModelProvider.fromGenerate("p", () => (calls++ === 0 ? Effect.never : Effect.succeed(answer)))
          const events: Array<KernelEvent.KernelEvent> = []
          const bus = yield* EventBus.make(
            observed ? [{ onEvent: (event) => Effect.sync(() => events.push(event)) }] : []
          )
          const session = yield* Session.make({
            model: "m",
            settings: { ...Settings.defaults, ...noJitter, base_delay_ms: 1, model_attempt_timeout_ms: 20 }
          }).pipe(
            Effect.provideService(ModelProvider.ModelProvider, provider),
            Effect.provideService(EventBus.EventBus, bus)
          )
          const outcome = yield* session.run("go")
          assert.strictEqual(outcome.status, "completed")
          assert.strictEqual(outcome.final_text, "second try")
          assert.strictEqual(calls, 2)
          if (observed)
            assert.deepStrictEqual(
              ofType(events, "retry_scheduled").map((event) => event.category),
              ["timeout"]
            )
        })
    )

  it.effect("a session provides its call timeouts to the provider, from its settings", () =>
    Effect.gen(function* () {
      const seen: Array<ModelProvider.CallTimeouts> = []
      const provider = ModelProvider.fromGenerate("p", () =>
        Effect.map(ModelProvider.CurrentCallTimeouts, (timeouts) => {
          seen.push(timeouts)
          return ScriptedModel.text("ok")
        })
      )
      const settings = {
        ...Settings.defaults,
        model_connect_timeout_ms: 1_234,
        model_first_byte_timeout_ms: 2_345,
        model_idle_timeout_ms: 3_456,
        model_attempt_timeout_ms: 4_567
      }
      const session = yield* Session.make({ model: "m", settings }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, provider)
      )
      yield* session.run("go")
      assert.deepStrictEqual(seen, [ModelProvider.callTimeoutsFrom(settings)])
      assert.strictEqual(Duration.toMillis(seen[0]!.idle), 3_456)
    })
  )
})

describe("tests the audit found missing", () => {
  it.effect("a reducer that returns a context of the same size is rejected: context_exhausted, never re-sent", () =>
    Effect.gen(function* () {
      // A copy of the messages in another order: a new value, but not a smaller one.
      const sameSize = ContextProvider.make((messages) => Effect.succeed(Option.some([...messages].reverse())))
      const history = [
        Content.userText("a question"),
        { role: "assistant" as const, content: [Content.text("an answer")] }
      ]
      const model = yield* ScriptedModel.make([ScriptedModel.contextOverflow(), ScriptedModel.text("never")])
      const session = yield* Session.make({ model: "m", history }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(ContextProvider.ContextProvider, sameSize)
      )
      const outcome = yield* session.run("go")
      assert.strictEqual(outcome.status, "context_exhausted")
      assert.lengthOf(yield* model.calls, 1)
    })
  )
})
