/**
 * The README's two quickstarts, run as a user runs them: each file in its own
 * Node process, pointed at the fake provider server (a real HTTP server in
 * this process) through the variables a user sets (`ANTHROPIC_BASE_URL`,
 * `ANTHROPIC_API_KEY`), the files' code unchanged. The durable one is killed
 * (SIGKILL) mid-run and run again.
 */
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

const here = import.meta.dirname
const firstRun = path.join(here, "first-run.ts")
const durableRun = path.join(here, "durable-run.ts")
// One process per run (no tsx launcher in between), so that a SIGKILL reaches the program itself.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href

interface Ended {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

interface Running {
  /** Waits until the program has written `text` to stdout. */
  readonly printed: (text: string) => Effect.Effect<void>
  readonly ended: Effect.Effect<Ended>
  readonly kill: Effect.Effect<void>
}

/** The variables a user sets to point a quickstart at `baseUrl`. */
const pointedAt = (baseUrl: string): Record<string, string> => ({
  ANTHROPIC_BASE_URL: baseUrl,
  ANTHROPIC_API_KEY: "sk-quickstart"
})

/**
 * Starts a quickstart in `cwd` with these Anthropic variables (none other is inherited); the process
 * is killed when the scope closes, if it still runs.
 */
const start = (
  file: string,
  cwd: string,
  variables: Record<string, string>
): Effect.Effect<Running, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { ANTHROPIC_API_KEY: _key, ANTHROPIC_BASE_URL: _url, ...inherited } = process.env
    const child = spawn(process.execPath, ["--import", tsx, file], { cwd, env: { ...inherited, ...variables } })
    let stdout = ""
    let stderr = ""
    const waiting: Array<{ readonly text: string; readonly done: Deferred.Deferred<void> }> = []
    const ended = yield* Deferred.make<Ended>()
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      for (const wait of waiting) if (stdout.includes(wait.text)) Deferred.doneUnsafe(wait.done, Effect.void)
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    child.on("close", (code, signal) => Deferred.doneUnsafe(ended, Effect.succeed({ code, signal, stdout, stderr })))
    yield* Scope.addFinalizer(
      yield* Effect.scope,
      Effect.sync(() => child.kill("SIGKILL"))
    )
    return {
      printed: (text) =>
        Effect.suspend(() => {
          const done = Deferred.makeUnsafe<void>()
          waiting.push({ text, done })
          if (stdout.includes(text)) Deferred.doneUnsafe(done, Effect.void)
          // A program that ends without printing it fails the wait, with what it printed.
          return Effect.raceFirst(
            Deferred.await(done),
            Effect.flatMap(Deferred.await(ended), (end) =>
              Effect.die(
                new Error(
                  `the program ended (${end.code ?? end.signal}) before printing "${text}":\n${end.stdout}\n${end.stderr}`
                )
              )
            )
          )
        }),
      ended: Deferred.await(ended),
      kill: Effect.sync(() => child.kill("SIGKILL"))
    }
  })

const run = (file: string, cwd: string, variables: Record<string, string>) =>
  Effect.flatMap(start(file, cwd, variables), (running) => running.ended)

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "quickstart-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** The text of the tool results a request sends back to the model. */
const toolResultsOf = (body: unknown): ReadonlyArray<string> =>
  JSON.stringify(body)
    .split('"type":"tool_result"')
    .slice(1)
    .map((rest) => /"content":"((?:[^"\\]|\\.)*)"/.exec(rest)?.[1] ?? "")

describe("the quickstarts, run as programs against a real HTTP server", () => {
  it("each is at most 15 lines, imports included, blank lines excluded", () => {
    for (const file of [firstRun, durableRun]) {
      const lines = fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
      expect(lines.length, path.basename(file)).toBeLessThanOrEqual(15)
    }
  })

  it.live(
    "first-run: a rate limit retried, the tool run, a broken stream restarted, the answer streamed and completed",
    () =>
      Effect.gen(function* () {
        const server = yield* FakeProvider.make(
          FaultPlan.make([
            { kind: "error", status: 429, error_type: "rate_limit_error", headers: { "retry-after": "0" } },
            { kind: "reply", tool_calls: [{ name: "weather", input: { city: "Paris" } }], stop: "tool_use" },
            { kind: "stream_error", text: "It is sunny", error_type: "overloaded_error" },
            { kind: "reply", text: "It is sunny in Paris, 21 °C.", stop: "end_turn" }
          ])
        )
        const ended = yield* run(firstRun, here, pointedAt(server.url))
        expect(ended.stderr).toBe("")
        expect(ended.code).toBe(0)
        // The failed attempt's text, then the answer from its start; then the status.
        expect(ended.stdout).toBe("It is sunnyIt is sunny in Paris, 21 °C.\ncompleted\n")
        const requests = yield* server.requests
        expect(requests.map((request) => [request.api, request.model, request.stream])).toEqual(
          Array(4).fill(["anthropic", "claude-sonnet-4-5", true])
        )
        expect(JSON.stringify(requests[0]?.body)).toContain('"name":"weather"')
        // The rate-limited request is sent again as it was; so is the one whose stream broke.
        expect(requests[1]?.body).toEqual(requests[0]?.body)
        expect(requests[3]?.body).toEqual(requests[2]?.body)
        expect(toolResultsOf(requests[2]?.body)).toEqual(["Sunny in Paris, 21 °C"])
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "first-run without ANTHROPIC_API_KEY: the error names the variable, and nothing is sent",
    () =>
      Effect.gen(function* () {
        const server = yield* FakeProvider.make(FaultPlan.happy)
        const ended = yield* run(firstRun, here, { ANTHROPIC_BASE_URL: server.url })
        expect(ended.stdout).toBe("")
        expect(ended.stderr).toContain("ConfigError")
        expect(ended.stderr).toContain('at ["ANTHROPIC_API_KEY"]')
        expect(yield* server.requests).toEqual([])
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "durable-run: killed mid-run (SIGKILL) and run again, it resumes: the booked table is not booked again, the finished model call not sent again",
    () =>
      Effect.gen(function* () {
        const answer = "Your table at Chez Paul is booked for 8 pm."
        const server = yield* FakeProvider.make(
          FaultPlan.make([
            {
              kind: "reply",
              tool_calls: [{ name: "book_table", input: { restaurant: "Chez Paul" } }],
              stop: "tool_use"
            },
            // The answer starts streaming, then the server holds it: the process is killed there.
            { kind: "reply", text: answer, stop: "end_turn", hold_after_events: 4 },
            { kind: "reply", text: answer, stop: "end_turn" }
          ])
        )
        const dir = yield* tempDir
        const first = yield* start(durableRun, dir, pointedAt(server.url))
        yield* first.printed("[booked Chez Paul]")
        yield* first.printed("Your tab")
        yield* first.kill
        const killed = yield* first.ended
        expect(killed.signal).toBe("SIGKILL")
        expect(killed.stdout).toBe("[booked Chez Paul]\nYour tab")

        const again = yield* run(durableRun, dir, pointedAt(server.url))
        expect(again.stderr).toBe("")
        expect(again.code).toBe(0)
        // No second booking: the tool's result comes from the journal. The answer streams from its start.
        expect(again.stdout).toBe(`${answer}\ncompleted\n`)
        const requests = yield* server.requests
        // The first call (answered before the kill) is not sent again; the one cut short is, with the journaled result.
        expect(requests).toHaveLength(3)
        expect(toolResultsOf(requests[0]?.body)).toEqual([])
        expect(toolResultsOf(requests[1]?.body)).toEqual(["Booked Chez Paul for 8 pm"])
        expect(requests[2]?.body).toEqual(requests[1]?.body)
      }).pipe(Effect.scoped),
    120_000
  )
})
