/**
 * The run inspector mounted in the example service at `/inspector`: a runner
 * process (`main.ts start`) over the run's throwaway Postgres prints the
 * inspector's address and token at start; its sessions page lists the
 * sessions the service ran (one in progress, one completed), and its
 * interrupt stops a run in progress as the caller's Ctrl-C would. Real HTTP,
 * real processes.
 */
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { postgresUrl } from "../../packages/cluster/test/postgres.js"
import * as ApiClient from "./ApiClient.js"
import * as RunnerProcess from "./RunnerProcess.js"

const Summaries = Schema.Struct({
  total: Schema.Number,
  sessions: Schema.Array(Schema.Struct({ id: Schema.String, status: Schema.String, runs: Schema.Number }))
})

/** GETs an inspector JSON page over real HTTP. */
const getJson = <S extends Schema.Top>(url: string, schema: S) =>
  Effect.promise(() => fetch(url).then((response) => response.text())).pipe(
    Effect.flatMap(Schema.decodeUnknownEffect(Schema.fromJsonString(schema))),
    Effect.orDie
  )

/** Real time passes: `check` again every 100 ms until `done`, for 60 s at most (a ceiling for a stuck runner). */
const until = <A, E>(check: Effect.Effect<A, E>, done: (a: A) => boolean) =>
  Effect.repeat(check, { until: done, schedule: Schedule.spaced(Duration.millis(100)) }).pipe(
    Effect.timeoutOrElse({ duration: Duration.seconds(60), orElse: () => Effect.die(new Error("timed out waiting")) })
  )

describe("the example service's run inspector", () => {
  it.live(
    "is mounted at /inspector: lists the sessions the service ran, and interrupts one in progress with the printed token",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const url = yield* RunnerProcess.freshDatabase(postgresUrl(), `service_inspector_${Date.now()}`)
          // The first answer is held after its first event until `release`; the next ones at once.
          const provider = yield* FakeProvider.make(
            FaultPlan.make([
              { kind: "reply", text: "never finished", hold_after_events: 1 },
              { kind: "reply", text: "The service answers." }
            ])
          )
          const runner = yield* RunnerProcess.start({ databaseUrl: url, providerUrl: provider.url })
          yield* RunnerProcess.awaitShards(url, 1)
          const printed = yield* until(runner.output, (output) => output.includes("run inspector: "))
          const banner = /run inspector: (http:\/\/\S+\/) \(action token: (\S+)\)/.exec(printed)
          assert.isNotNull(banner, printed)
          const [, inspector, token] = banner!
          assert.strictEqual(inspector, `${runner.http}/inspector/`)

          const held = yield* Effect.forkChild(
            ApiClient.post(runner.http, "in-progress", JSON.stringify({ prompt: "go" }))
          )
          yield* provider.awaitRequests(1)
          const running = yield* until(getJson(`${inspector}api/sessions`, Summaries), (page) =>
            page.sessions.some((s) => s.id === "in-progress" && s.status === "running")
          )
          assert.strictEqual(running.total, 1)
          const html = yield* Effect.promise(() => fetch(inspector!).then((response) => response.text()))
          assert.include(html, "in-progress")

          // The action needs the token; with it the run ends interrupted, and its caller gets that end.
          const anonymous = yield* Effect.promise(() =>
            fetch(`${inspector}api/sessions/in-progress/interrupt`, { method: "POST" })
          )
          assert.strictEqual(anonymous.status, 401)
          const interrupted = yield* Effect.promise(() =>
            fetch(`${inspector}api/sessions/in-progress/interrupt`, {
              method: "POST",
              headers: { authorization: `Bearer ${token}` }
            }).then(async (response) => ({ status: response.status, text: await response.text() }))
          )
          assert.strictEqual(interrupted.status, 200, interrupted.text)
          const answer = yield* Fiber.join(held)
          assert.include(answer.text, '"status":"interrupted"')

          const completed = yield* ApiClient.post(runner.http, "completed", JSON.stringify({ prompt: "hello" }))
          assert.strictEqual(completed.status, 200, completed.text)
          const listed = yield* getJson(`${inspector}api/sessions`, Summaries)
          assert.deepStrictEqual(
            listed.sessions.map((s) => [s.id, s.status, s.runs]),
            [
              ["completed", "completed", 1],
              ["in-progress", "interrupted", 1]
            ]
          )
          yield* provider.release
        })
      ),
    300_000
  )
})
