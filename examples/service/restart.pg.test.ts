/**
 * A rolling restart of the example service under load: two runner processes
 * (`main.ts start`) over the run's throwaway Postgres, clients prompting
 * both without pause, and each runner stopped with SIGTERM in turn and
 * replaced while they do. A runner stopped so drains: it takes no new
 * prompt, lets its calls in flight finish, hands its shards over, and lets
 * its open answers follow their runs to their end on the other runner.
 */
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import { DurableSessions } from "@agent-kernel/durable"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { postgresUrl } from "../../packages/cluster/test/postgres.js"
import * as ApiClient from "./ApiClient.js"
import * as RunnerProcess from "./RunnerProcess.js"

/** Model calls of 300 to 1500 ms: one in two asks for a tool (unknown: an error result), so a run makes a few. */
const plan: FaultPlan.FaultPlan = {
  steps: Array.from(
    { length: 2_000 },
    (_, i): FaultPlan.Step =>
      i % 2 === 1
        ? { kind: "reply", delay_ms: 300 + (i % 5) * 300, text: `answer ${i}` }
        : {
            kind: "reply",
            delay_ms: 300 + (i % 5) * 300,
            tool_calls: [{ name: "lookup", input: { key: `k${i}` }, id: `toolu_k${i}` }],
            stop: "tool_use"
          }
  ),
  after: "repeat_last"
}

const Messages = Schema.Struct({ messages: Schema.Array(Schema.Unknown) })

/** What a client saw of one prompt. */
type Seen =
  | { readonly kind: "answered"; readonly id: string; readonly status: string; readonly runId: string }
  | { readonly kind: "cut" | "bad"; readonly id: string; readonly detail: string }

describe("a rolling restart of the service's two runners under load", () => {
  it.live(
    "SIGTERM drains each runner in turn: every prompt taken is answered and completed, no model call is sent twice",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const url = yield* RunnerProcess.freshDatabase(postgresUrl(), `restart_${Date.now()}`)
          const provider = yield* FakeProvider.make(plan)
          // A drain long enough for any call of the plan, however loaded the machine: none is cut off.
          const start = RunnerProcess.start({
            databaseUrl: url,
            providerUrl: provider.url,
            flags: ["--drain-timeout", "120"]
          })
          const first = yield* Effect.all([start, start], { concurrency: "unbounded" })
          yield* RunnerProcess.awaitShards(url, 2)
          // The runners a client may send to: a stopped runner leaves the list when it is sent SIGTERM.
          const live = yield* Ref.make<ReadonlyArray<RunnerProcess.RunnerProcess>>(first)
          const seen = yield* Ref.make<ReadonlyArray<Seen>>([])
          const stopping = yield* Ref.make(false)

          /**
           * One prompt, sent until a runner takes it: a refused connection, a 503 (the runner is stopping) or a
           * 409 (a run pending) is sent again; anything else is what it got.
           */
          const prompt = (id: string, k: number, turn: number): Effect.Effect<void> =>
            Effect.gen(function* () {
              const runners = yield* Ref.get(live)
              const target = runners[(k + turn) % runners.length]!
              const answer = yield* Effect.result(
                ApiClient.post(target.http, id, JSON.stringify({ prompt: `${id} prompt ${k}` }))
              )
              if (answer._tag === "Failure") {
                if (answer.failure.kind === "unreachable")
                  return yield* Effect.andThen(Effect.sleep("200 millis"), prompt(id, k, turn + 1))
                return yield* Ref.update(
                  seen,
                  (all): ReadonlyArray<Seen> => [
                    ...all,
                    { kind: "cut", id, detail: `${answer.failure.message}: ${answer.failure.text.slice(-300)}` }
                  ]
                )
              }
              const { status, text } = answer.success
              if (status === 503 || status === 409)
                return yield* Effect.andThen(Effect.sleep("200 millis"), prompt(id, k, turn + 1))
              const lines = yield* Effect.orDie(ApiClient.lines(text))
              const first = lines[0]
              const last = lines[lines.length - 1]
              // An answer is one run's events, from its run_started to its run_ended: none of a run before it.
              const entry: Seen =
                status === 200 &&
                first !== undefined &&
                "event" in first &&
                first.event.type === "run_started" &&
                last !== undefined &&
                "event" in last &&
                last.event.type === "run_ended" &&
                last.event.run_id === first.event.run_id
                  ? { kind: "answered", id, status: last.event.status, runId: last.event.run_id }
                  : { kind: "bad", id, detail: `${status} ${text.slice(-300)}` }
              yield* Ref.update(seen, (all) => [...all, entry])
            })

          /** A session's client: prompts one after the other, at least three, until the restarts are over. */
          const client = (id: string) =>
            Effect.gen(function* () {
              for (let k = 0; k < 3 || !(yield* Ref.get(stopping)); k++) yield* prompt(id, k, 0)
            })
          const ids = Array.from({ length: 10 }, (_, i) => `s${i}`)
          const load = yield* Effect.forkChild(Effect.forEach(ids, client, { concurrency: "unbounded" }))

          /**
           * Stops `runner` with SIGTERM (it leaves the clients' list) and starts its replacement while it drains, as
           * an orchestrator does; the replacement joins the clients' list once it listens, and the cluster once the
           * shards have settled over it and the other runner.
           */
          const restart = (runner: RunnerProcess.RunnerProcess) =>
            Effect.gen(function* () {
              yield* Ref.update(live, (runners) => runners.filter((r) => r !== runner))
              yield* runner.kill("SIGTERM")
              const exit = runner.exited.pipe(
                Effect.timeoutOrElse({
                  duration: "180 seconds",
                  orElse: () => Effect.die(new Error(`${runner.runner} never exited after SIGTERM`))
                })
              )
              const [code, replacement] = yield* Effect.all([exit, start], { concurrency: "unbounded" })
              yield* Ref.update(live, (runners) => [...runners, replacement])
              yield* RunnerProcess.awaitShards(url, 2)
              return { code, output: yield* runner.output }
            })

          // Calls in flight on both runners before each stop.
          yield* provider.awaitRequests(20)
          const a = yield* restart(first[0]!)
          const before = (yield* provider.requests).length
          yield* provider.awaitRequests(before + 20)
          const b = yield* restart(first[1]!)
          yield* Ref.set(stopping, true)
          yield* Fiber.join(load).pipe(
            Effect.timeoutOrElse({
              duration: "300 seconds",
              orElse: () => Effect.die(new Error("the clients never finished"))
            })
          )

          const all = yield* Ref.get(seen)
          const answered = all.filter((entry) => entry.kind === "answered")
          console.log(
            `rolling restart: ${all.length} prompts taken, ${(yield* provider.requests).length} model calls; ` +
              `exit codes ${a.code}, ${b.code}`
          )
          // Every prompt a runner took was answered to its end, and completed.
          assert.deepStrictEqual(
            all.filter((entry) => entry.kind !== "answered"),
            [],
            `stopped runners printed:\n${a.output.slice(-2_000)}\n${b.output.slice(-2_000)}`
          )
          assert.deepStrictEqual(
            [...new Set(answered.map((entry) => entry.kind === "answered" && entry.status))],
            ["completed"]
          )
          // The store agrees: each session's runs are the prompts it was answered, the last one completed.
          const summaries = yield* DurableSessions.summaries.pipe(
            Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
            Effect.orDie
          )
          for (const id of ids) {
            const summary = summaries.find((s) => s.id === id)
            const runs = answered.filter((entry) => entry.id === id).length
            assert.deepInclude(summary, { id, status: "completed", runs }, id)
          }
          // No model call was sent twice: each request's conversation is one no other request had.
          const requests = yield* provider.requests
          const conversations = requests.map((request) =>
            JSON.stringify(Schema.decodeUnknownSync(Messages)(request.body).messages)
          )
          assert.strictEqual(new Set(conversations).size, conversations.length, "a model call was sent twice")
        })
      ),
    900_000
  )
})

describe("a runner stopped with SIGTERM while its calls outlast the drain", () => {
  it.live(
    "hands its shards over when the drain times out, with its answers still open; the runs finish on the other runner",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const url = yield* RunnerProcess.freshDatabase(postgresUrl(), `drain_timeout_${Date.now()}`)
          // Every answer is held after its first event until `release`: the calls outlast any drain.
          const provider = yield* FakeProvider.make(
            FaultPlan.make([{ kind: "reply", text: "held", hold_after_events: 1 }], { after: "repeat_last" })
          )
          const [stopped] = yield* Effect.all(
            [
              RunnerProcess.start({ databaseUrl: url, providerUrl: provider.url, flags: ["--drain-timeout", "3"] }),
              RunnerProcess.start({ databaseUrl: url, providerUrl: provider.url })
            ],
            { concurrency: "unbounded" }
          )
          yield* RunnerProcess.awaitShards(url, 2)
          const ids = Array.from({ length: 6 }, (_, i) => `held-${i}`)
          const answers = yield* Effect.forkChild(
            Effect.forEach(
              ids,
              (id) => Effect.result(ApiClient.post(stopped!.http, id, JSON.stringify({ prompt: `${id} hello` }))),
              { concurrency: "unbounded" }
            )
          )
          yield* provider.awaitRequests(ids.length)
          yield* stopped!.kill("SIGTERM")
          // The other runner takes every shard while the stopped runner's answers are still open: the hand-over
          // comes at the drain's end, not after the answers.
          yield* RunnerProcess.awaitShards(url, 1)
          assert.isUndefined(answers.pollUnsafe(), "the answers ended before the shards moved")
          yield* provider.release
          // Every run finishes on the other runner.
          const summaries = DurableSessions.summaries.pipe(
            Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
            Effect.orDie
          )
          const done = yield* Effect.repeat(summaries, {
            until: (all) => all.length === ids.length && all.every((s) => s.status !== "running"),
            schedule: Schedule.spaced("500 millis")
          }).pipe(
            Effect.timeoutOrElse({
              duration: "180 seconds",
              orElse: () => Effect.die(new Error("the runs never ended"))
            })
          )
          assert.deepStrictEqual([...new Set(done.map((s) => s.status))], ["completed"])
          yield* Fiber.join(answers)
          const code = yield* stopped!.exited
          console.log(
            `drain timeout: the stopped runner exited ${code}; ${(yield* provider.requests).length} model calls`
          )
        })
      ),
    600_000
  )
})
