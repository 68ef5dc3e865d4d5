/**
 * A runner stopped with SIGTERM in the middle of its sessions' model calls
 * and tool calls: two runner processes over one Postgres, each with its own
 * MCP counter fixtures (real processes) that record every invocation in a
 * file. The stopped runner drains (`Runner.drain`): its calls in flight
 * finish, it hands its shards over, and the other runner finishes its
 * sessions from the journal with nothing cut off and nothing run twice.
 * The runners journal `AgentRun`'s steps in the store's SQL (`Engine.clusterSteps`,
 * which `Runner.layer` provides), in the body's fiber: the drain's gate is
 * `AgentRun.StepGate`, which every such step passes.
 */
import { DurableSessions } from "@agent-kernel/durable"
import { Content, ModelProvider, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { FakeProvider, type FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Runner from "../src/Runner.js"
import * as Ports from "../src/testing/Ports.js"
import * as Counters from "./counters.js"
import * as Runners from "./runners.js"

const Report = Schema.fromJsonString(
  Schema.Struct({ statuses: Schema.Array(Schema.String), errors: Schema.Array(Schema.String) })
)
const Stats = Schema.fromJsonString(Schema.Struct({ inFlight: Schema.Number }))
const Messages = Schema.Struct({ messages: Schema.Array(Schema.Unknown) })

const sessions = 16
/** Answers alternate between the `count` tool (a write) and `recount` (declared idempotent by the runners). */
const toolOf = (index: number) => (index % 2 === 0 ? "count" : "recount")

/**
 * Scripted tool calls, about four a session, whose key is the answer's index
 * (a key invoked twice is one tool_use executed twice), taking 200 to 1200
 * ms so that the sessions fall out of step; then "done".
 */
const plan: FaultPlan.FaultPlan = {
  steps: [
    ...Array.from(
      { length: sessions * 4 },
      (_, i): FaultPlan.Step => ({
        kind: "reply",
        delay_ms: 200 + (i % 6) * 200,
        tool_calls: [{ name: toolOf(i), input: { key: `k${i}` }, id: `toolu_k${i}` }],
        stop: "tool_use"
      })
    ),
    { kind: "reply", delay_ms: 600, text: "done" }
  ],
  after: "repeat_last"
}

describe("a runner stopped with SIGTERM mid-run", () => {
  it.live(
    "drains: its calls in flight finish, its shards move at once, and its sessions finish on the other runner with no call cut off or run twice",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* Runners.freshStore("drain_mcp")
          const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cluster-drain-"))
          yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
          const server = yield* FakeProvider.make(plan)
          const ids = Array.from({ length: sessions }, (_, i) => `${store.database}-${i}`)
          const files = [0, 1].map((r) => path.join(dir, `counts-${r}.txt`))
          // The stopped runner (the second) submits no session: the other waits on every one of them.
          const [survivor, stopped] = yield* Runners.startRunners(
            store,
            {
              PROVIDER_URL: server.url,
              COUNTER_DELAY_MS: "1500",
              SETTINGS: JSON.stringify({ jitter: "none" }),
              // A drain long enough for any call, however loaded the machine: none is cut off.
              DRAIN_TIMEOUT_SECONDS: "120"
            },
            [
              { COUNTER_FILE: files[0]!, SESSIONS: ids.join(",") },
              { COUNTER_FILE: files[1]!, SESSIONS: "" }
            ]
          )
          yield* survivor!.go

          // The stop comes while the runner has a model call and a tool call in flight.
          const busy = Effect.map(Effect.flatMap(stopped!.ask("stats"), Schema.decodeEffect(Stats)), (stats) => ({
            models: stats.inFlight,
            tools: Counters.inFlight(files[1]!)
          })).pipe(Effect.orDie)
          const atStop = yield* Runners.pollUntil(
            busy,
            (now) => now.models > 0 && now.tools.length > 0,
            "50 millis"
          ).pipe(
            Effect.timeoutOrElse({
              duration: "120 seconds",
              orElse: () => Effect.die(new Error("the runner never had a model call and a tool call in flight at once"))
            })
          )
          yield* stopped!.kill("SIGTERM")
          const code = yield* stopped!.exited.pipe(
            Effect.timeoutOrElse({
              duration: "120 seconds",
              orElse: () => Effect.die(new Error("the runner never exited after SIGTERM"))
            })
          )

          const report = yield* Effect.flatMap(survivor!.report, Schema.decodeEffect(Report))
          assert.deepStrictEqual([...new Set(report.statuses)], ["completed"], report.errors.join("\n"))
          assert.strictEqual(report.statuses.length, sessions)
          // The survivor holds every shard.
          yield* Runners.settled(store, 1)

          // The tool calls in flight at the stop finished there: their counter recorded their end.
          const stoppedCalls = Counters.invocations(files[1]!)
          for (const key of atStop.tools) assert.isTrue(stoppedCalls.get(key)?.ended, `${key} was cut off by the stop`)
          // No tool call ran twice, none got the unknown-outcome result, every tool_use is answered.
          const states = yield* Effect.forEach(ids, (id) =>
            Effect.map(DurableSessions.read(id), (state) => ({ id, state: Option.getOrThrow(state) }))
          ).pipe(Effect.provide(Runners.clientOf(store.url)), Effect.orDie)
          for (const { id, state } of states) {
            assert.deepStrictEqual(
              Content.unansweredToolUses(state.history),
              [],
              `${id}: a tool_use without its result`
            )
          }
          for (const [key, count] of Counters.startsOver(files)) {
            assert.strictEqual(count, 1, `${key} was invoked ${count} times`)
            const results = states.flatMap(({ state }) => {
              const result = Counters.resultOf(state.history, `toolu_${key}`)
              return result === undefined ? [] : [result]
            })
            assert.strictEqual(results.length, 1, `${key}: one tool_result`)
            assert.isFalse(Counters.unknownOutcome(results[0]!), `${key}: ${results[0]}`)
          }
          // No model call was sent twice: each request's conversation is one no other request had.
          const requests = yield* server.requests
          const conversations = requests.map((request) =>
            JSON.stringify(Schema.decodeUnknownSync(Messages)(request.body).messages)
          )
          assert.strictEqual(new Set(conversations).size, conversations.length, "a model call was sent twice")
          // Each model call is one step journaled in the store's own table (clusterSteps), once.
          const journaled = yield* Effect.flatMap(
            SqlClient.SqlClient,
            (sql) =>
              sql<{ readonly steps: number }>`SELECT count(*)::int AS steps FROM workflow_activities
                WHERE name LIKE 'model/%'`
          ).pipe(Effect.provide(Runners.clientOf(store.url)), Effect.orDie)
          assert.strictEqual(journaled[0]?.steps, requests.length, "model calls journaled by clusterSteps")
          console.log(
            `drain: stopped with ${atStop.models} model call(s) and tool calls ${atStop.tools.join(", ")} in flight; ` +
              `exit code ${code}; ${requests.length} model requests, ${Counters.startsOver(files).size} tool calls`
          )
        })
      ),
    600_000
  )
})

/** A model call: the runner that made it and its conversation (a call sent twice has the same). */
interface Call {
  readonly runner: string
  readonly conversation: string
}

/**
 * The model of the runner `runner`: each session's first call (a tool call, `note`) waits until
 * `release` opens; its second answers "done" at once. Every call is recorded in `calls`.
 */
const heldModel = (runner: string, calls: Array<Call>, release: Latch.Latch): ModelProvider.Service =>
  ModelProvider.fromGenerate(runner, (request) =>
    Effect.suspend(() => {
      calls.push({ runner, conversation: JSON.stringify(request.messages) })
      return request.messages.some((message) => message.role === "assistant")
        ? Effect.succeed(ScriptedModel.text("done"))
        : Effect.as(release.await, ScriptedModel.toolCalls({ id: "t1", name: "note" }))
    })
  )

/** A tool that records the runner that ran it. */
const notes = (runner: string, invoked: Array<string>): Toolbox.Service => ({
  definitions: Effect.succeed([]),
  invoke: (call) =>
    Effect.sync(() => {
      invoked.push(runner)
      return Content.toolResult(call.id, "noted")
    })
})

/** Durable sessions on a runner of this process (`Runner.layer`, so the steps are journaled by clusterSteps). */
const runnerLayer = (url: string, runner: string, calls: Array<Call>, invoked: Array<string>, release: Latch.Latch) =>
  Effect.map(Effect.orDie(Ports.free), (port) =>
    DurableSessions.layer({ model: "m", settings: { ...Settings.defaults, jitter: "none" } }).pipe(
      Layer.provideMerge(Runner.layer({ host: "127.0.0.1", port, drainTimeout: "120 seconds" })),
      Layer.provide(Layer.succeed(ModelProvider.ModelProvider, heldModel(runner, calls, release))),
      Layer.provide(Toolbox.layer(notes(runner, invoked))),
      Layer.provideMerge(Runners.clientOf(url))
    )
  )

describe("a drain with AgentRun's steps journaled by clusterSteps (two runners in this process)", () => {
  it.live(
    "waits for the model steps in flight; the runs' next steps are taken by the other runner, and no model call is sent twice",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* Runners.freshStore("drain_steps")
          const calls: Array<Call> = []
          const invoked: Array<string> = []
          const release = yield* Latch.make(false)
          const drainedScope = yield* Scope.make()
          yield* Effect.addFinalizer(() => Scope.close(drainedScope, Exit.void))
          const drained = yield* Layer.buildWithScope(
            yield* runnerLayer(store.url, "drained", calls, invoked, release),
            drainedScope
          ).pipe(Effect.orDie)
          const other = yield* Layer.build(yield* runnerLayer(store.url, "other", calls, invoked, release)).pipe(
            Effect.orDie
          )
          yield* Runners.settled(store, 2)

          // Every session's first model call, on whichever runner holds its shard, held.
          const ids = Array.from({ length: sessions }, (_, i) => `s${i}`)
          const durable = Context.get(other, DurableSessions.DurableSessions)
          // The callers wait on the other runner. One whose run's body the hand-over cut off learns of it as an
          // interruption (effect/cluster's reply), while the run goes on: the runs' ends are read from the store.
          const callers = yield* Effect.forkChild(
            Effect.forEach(ids, (id) => Effect.exit(durable.run(id, `note ${id}`)), { concurrency: "unbounded" })
          )
          yield* Runners.pollUntil(
            Effect.sync(() => calls.length),
            (n) => n === sessions,
            "20 millis"
          ).pipe(
            Effect.timeoutOrElse({ duration: "120 seconds", orElse: () => Effect.die(new Error("calls never held")) })
          )
          const held = calls.filter((call) => call.runner === "drained").length
          assert.isAbove(held, 0, "no session's shard was on the drained runner")

          // The drain waits for the held model steps: it has not ended while they are held.
          const drain = yield* Effect.forkChild(Context.get(drained, Runner.Runner).drain)
          const early = yield* Effect.timeoutOption(Fiber.await(drain), "2 seconds")
          assert.isTrue(Option.isNone(early), "the drain ended with model steps in flight")
          yield* release.open
          yield* Fiber.join(drain)

          const ended = yield* Runners.pollUntil(
            Effect.orDie(durable.list),
            (listed) => listed.length === sessions && listed.every((session) => session.status !== "running"),
            "100 millis"
          ).pipe(
            Effect.timeoutOrElse({ duration: "120 seconds", orElse: () => Effect.die(new Error("runs never ended")) })
          )
          assert.deepStrictEqual([...new Set(ended.map((session) => session.status))], ["completed"])
          const exits = yield* Fiber.join(callers)
          // The drained runner made only the calls it held: each run's next step (its tool call, its second
          // model call) was taken by the other runner, which did not send the held call again.
          assert.strictEqual(calls.filter((call) => call.runner === "drained").length, held)
          assert.strictEqual(invoked.filter((runner) => runner === "drained").length, 0)
          assert.strictEqual(invoked.length, sessions)
          assert.strictEqual(calls.length, 2 * sessions)
          assert.strictEqual(new Set(calls.map((call) => call.conversation)).size, calls.length, "a call sent twice")
          console.log(
            `drain (clusterSteps): ${held} of ${sessions} sessions' model calls held on the drained runner; ` +
              `${exits.filter(Exit.isFailure).length} callers cut off`
          )
        })
      ),
    600_000
  )
})
