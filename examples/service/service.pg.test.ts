/**
 * The example service as it runs: two runner processes (`main.ts start`) over
 * the throwaway Postgres of the run, every prompt sent to ONE runner's HTTP
 * port, the events of every session streamed back from it, including the
 * sessions whose shard the other runner holds.
 */
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { postgresUrl } from "../../packages/cluster/test/postgres.js"
import * as Api from "./Api.js"
import * as ApiClient from "./ApiClient.js"
import * as RunnerProcess from "./RunnerProcess.js"

const decodeError = Schema.decodeUnknownEffect(Schema.fromJsonString(Api.ErrorBody))

/** POSTs a prompt over real HTTP and reads the whole answer. */
const post = (base: string, id: string, body: string) => Effect.orDie(ApiClient.post(base, id, body))

const answer = "The service answers."

/** The log's order: each line's position comes after the one before it. */
const assertInOrder = (id: string, lines: ReadonlyArray<typeof Api.Line.Type>) => {
  const seqs = lines.flatMap((line) => ("seq" in line ? [line.seq] : []))
  for (const [k, seq] of seqs.entries()) {
    if (k > 0) assert.isAbove(seq, seqs[k - 1]!, `${id}: position ${seq} came after ${seqs[k - 1]}`)
  }
}

describe("the example service on two runner processes", () => {
  it.live(
    "prompts sent to one runner stream every session's events back, from both runners; bad input gets typed 4xx",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const database = `service_${Date.now()}`
          const url = yield* RunnerProcess.freshDatabase(postgresUrl(), database)
          // Every answer is held after its first event until `release`: every run stays in progress
          // until the test lets them finish, whatever the machine's speed.
          const provider = yield* FakeProvider.make(
            FaultPlan.make([{ kind: "reply", text: answer, hold_after_events: 1 }], { after: "repeat_last" })
          )
          const [a, b] = yield* Effect.all(
            [
              RunnerProcess.start({ databaseUrl: url, providerUrl: provider.url }),
              RunnerProcess.start({ databaseUrl: url, providerUrl: provider.url })
            ],
            { concurrency: "unbounded" }
          )
          yield* RunnerProcess.awaitShards(url, 2)

          const ids = Array.from({ length: 16 }, (_, i) => `session-${i}`)
          const answers = yield* Effect.forkChild(
            Effect.forEach(ids, (id) => post(a.http, id, JSON.stringify({ prompt: `hello ${id}` })), {
              concurrency: "unbounded"
            })
          )
          // Every run is in progress: a second prompt for one of them, on the other runner, is a 409.
          yield* provider.awaitRequests(ids.length)
          const pending = yield* post(b.http, "session-0", JSON.stringify({ prompt: "again" }))
          assert.strictEqual(pending.status, 409)
          assert.strictEqual((yield* decodeError(pending.text)).error, "run_pending")
          yield* provider.release

          const responses = yield* Fiber.join(answers)
          const ranOn = new Set<string>()
          for (const [i, response] of responses.entries()) {
            const id = ids[i]
            assert.strictEqual(response.status, 200, response.text)
            assert.strictEqual(response.type, "application/x-ndjson")
            const lines = yield* ApiClient.lines(response.text)
            const events = lines.flatMap((line) => ("event" in line ? [line.event] : []))
            assert.strictEqual(events.length, lines.length, `no error line for ${id}`)
            assertInOrder(`${id}`, lines)
            const first = events[0]
            const last = events[events.length - 1]
            assert.deepInclude(first, { type: "run_started", run_id: `${id}/run-1`, input: `hello ${id}` })
            assert.deepInclude(last, {
              type: "run_ended",
              run_id: `${id}/run-1`,
              status: "completed",
              final_text: answer
            })
            assert.isTrue(events.some((event) => event.type === "text_delta"))
            for (const line of lines) if ("runner" in line) ranOn.add(line.runner)
          }
          // Every session's events came back through runner A; some of them ran on runner B.
          assert.deepStrictEqual([...ranOn].sort(), [a.runner, b.runner].sort())
          // No model call was sent twice, and the refused prompt sent none.
          assert.strictEqual((yield* provider.requests).length, ids.length)

          // Bad input: typed 400s, before any run starts.
          const badId = yield* post(a.http, "not%20an%20id", JSON.stringify({ prompt: "x" }))
          const notJson = yield* post(a.http, "session-x", "{")
          const noPrompt = yield* post(a.http, "session-x", JSON.stringify({ prompt: "" }))
          for (const bad of [badId, notJson, noPrompt]) {
            assert.strictEqual(bad.status, 400, bad.text)
            assert.strictEqual((yield* decodeError(bad.text)).error, "invalid_request")
          }
          // A session's next prompt is its next run, on the history of the first.
          const second = yield* post(a.http, "session-1", JSON.stringify({ prompt: "and again" }))
          const secondLines = yield* ApiClient.lines(second.text)
          assertInOrder("session-1", secondLines)
          const runIds = secondLines.flatMap((line) =>
            "event" in line && (line.event.type === "run_started" || line.event.type === "run_ended")
              ? [line.event.run_id]
              : []
          )
          assert.deepStrictEqual(runIds, ["session-1/run-2", "session-1/run-2"])
          const requests = yield* provider.requests
          assert.strictEqual(requests.length, ids.length + 1)
          // The model saw the first run's prompt and answer before the new prompt.
          const body = requests[requests.length - 1]?.body
          assert.strictEqual(
            Schema.decodeUnknownSync(Schema.Struct({ messages: Schema.Array(Schema.Unknown) }))(body).messages.length,
            3
          )
        })
      ),
    300_000
  )
})
