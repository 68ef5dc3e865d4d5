/**
 * A runner killed with SIGKILL in the middle of its sessions' model calls and
 * tool calls: three runner processes over one Postgres, each with its own MCP
 * counter fixtures (real processes) that record every invocation in a file.
 * The victim's shards move to the two others, which finish its sessions with
 * the crash semantics of durable sessions, read from the counters' files and
 * the sessions' stored histories.
 */
import { DurableSessions } from "@agent-kernel/durable"
import { Content } from "@agent-kernel/kernel"
import { FakeProvider, type FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Counters from "./counters.js"
import * as Runners from "./runners.js"

const Report = Schema.fromJsonString(
  Schema.Struct({ statuses: Schema.Array(Schema.String), errors: Schema.Array(Schema.String) })
)
const Stats = Schema.fromJsonString(Schema.Struct({ attempts: Schema.Number, inFlight: Schema.Number }))

/**
 * The sessions land on the runners by their ids' shards, a third each on average; the kill moment needs three
 * of them on the victim at once (a model call and one call of each tool), so there are enough that a draw leaving
 * it two or fewer is rare.
 */
const sessions = 30
/** The first answers are 429s with retry-after: 1, one a session, so every session spends retry budget early. */
const rateLimited = sessions
/** Scripted tool-call answers after those, before every session is told it is done: about four a session. */
const scripted = 4 * sessions
const isRateLimited = (index: number) => index < rateLimited
/** Answers alternate between the `count` tool (a write) and `recount` (declared idempotent by the runners). */
const toolOf = (index: number) => (index % 2 === 0 ? "count" : "recount")

/**
 * The provider's script, by arrival: 429s, then tool calls whose key is the
 * answer's index (so a key invoked twice is one tool_use executed twice),
 * then "done" for every request after the script.
 *
 * The 429s come first because a retry's wait suspends the run, and a
 * suspended run stops the plugin processes of its runner (see the package
 * README): the tool calls of the kill moment must not be cut off by that.
 */
/**
 * How long the fake takes over a scripted answer: 200 to 1200 ms by its index. The sessions all start with a
 * 429 and a 1 s wait, so with one delay they went on in step, every model call of a wave and then every tool
 * call; the moment the kill waits for (a model call and both tools in flight on the victim) lasted only as long
 * as the waves' spread, and a run could miss it for good ("the victim never had a model call and both tools in
 * flight at once"). Delays of several lengths put the sessions out of step after their first answer.
 */
const replyDelay = (index: number) => 200 + (index % 6) * 200

const plan: FaultPlan.FaultPlan = {
  steps: [
    ...Array.from(
      { length: rateLimited + scripted },
      (_, i): FaultPlan.Step =>
        isRateLimited(i)
          ? {
              kind: "error",
              status: 429,
              error_type: "rate_limit_error",
              message: "slow down",
              headers: { "retry-after": "1" }
            }
          : {
              kind: "reply",
              delay_ms: replyDelay(i),
              tool_calls: [{ name: toolOf(i), input: { key: `k${i}` }, id: `toolu_k${i}` }],
              stop: "tool_use"
            }
    ),
    { kind: "reply", delay_ms: 600, text: "done" }
  ],
  after: "repeat_last"
}

/** The index of the scripted answer a key came from. */
const indexOf = (key: string) => Number(key.slice(1))

describe("a runner killed with SIGKILL mid-run", () => {
  it.live(
    "its sessions finish on the two others: no completed tool call runs twice, an in-flight one gets the unknown-outcome result unless idempotent, every tool_use is answered, no budget goes down",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* Runners.freshStore("failover_mcp")
          const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cluster-failover-"))
          yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
          const server = yield* FakeProvider.make(plan)
          const ids = Array.from({ length: sessions }, (_, i) => `${store.database}-${i}`)
          const files = [0, 1, 2].map((r) => path.join(dir, `counts-${r}.txt`))
          // The victim (the last) submits no session: the two others wait on every one of them.
          const runners = yield* Runners.startRunners(
            store,
            // The victim's shards move once its heartbeat is 10 s old, not the default 30 s.
            {
              PROVIDER_URL: server.url,
              COUNTER_DELAY_MS: "1500",
              SETTINGS: JSON.stringify({ jitter: "none" }),
              SHARD_LOCK_EXPIRATION_SECONDS: "10"
            },
            [
              { COUNTER_FILE: files[0]!, SESSIONS: ids.filter((_, i) => i % 2 === 0).join(",") },
              { COUNTER_FILE: files[1]!, SESSIONS: ids.filter((_, i) => i % 2 === 1).join(",") },
              { COUNTER_FILE: files[2]!, SESSIONS: "" }
            ]
          )
          const victim = runners[2]!
          const survivors = runners.slice(0, 2)
          yield* Effect.forEach(runners, (runner) => runner.go)

          // The kill moment: a seeded delay after the first request, then the first moment at which the
          // victim has a model call and a call of each tool in flight.
          const delay = yield* Random.nextIntBetween(3_000, 6_000, { halfOpen: true }).pipe(Random.withSeed(15))
          yield* server.awaitRequests(1)
          yield* Effect.sleep(delay)
          // What is in flight on the victim: its model calls (its own count), its tool calls (its counters' file).
          const snapshot = Effect.map(Effect.flatMap(victim.ask("stats"), Schema.decodeEffect(Stats)), (stats) => ({
            models: stats.inFlight,
            tools: Counters.inFlight(files[2]!)
          })).pipe(Effect.orDie)
          const busy = (now: { readonly models: number; readonly tools: ReadonlyArray<string> }) => {
            const tools = now.tools.map((key) => toolOf(indexOf(key)))
            return now.models > 0 && tools.includes("count") && tools.includes("recount")
          }
          // The kill moment is read with the victim frozen (SIGSTOP): frozen, it takes in no tool's answer and
          // journals nothing, so a call still unanswered in its counters' file then is one the kill cuts off.
          // Read while it ran, a call could end and be journaled between the read and the signal, and the
          // checks of the cut-off calls below would find none.
          // What the last reads saw, for the message of a victim that is never busy.
          let last = { models: 0, tools: [] as ReadonlyArray<string>, frozenIdle: 0 }
          const frozen = Effect.gen(function* () {
            const running = yield* snapshot
            last = { ...last, ...running }
            if (!busy(running)) return Option.none()
            yield* victim.freeze
            const now = { models: running.models, tools: Counters.inFlight(files[2]!) }
            if (busy(now)) return Option.some(now)
            last = { ...last, frozenIdle: last.frozenIdle + 1 }
            yield* victim.thaw
            return Option.none()
          })
          const atKill = yield* Runners.pollUntil(frozen, Option.isSome, "50 millis").pipe(
            Effect.map(Option.getOrThrow),
            Effect.timeoutOrElse({
              duration: "90 seconds",
              orElse: () =>
                Effect.fail(
                  new Error(
                    `the victim never had a model call and both tools in flight at once (last read: ` +
                      `${last.models} model call(s), tool calls ${last.tools.join(", ") || "none"}; busy but no ` +
                      `longer once frozen: ${last.frozenIdle} time(s); its tool calls so far: ` +
                      `${[...Counters.invocations(files[2]!).keys()].join(", ") || "none"})`
                  )
                )
            })
          )
          const interrupted = atKill.tools
          const modelCallsInFlight = atKill.models
          const killedAt = Date.now()
          yield* victim.kill("SIGKILL")
          yield* victim.exited
          // The fake's clock is this process's: what it received before the kill.
          const requestsAtKill = (yield* server.requests).filter((request) => request.time <= killedAt)

          const reports = yield* Effect.forEach(
            survivors,
            (runner) => Effect.flatMap(runner.report, Schema.decodeEffect(Report)),
            { concurrency: "unbounded" }
          )
          const doneAt = Date.now()
          const statuses = reports.flatMap((report) => report.statuses)
          assert.strictEqual(statuses.length, sessions)
          assert.deepStrictEqual([...new Set(statuses)], ["completed"], reports.flatMap((r) => r.errors).join("\n"))
          // The survivors hold every shard between them.
          yield* Runners.settled(store, 2)

          // The sessions' stored histories.
          const states = yield* Effect.forEach(ids, (id) =>
            Effect.map(DurableSessions.read(id), (state) => ({ id, state: Option.getOrThrow(state) }))
          ).pipe(Effect.provide(Runners.clientOf(store.url)), Effect.orDie)
          for (const { id, state } of states) {
            assert.deepStrictEqual(
              Content.unansweredToolUses(state.history),
              [],
              `${id}: a tool_use without its tool_result`
            )
          }
          const resultsOf = (key: string) =>
            states.flatMap(({ state }) => {
              const result = Counters.resultOf(state.history, `toolu_${key}`)
              return result === undefined ? [] : [result]
            })
          const unknown = Counters.unknownOutcome

          // Invocations across all three runners' counters, against each call's result. A call is run again
          // only if it is idempotent and was cut off (its process died, or lost its shard); a cut-off write
          // is never run again, and its result says that its outcome is unknown.
          const starts = Counters.startsOver(files)
          for (const [key, count] of starts) {
            const tool = toolOf(indexOf(key))
            const results = resultsOf(key)
            assert.strictEqual(results.length, 1, `${key}: one tool_result`)
            const result = results[0]!
            if (tool === "count") {
              assert.strictEqual(count, 1, `${key} (a write) was invoked ${count} times`)
            } else {
              assert.isAtMost(count, 2, `${key} (idempotent) was invoked ${count} times`)
              assert.isFalse(unknown(result), `${key} (idempotent) was not run again: ${result}`)
            }
            // A call that ran answers with its count, or with the error of its plugin process stopped under it:
            // the toolbox stops a runner's plugin when a call on it is interrupted (a shard lost under load).
            if (!unknown(result))
              assert.match(result, new RegExp(`counted ${key}|was stopped before the call completed`))
          }
          const stopped = [...starts.keys()].filter((key) => resultsOf(key)[0]!.includes("was stopped before"))
          // The kill cut off calls of both kinds (a call in flight when the files were read may still
          // have finished and been journaled before the signal landed: those read as completed above).
          const cutWrites = interrupted.filter((key) => toolOf(indexOf(key)) === "count" && unknown(resultsOf(key)[0]!))
          const rerunReads = interrupted.filter((key) => toolOf(indexOf(key)) === "recount" && starts.get(key) === 2)
          assert.isAbove(cutWrites.length, 0, `no write cut off by the kill got the unknown-outcome result`)
          assert.isAbove(rerunReads.length, 0, `no idempotent call cut off by the kill was run again`)

          // The session retry budget: each 429 a session got before the kill was a retry it spent; the
          // budget used after the failover is never lower.
          const sessionOf = (body: unknown) => /session ([a-z_]+_\d+-\d+)/.exec(JSON.stringify(body))?.[1]
          const retriesBeforeKill = new Map<string, number>()
          for (const request of requestsAtKill) {
            const id = sessionOf(request.body)
            if (id !== undefined && isRateLimited(request.index)) {
              retriesBeforeKill.set(id, (retriesBeforeKill.get(id) ?? 0) + 1)
            }
          }
          for (const { id, state } of states) {
            assert.isAtLeast(state.budget.used, retriesBeforeKill.get(id) ?? 0, `${id}: the budget went down`)
          }
          // Sessions had spent budget before the kill: the check above is not empty.
          assert.isAbove(
            [...retriesBeforeKill.values()].reduce((a, b) => a + b, 0),
            0
          )
          const victimSessions = new Set(
            [...Counters.invocations(files[2]!).keys()].flatMap((key) => {
              const id = sessionOf(requestsAtKill.find((request) => request.index === indexOf(key))?.body)
              return id === undefined ? [] : [id]
            })
          )
          console.log(
            `failover: killed ${delay} ms (seeded) + until busy after the first request, with ${modelCallsInFlight} model ` +
              `call(s) and tool calls ${interrupted.join(", ")} in flight on the victim (sessions ${victimSessions.size}); ` +
              `writes cut off: ${cutWrites.join(", ")}; idempotent calls run again: ${rerunReads.join(", ")}; ` +
              `calls answered "plugin stopped": ${stopped.join(", ") || "none"}; ` +
              `all ${sessions} sessions done ${((doneAt - killedAt) / 1_000).toFixed(1)} s after the kill; ` +
              `${(yield* server.requests).length} model requests; retries before the kill: ` +
              `${[...retriesBeforeKill.values()].reduce((a, b) => a + b, 0)}, budget used after: ` +
              `${states.reduce((sum, { state }) => sum + state.budget.used, 0)}`
          )
          assert.isAbove(modelCallsInFlight, 0)
        })
      ),
    900_000
  )
})
