/**
 * A runner stopped with SIGTERM in the middle of its sessions' model calls
 * and tool calls: two runner processes over one Postgres, each with its own
 * MCP counter fixtures (real processes) that record every invocation in a
 * file. The stopped runner drains (`Runner.drain`): its calls in flight
 * finish, it hands its shards over, and the other runner finishes its
 * sessions from the journal with nothing cut off and nothing run twice.
 */
import { DurableSessions } from "@agent-kernel/durable"
import { Content } from "@agent-kernel/kernel"
import { FakeProvider, type FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
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
          console.log(
            `drain: stopped with ${atStop.models} model call(s) and tool calls ${atStop.tools.join(", ")} in flight; ` +
              `exit code ${code}; ${requests.length} model requests, ${Counters.startsOver(files).size} tool calls`
          )
        })
      ),
    600_000
  )
})
