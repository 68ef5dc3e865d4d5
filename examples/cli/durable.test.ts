/**
 * End-to-end crash tests of durable sessions: the agent CLI (the bundle, on node) with
 * `--session`, killed with SIGKILL at seeded random moments (in a model call, in a retry wait
 * with retry-after, in a tool call of an MCP fixture that counts its invocations in a file,
 * between turns), then `--resume`d. The fake provider is a real HTTP server that outlives the
 * killed processes; the store is a real SQLite file. Moments are chosen from the CLI's own JSON
 * events; real time only bounds process start and exit, generously.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { Content, type Session } from "@agent-kernel/kernel"
import { FakeProvider, type FaultPlan } from "@agent-kernel/providers/testing"
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { ensureBundle, entry, invocations } from "./testBundle.js"

const root = path.resolve(import.meta.dirname, "../..")
beforeAll(ensureBundle)

interface Finished {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** The CLI as a child process; `events` sees each JSON event line as it arrives. */
const start = (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  onEvent: (type: string) => void = () => {}
) => {
  const child = spawn(process.execPath, [entry, ...args], {
    cwd: root,
    env: { ...process.env, ANTHROPIC_API_KEY: "fake-key", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  let pending = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk
    pending += chunk
    let newline = pending.indexOf("\n")
    while (newline >= 0) {
      const line = pending.slice(0, newline)
      pending = pending.slice(newline + 1)
      if (line.startsWith("{")) onEvent((JSON.parse(line) as { type: string }).type)
      newline = pending.indexOf("\n")
    }
  })
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk))
  const finished = new Promise<Finished>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  )
  return { child, finished, output: () => `stdout:\n${stdout}\nstderr:\n${stderr}` }
}

/**
 * `promise`, or a failure naming the stage it hung in and what the process wrote so far, once `ms` of real
 * time have passed: a stage that never ends fails with where it was, where vitest's timeout says nothing
 * (the bounds are many times what each stage takes on a loaded machine).
 */
const within = <A>(promise: Promise<A>, ms: number, stage: string, output: () => string): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${stage}: not done after ${ms} ms; the process wrote\n${output()}`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** A small seeded generator (mulberry32): the same moments on every run of the test. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const rateLimited = (retryAfterSeconds: number): FaultPlan.Step => ({
  kind: "error",
  status: 429,
  error_type: "rate_limit_error",
  message: "Number of requests has exceeded your per-minute rate limit",
  headers: { "retry-after": String(retryAfterSeconds) }
})

/** A reply asking for the counter's tool with this key. */
const countCall = (key: string, delay_ms = 0): FaultPlan.Step => ({
  kind: "reply",
  delay_ms,
  tool_calls: [{ name: "count", input: { key }, id: `toolu_${key}` }],
  stop: "tool_use"
})

/** Per round: a slow tool call to the counter, a 429 with retry-after, a slow final answer. */
const planFor = (rounds: number): FaultPlan.FaultPlan => ({
  steps: Array.from(
    { length: rounds },
    (_, i): ReadonlyArray<FaultPlan.Step> => [
      countCall(`k${i}`, 400),
      rateLimited(1),
      { kind: "reply", delay_ms: 400, text: `done ${i}` }
    ]
  ).flat()
})

/** The session's state as the store holds it (no process is running on the store). */
const stored = (file: string): Promise<Option.Option<Session.State>> =>
  Effect.runPromise(Effect.provide(DurableSessions.read("session-1"), Engine.layerSqliteStore(file)))

/** The session's status in the store: `running` while a run is unfinished. */
const status = (file: string): Promise<string | undefined> =>
  Effect.runPromise(Effect.provide(DurableSessions.summaries, Engine.layerSqliteStore(file))).then(
    (listed) => listed[0]?.status
  )

const ExecutionRow = Schema.UndefinedOr(Schema.Struct({ status: Schema.String }))

/**
 * Resolves once the store's run is suspended on a durable wait: its journal, read beside the
 * process that holds the store (WAL lets a reader in), says so, whatever the machine's speed.
 */
const suspendedIn = async (file: string): Promise<void> => {
  for (;;) {
    if (fs.existsSync(file)) {
      const db = new DatabaseSync(file, { readOnly: true })
      try {
        const row = Schema.decodeUnknownSync(ExecutionRow)(db.prepare("SELECT status FROM workflow_executions").get())
        if (row?.status === "suspended") return
      } catch {
        // The tables are not there yet.
      } finally {
        db.close()
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

type Moment = "model call" | "retry wait" | "tool call" | "between turns"

/** The event a moment follows, and how long after it (at most) the kill comes. */
const moments: Record<Moment, { readonly after: string; readonly within: number }> = {
  "model call": { after: "model_request", within: 350 },
  "retry wait": { after: "retry_scheduled", within: 900 },
  "tool call": { after: "tool_call_started", within: 450 },
  "between turns": { after: "turn_ended", within: 0 }
}

describe("agent CLI with --session: SIGKILL at random moments, then --resume", () => {
  it("20 kills: every run ends with a status and a valid history, no tool call runs twice, the budget never goes down", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "durable-kill-"))
    const store = path.join(dir, "agent.db")
    const counter = path.join(dir, "counts.txt")
    const scope = Effect.runSync(Scope.make())
    const rounds = 20
    const provider = await Effect.runPromise(Scope.provide(FakeProvider.make(planFor(rounds + 10)), scope))
    const env = { ANTHROPIC_BASE_URL: provider.url }
    const common = ["--provider", "anthropic", "--json", "--session", store]
    const mcp = ["--mcp", `node ${path.join(root, "examples/plugins/counter.mjs")} ${counter} 600`]
    const random = seeded(13)
    const kinds = Object.keys(moments) as ReadonlyArray<Moment>
    const killed: Array<string> = []
    let budget = 0
    try {
      for (let round = 0; round < rounds; round++) {
        const moment = kinds[round % kinds.length]!
        const { after, within } = moments[moment]
        const wait = Math.floor(random() * within)
        let child: ChildProcess | undefined
        const run = start([...common, ...mcp, "--prompt", `round ${round}`], env, (type) => {
          if (type === after && child !== undefined && child.exitCode === null) {
            const target = child
            child = undefined
            setTimeout(() => target.kill("SIGKILL"), wait)
          }
        })
        child = run.child
        const first = await run.finished
        // A kill can land after the run ended (while the process shuts down): nothing to resume then.
        const unfinished = (await status(store)) === "running"
        if (first.signal === "SIGKILL" && unfinished) killed.push(`${round}:${moment}+${wait}ms`)
        if (first.signal !== "SIGKILL") assert.strictEqual(first.code, 0, first.stderr)
        const before = await stored(store)
        const usedBefore = Option.match(before, { onNone: () => 0, onSome: (state) => state.budget.used })
        assert.isAtLeast(usedBefore, budget, `round ${round}: the budget went down before the resume`)

        const resumed = await start([...common, ...mcp, "--resume"], env).finished
        assert.isNull(resumed.signal, resumed.stderr)
        const events = resumed.stdout.split("\n").filter((line) => line.startsWith("{"))
        if (unfinished) {
          // The interrupted run was finished: it ended with a status.
          const ended = events.map((line) => JSON.parse(line) as Record<string, unknown>).at(-1)
          assert.strictEqual(ended?.["type"], "run_ended", `round ${round} (${moment}): ${resumed.stderr}`)
          assert.isString(ended?.["status"])
        } else {
          assert.include(resumed.stderr, "no unfinished run")
        }
        assert.notStrictEqual(await status(store), "running", `round ${round}: still unfinished after --resume`)
        const after_ = Option.getOrThrow(await stored(store))
        assert.deepStrictEqual(
          Content.unansweredToolUses(after_.history),
          [],
          `round ${round}: a tool_use without its tool_result`
        )
        assert.isAtLeast(after_.budget.used, usedBefore, `round ${round}: the resume reset the budget`)
        budget = after_.budget.used
        for (const [key, count] of invocations(counter)) {
          assert.strictEqual(count, 1, `round ${round}: the counter ran ${key} ${count} times`)
        }
      }
      // The kills landed where they were meant to: most rounds were cut short mid-run.
      assert.isAtLeast(killed.length, rounds / 2, killed.join(", "))
      // eslint-disable-next-line no-console
      console.log(`killed ${killed.length}/${rounds}: ${killed.join(", ")}`)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 1_200_000)

  it("a second process on the same store gets a clear error and exit 2; SIGINT ends with 130 and the history on disk", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "durable-lock-"))
    const store = path.join(dir, "agent.db")
    const scope = Effect.runSync(Scope.make())
    const provider = await Effect.runPromise(
      Scope.provide(
        FakeProvider.make({
          steps: [countCall("slow")]
        }),
        scope
      )
    )
    const env = { ANTHROPIC_BASE_URL: provider.url }
    const args = ["--provider", "anthropic", "--json", "--session", store]
    try {
      let holder: ChildProcess | undefined
      const started = new Promise<void>((resolve) => {
        const run = start(
          [
            ...args,
            "--mcp",
            `node ${path.join(root, "examples/plugins/counter.mjs")} ${path.join(dir, "counts.txt")} 60000`,
            "--prompt",
            "count"
          ],
          env,
          (type) => {
            if (type === "tool_call_started") resolve()
          }
        )
        holder = run.child
        void run.finished
      })
      await started
      const second = await start([...args, "--prompt", "hello"], env).finished
      assert.strictEqual(second.code, 2)
      assert.include(second.stderr, "in use by another process")
      const exited = new Promise<number | null>((resolve) => holder!.on("close", (code) => resolve(code)))
      holder!.kill("SIGINT")
      assert.strictEqual(await exited, 130)
      const state = Option.getOrThrow(await stored(store))
      assert.deepStrictEqual(Content.unansweredToolUses(state.history), [])
      const roles = state.history.map((message) => message.role)
      assert.deepStrictEqual(roles, ["user", "assistant", "user"])
      const listed = await start(["sessions", store], {}).finished
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.match(listed.stdout, /session-1\tinterrupted\t1\t0\t3/)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("SIGINT while the run is suspended on a durable retry-after wait ends it interrupted, its history on disk", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "durable-sigint-wait-"))
    const store = path.join(dir, "agent.db")
    const scope = Effect.runSync(Scope.make())
    const provider = await Effect.runPromise(
      Scope.provide(FakeProvider.make({ steps: [rateLimited(60), { kind: "reply", text: "next" }] }), scope)
    )
    const env = { ANTHROPIC_BASE_URL: provider.url }
    const args = ["--provider", "anthropic", "--json", "--session", store]
    const run = start([...args, "--prompt", "wait"], env)
    try {
      await within(suspendedIn(store), 20_000, "waiting for the run to suspend", run.output)
      run.child.kill("SIGINT")
      const first = await within(run.finished, 15_000, "waiting for the process to end after SIGINT", run.output)
      assert.strictEqual(first.code, 130, first.stderr)
      assert.strictEqual(await status(store), "interrupted")
      const state = Option.getOrThrow(await stored(store))
      assert.deepStrictEqual(
        state.history.map((message) => message.role),
        ["user"]
      )
      // Stopped, not suspended: the next start does not finish the wait, it takes the next prompt.
      const again = start([...args, "--prompt", "again"], env)
      const next = await within(again.finished, 15_000, "the next run on the store", again.output)
      assert.strictEqual(next.code, 0, next.stderr)
      assert.deepStrictEqual(
        Option.getOrThrow(await stored(store)).history.map((message) => message.role),
        ["user", "user", "assistant"]
      )
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill("SIGKILL")
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("a run whose process was killed lists as interrupted (resumable); --resume says which run it resumes and from where", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "durable-listed-"))
    const store = path.join(dir, "agent.db")
    const counter = path.join(dir, "counts.txt")
    const scope = Effect.runSync(Scope.make())
    const provider = await Effect.runPromise(
      Scope.provide(
        FakeProvider.make({ steps: [countCall("once"), rateLimited(2), { kind: "reply", text: "done" }] }),
        scope
      )
    )
    const env = { ANTHROPIC_BASE_URL: provider.url }
    const args = [
      "--provider",
      "anthropic",
      "--json",
      "--session",
      store,
      "--mcp",
      `node ${path.join(root, "examples/plugins/counter.mjs")} ${counter} 0`
    ]
    try {
      // Killed in the retry wait of turn 2, after the tool call of turn 1.
      let child: ChildProcess | undefined
      const run = start([...args, "--prompt", "count once"], env, (type) => {
        if (type === "retry_scheduled" && child !== undefined) {
          const target = child
          child = undefined
          target.kill("SIGKILL")
        }
      })
      child = run.child
      const killed = await within(run.finished, 60_000, "the run to be killed in its retry wait", run.output)
      assert.strictEqual(killed.signal, "SIGKILL", killed.stderr)

      const listed = await within(start(["sessions", store], {}).finished, 60_000, "agent sessions", run.output)
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.match(listed.stdout, /^session-1\tinterrupted \(resumable\)\t1\t/m)
      const asJson = await within(start(["sessions", store, "--json"], {}).finished, 60_000, "--json", run.output)
      assert.deepInclude(JSON.parse(asJson.stdout), {
        id: "session-1",
        status: "interrupted",
        resumable: true,
        paused: null
      })

      // A crashed run has no paused budget to reset: bad usage, and the run is left as it was.
      const sentBefore = (await Effect.runPromise(provider.requests)).length
      const reset = start([...args, "--resume", "--reset-budget"], env)
      const refused = await within(reset.finished, 60_000, "--resume --reset-budget", reset.output)
      assert.strictEqual(refused.code, 2, refused.stderr)
      assert.include(
        refused.stderr,
        "--reset-budget resets the retry budget of a paused run only: run 1 in " +
          `${store} is interrupted (its process stopped), not paused`
      )
      assert.notInclude(refused.stderr, "agent: resuming run")
      assert.strictEqual((await Effect.runPromise(provider.requests)).length, sentBefore)

      const resumed = start([...args, "--resume"], env)
      const finished = await within(resumed.finished, 60_000, "--resume", resumed.output)
      assert.strictEqual(finished.code, 0, finished.stderr)
      assert.match(
        finished.stderr,
        /^agent: resuming run 1 of session-1, begun \d{4}-\d\d-\d\dT[\d:.]+Z; what its journal holds is not run again\n/
      )
      assert.include(finished.stderr, "agent: run 1 resumed at turn 2, attempt 2 of its model call\n")
      const after = await within(start(["sessions", store], {}).finished, 60_000, "agent sessions", run.output)
      assert.match(after.stdout, /^session-1\tcompleted\t1\t/m)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("--resume does not show the replayed steps again: only what runs after the kill, and the run's end", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "durable-replay-"))
    const store = path.join(dir, "agent.db")
    const counter = path.join(dir, "counts.txt")
    const scope = Effect.runSync(Scope.make())
    const provider = await Effect.runPromise(
      Scope.provide(
        FakeProvider.make({
          steps: [countCall("once"), rateLimited(2), { kind: "reply", text: "done" }]
        }),
        scope
      )
    )
    const env = { ANTHROPIC_BASE_URL: provider.url }
    const args = [
      "--provider",
      "anthropic",
      "--json",
      "--session",
      store,
      "--mcp",
      `node ${path.join(root, "examples/plugins/counter.mjs")} ${counter} 0`
    ]
    try {
      // Killed in the retry wait: the tool call and the 429 are journaled.
      let child: ChildProcess | undefined
      const run = start([...args, "--prompt", "count once"], env, (type) => {
        if (type === "retry_scheduled" && child !== undefined) {
          const target = child
          child = undefined
          target.kill("SIGKILL")
        }
      })
      child = run.child
      const first = await run.finished
      assert.strictEqual(first.signal, "SIGKILL", first.stderr)
      assert.include(first.stdout, '"type":"tool_call_started"')

      const resumed = await start([...args, "--resume"], env).finished
      assert.strictEqual(resumed.code, 0, resumed.stderr)
      const types = resumed.stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => (JSON.parse(line) as { type: string }).type)
      // The first process showed the run's start, the tool call and the 429: the resume does not.
      for (const replayed of ["run_started", "tool_call_started", "tool_result"]) {
        assert.notInclude(types, replayed, `replayed ${replayed} shown again: ${types.join(", ")}`)
      }
      // What ran after the kill is shown: the call after the wait, its answer, the end.
      assert.include(types, "model_response")
      // One end: a durable wait suspends the run without ending it.
      assert.deepStrictEqual(
        types.filter((type) => type === "run_ended"),
        ["run_ended"]
      )
      assert.strictEqual(types.at(-1), "run_ended")
      assert.strictEqual(invocations(counter).get("once"), 1)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})
