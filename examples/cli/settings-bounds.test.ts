/**
 * End-to-end through the command line: the model-call timeouts are settings like any other (`--set`, `--settings`), checked as
 * any other, and they reach the provider; and Ctrl-C ends a command blocked
 * on a settings FIFO with no writer.
 *
 * The CLI runs as a subprocess (node on the bundle, see testBundle.ts) against
 * the fake provider it starts over HTTP. Timeouts are seconds where the
 * machine only needs milliseconds, and the plans hold their answers far
 * longer than that, so a loaded machine never changes an outcome.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cli as run, ensureBundle, entry, environment, eventsOf, ofType } from "./testBundle.js"

const root = path.resolve(import.meta.dirname, "../..")
beforeAll(ensureBundle)

/** A real wall-clock guard: a run still going after this is killed, and the test fails on its code. */
const guardMillis = 40_000

/** Runs the CLI to its end (or kills it at the guard, which shows as code null). */
const cli = (args: ReadonlyArray<string>) => run(args, { env: { NO_COLOR: "1" }, killAfterMillis: guardMillis })

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-cli-settings-bounds-"))
let files = 0
/** Writes a JSON file in the test's directory and returns its path. */
const jsonFile = (value: unknown) => {
  const file = path.join(dir, `file-${++files}.json`)
  fs.writeFileSync(file, JSON.stringify(value))
  return file
}

/** Short backoffs: the retry itself is not what these tests are about. */
const quickRetry = ["--set", "base_delay_ms=10", "--set", "jitter=none"]

describe("agent CLI: model-call timeouts are settings", () => {
  it("--set model_first_byte_timeout_ms: a server holding its first byte past it is cut, and the call retried", async () => {
    // The first answer is held for 30 s; the default bound (10 minutes) would wait it out and never retry.
    const plan = jsonFile({
      steps: [
        { kind: "reply", delay_ms: 30_000, text: "late" },
        { kind: "reply", text: "done" }
      ]
    })
    const result = await cli([
      "--scenario",
      plan,
      "--set",
      "model_first_byte_timeout_ms=3000",
      ...quickRetry,
      "--prompt",
      "hi",
      "--json"
    ])
    assert.strictEqual(result.code, 0, result.stderr)
    const [retry, ...more] = ofType(result, "retry_scheduled")
    assert.lengthOf(more, 0)
    assert.deepInclude(retry, { category: "timeout", message: "first-byte timeout after 3s", attempt: 1 })
    assert.lengthOf(ofType(result, "model_request"), 2)
    assert.deepInclude(result.events.at(-1), { type: "run_ended", status: "completed" })
  }, 60_000)

  it("--settings model_idle_timeout_ms: a stream gone silent is cut mid-stream at it, and restarted", async () => {
    const settings = jsonFile({ model_idle_timeout_ms: 3000, base_delay_ms: 10, jitter: "none" })
    const plan = jsonFile({
      steps: [
        { kind: "stall", text: "half an ans" },
        { kind: "reply", text: "done" }
      ]
    })
    const result = await cli(["--scenario", plan, "--settings", settings, "--prompt", "hi", "--json"])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.deepInclude(ofType(result, "stream_restarted")[0], { category: "timeout" })
    assert.deepInclude(ofType(result, "retry_scheduled")[0], { category: "timeout", message: "idle timeout after 3s" })
    assert.deepInclude(result.events.at(-1), { type: "run_ended", status: "completed" })
  }, 60_000)

  it("--settings model_attempt_timeout_ms: an attempt that never ends is cut at it, and retried", async () => {
    const settings = jsonFile({ model_attempt_timeout_ms: 3000, base_delay_ms: 10, jitter: "none" })
    const plan = jsonFile({ steps: [{ kind: "hang" }, { kind: "reply", text: "done" }] })
    const result = await cli(["--scenario", plan, "--settings", settings, "--prompt", "hi", "--json"])
    assert.strictEqual(result.code, 0, result.stderr)
    const [retry] = ofType(result, "retry_scheduled")
    assert.deepInclude(retry, { category: "timeout", attempt: 1 })
    assert.include(retry!["message"] as string, "model_attempt_timeout_ms (3000 ms)")
    assert.deepInclude(result.events.at(-1), { type: "run_ended", status: "completed" })
  }, 60_000)

  const keys = [
    "model_connect_timeout_ms",
    "model_first_byte_timeout_ms",
    "model_idle_timeout_ms",
    "model_attempt_timeout_ms"
  ] as const

  it("--set: 0, a negative number and a string are each exit 2, naming the key, before any request", async () => {
    const values = ["0", "-250", '"soon"', "0"] as const
    const result = await cli([
      ...keys.flatMap((key, i) => ["--set", `${key}=${values[i]}`]),
      "--prompt",
      "hi",
      "--json"
    ])
    assert.strictEqual(result.code, 2)
    assert.lengthOf(result.events, 0)
    assert.include(result.stderr, "model_connect_timeout_ms: Expected a positive number, actual 0")
    assert.include(result.stderr, "model_first_byte_timeout_ms: Expected a positive number, actual -250")
    assert.include(result.stderr, 'model_idle_timeout_ms: Expected number, actual "soon"')
    assert.include(result.stderr, "model_attempt_timeout_ms: Expected a positive number, actual 0")
  })

  it("--settings: the same invalid values are exit 2, naming each key", async () => {
    const settings = jsonFile({
      model_connect_timeout_ms: -1,
      model_first_byte_timeout_ms: "10s",
      model_idle_timeout_ms: 0,
      model_attempt_timeout_ms: null
    })
    const result = await cli(["--settings", settings, "--prompt", "hi", "--json"])
    assert.strictEqual(result.code, 2)
    assert.lengthOf(result.events, 0)
    assert.include(result.stderr, "model_connect_timeout_ms: Expected a positive number, actual -1")
    assert.include(result.stderr, 'model_first_byte_timeout_ms: Expected number, actual "10s"')
    assert.include(result.stderr, "model_idle_timeout_ms: Expected a positive number, actual 0")
    assert.include(result.stderr, "model_attempt_timeout_ms: Expected number, actual null")
  })
})

/** Whether `pid` is reading `fifo` (an open descriptor) or blocked opening it (no writer yet). */
const waitingOnFifo = (pid: number, fifo: string): boolean => {
  try {
    const open = fs.readdirSync(`/proc/${pid}/fd`).some((fd) => fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === fifo)
    const opening = fs
      .readdirSync(`/proc/${pid}/task`)
      .some((task) => fs.readFileSync(`/proc/${pid}/task/${task}/wchan`, "utf8").trim() === "wait_for_partner")
    return open || opening
  } catch {
    return false
  }
}

describe("agent CLI: Ctrl-C while the settings file is a FIFO with no writer", () => {
  it("SIGINT ends the command with exit 130 and one line, not the read's 5 s time bound (exit 2)", async () => {
    const fifo = path.join(dir, "settings.fifo")
    execFileSync("mkfifo", [fifo])
    const child = spawn(process.execPath, [entry, "--settings", fifo, "--prompt", "hi", "--json"], {
      cwd: root,
      env: environment({ NO_COLOR: "1" })
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    const guard = setTimeout(() => child.kill("SIGKILL"), guardMillis)
    try {
      // Interrupt only once the CLI waits on the FIFO: what is tested is the interrupt of that wait.
      const deadline = Date.now() + 20_000
      while (!waitingOnFifo(child.pid!, fifo)) {
        assert.isBelow(Date.now(), deadline, "the CLI never opened the FIFO")
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      child.kill("SIGINT")
      // Had the interrupt waited for the read, the read's time bound would have ended it first: exit 2,
      // "no end of file after 5s". A process that cannot exit at all is killed by the guard: null.
      assert.strictEqual(await exited, 130, stderr)
      assert.strictEqual(stderr, "agent: interrupted by SIGINT\n")
      assert.lengthOf(eventsOf(stdout), 0)
    } finally {
      clearTimeout(guard)
      child.kill("SIGKILL")
    }
  }, 60_000)
})
