/**
 * End-to-end: the agent CLI as a subprocess, against the fake provider over
 * HTTP and real MCP plugin processes. Assertions read its JSON events, its
 * stderr and its exit code, never its timing.
 *
 * The command runs as users run it: node on the bundle of these sources (see
 * testBundle.ts).
 */
import { ChaosPlans, FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { stripVTControlCharacters } from "node:util"
import { outcomeOf } from "./exitCodes.js"
import * as Scenarios from "./scenarios.js"
import { cli, ensureBundle, entry, ofType, type Result, start, waitFor } from "./testBundle.js"

const root = path.resolve(import.meta.dirname, "../..")
beforeAll(ensureBundle)

const last = (result: Result) => result.events.at(-1)

describe("agent CLI: chaos scenarios (fake provider over HTTP, real MCP plugins)", () => {
  it("rate-limits: the first retry waits the server's retry-after; the run completes; exit 0", async () => {
    const result = await cli(["--scenario", "rate-limits", "--json"])
    assert.strictEqual(result.code, 0, result.stderr)
    const retries = ofType(result, "retry_scheduled")
    assert.lengthOf(retries, 2)
    assert.strictEqual(retries[0]!["source"], "retry_after")
    assert.isAtLeast(retries[0]!["delay_ms"] as number, 1_000)
    assert.isAtLeast(retries[1]!["delay_ms"] as number, 500)
    assert.deepInclude(last(result), { type: "run_ended", status: "completed" })
    const tool = ofType(result, "tool_result")[0]!
    assert.strictEqual(tool["is_error"], false)
    assert.include(tool["preview"] as string, "packages/")
  })

  it("overload-storm: the session budget runs out; exit 6", async () => {
    const result = await cli(["--scenario", "overload-storm", "--json"])
    assert.strictEqual(result.code, 6)
    assert.lengthOf(ofType(result, "retry_scheduled"), 3)
    // The third failure came mid-stream: the whole request restarted, charged like any retry.
    assert.deepInclude(ofType(result, "stream_restarted")[0], { category: "overloaded" })
    assert.deepInclude(last(result), { type: "run_ended", status: "retry_budget_exhausted" })
  })

  it("context-overflow: the context is reduced and the next request is smaller; exit 0", async () => {
    const result = await cli(["--scenario", "context-overflow", "--json"])
    assert.strictEqual(result.code, 0, result.stderr)
    const [reduced] = ofType(result, "context_reduced")
    assert.isBelow(reduced!["after"] as number, reduced!["before"] as number)
    const requests = ofType(result, "model_request")
    assert.isBelow(requests.at(-1)!["estimated_tokens"] as number, requests.at(-2)!["estimated_tokens"] as number)
    assert.lengthOf(ofType(result, "retry_scheduled"), 0)
  })

  it("refusal: content_filtered is its own event and status, partial text kept; exit 3", async () => {
    const result = await cli(["--scenario", "refusal", "--json"])
    assert.strictEqual(result.code, 3)
    assert.strictEqual(ofType(result, "content_filtered")[0]!["partial_text"], "I can help with part of that, but")
    assert.deepInclude(last(result), { type: "run_ended", status: "content_filtered" })
  })

  it("plugin-crash: three crashes become error results, the breaker opens, the tools are withdrawn, nothing respawns", async () => {
    const result = await cli(["--scenario", "plugin-crash", "--json"])
    assert.strictEqual(result.code, 0, result.stderr)
    const results = ofType(result, "tool_result")
    assert.lengthOf(results, 4)
    for (const crash of results.slice(0, 3)) {
      assert.strictEqual(crash["is_error"], true)
      assert.match(crash["preview"] as string, /crashed.*SIGKILL/s)
      assert.include(crash["preview"] as string, "report cache corrupted")
    }
    assert.match(results[3]!["preview"] as string, /circuit breaker.*open/)
    assert.deepInclude(ofType(result, "breaker_changed")[0], { subject: "chaos", from: "closed", to: "open" })
    const tools = ofType(result, "model_request").map((request) => request["tools"])
    assert.deepStrictEqual(tools, [2, 2, 2, 0, 0])
    assert.deepInclude(last(result), { type: "run_ended", status: "completed" })
  })

  it("hung-tool: the call is cancelled at tool_timeout_ms and reported; the run goes on; exit 0", async () => {
    const result = await cli(["--scenario", "hung-tool", "--json"])
    assert.strictEqual(result.code, 0, result.stderr)
    const [timedOut] = ofType(result, "tool_result")
    assert.strictEqual(timedOut!["is_error"], true)
    assert.match(timedOut!["preview"] as string, /timed out after 2000 ms/)
    assert.deepInclude(last(result), { type: "run_ended", status: "completed" })
  })

  it("auth-error: one request, no retry, no fallback despite a fallback model; exit 5", async () => {
    const result = await cli(["--scenario", "auth-error", "--json"])
    assert.strictEqual(result.code, 5)
    assert.lengthOf(ofType(result, "model_request"), 1)
    assert.lengthOf(ofType(result, "fallback"), 0)
    assert.deepInclude(last(result), { type: "run_ended", status: "auth_error" })
  })

  it("the providers' chaos plans work by name (--scenario flaky-network), with the prompt given, and --help lists them", async () => {
    const flaky = await cli(["--scenario", "flaky-network", "--prompt", "hi", "--json"])
    assert.strictEqual(flaky.code, 0, flaky.stderr)
    // A connection reset, then a 502 page: two retries, then the answer.
    assert.deepStrictEqual(
      ofType(flaky, "retry_scheduled").map((event) => event["category"]),
      ["connection_error", "server_error"]
    )
    assert.deepInclude(last(flaky), { type: "run_ended", status: "completed" })
    assert.deepInclude(flaky.events[0], { type: "run_started", input: "hi" })
    const midStream = await cli(["--scenario", "mid-stream-error", "--prompt", "hi", "--json"])
    assert.strictEqual(midStream.code, 0, midStream.stderr)
    assert.lengthOf(ofType(midStream, "stream_restarted"), 1)
    const help = await cli(["--help"])
    for (const name of ChaosPlans.names) assert.include(help.stdout, name)
  })

  it("the chaos plans --help lists are the providers' own", () => {
    assert.deepStrictEqual(Scenarios.chaosPlanNames, ChaosPlans.names)
    assert.deepStrictEqual(Scenarios.chaosPlans, ["mid-stream-error", "flaky-network"])
  })

  it("a fault-plan file works as a scenario", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-cli-"))
    const plan = path.join(dir, "plan.json")
    fs.writeFileSync(plan, JSON.stringify({ steps: [{ kind: "error", status: 402, error_type: "billing_error" }] }))
    const result = await cli(["--scenario", plan, "--prompt", "hi", "--json"])
    assert.strictEqual(result.code, 5, result.stderr)
    assert.deepInclude(last(result), { type: "run_ended", status: "quota_exceeded" })
  })
})

describe("agent CLI: input, output and usage", () => {
  it("invalid settings: exit 2, every problem listed, no model request made", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-cli-"))
    const file = path.join(dir, "settings.json")
    fs.writeFileSync(file, JSON.stringify({ base_delay_ms: -1, max_retrys: 3 }))
    const result = await cli(["--settings", file, "--set", "jitter=wild", "--prompt", "hi", "--json"])
    assert.strictEqual(result.code, 2)
    assert.include(result.stderr, 'max_retrys: unknown key (did you mean "max_retries"?)')
    assert.include(result.stderr, "base_delay_ms: Expected a non-negative number, actual -1")
    assert.include(result.stderr, 'jitter: Expected "proportional" | "full" | "none", actual "wild"')
    assert.lengthOf(result.events, 0)
  })

  it("a broken settings file, a bad --mcp and an unknown option are usage errors (exit 2)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-cli-"))
    const file = path.join(dir, "settings.json")
    fs.writeFileSync(file, "{ not json")
    const broken = await cli(["--settings", file, "--prompt", "hi"])
    assert.strictEqual(broken.code, 2)
    assert.match(broken.stderr, /not valid JSON/)
    const mcp = await cli(["--mcp", '"unclosed', "--prompt", "hi"])
    assert.strictEqual(mcp.code, 2)
    assert.match(mcp.stderr, /unclosed " quote/)
    const provider = await cli(["--provider", "nope", "--prompt", "hi"])
    assert.strictEqual(provider.code, 2)
  })

  it("a real provider without its key is a usage error, before any request", async () => {
    const result = await cli(["--provider", "anthropic", "--prompt", "hi"])
    assert.strictEqual(result.code, 2)
    assert.include(result.stderr, "needs ANTHROPIC_API_KEY")
  })

  it("--scenario uses the fake provider even when an API key is set", async () => {
    const result = await cli(["--scenario", "refusal", "--json"], { env: { ANTHROPIC_API_KEY: "sk-ant-real-looking" } })
    assert.strictEqual(result.code, 3, result.stderr)
    assert.deepInclude(last(result), { type: "run_ended", status: "content_filtered" })
  })

  it("without --prompt and without a TTY, one run reads stdin", async () => {
    const result = await cli(["--json"], { input: "hello from stdin\n" })
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(ofType(result, "run_started")[0]!["input"], "hello from stdin\n")
  })

  it("--mcp starts a plugin from a command line split without a shell", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-cli-"))
    const plan = path.join(dir, "plan.json")
    fs.writeFileSync(
      plan,
      JSON.stringify({
        steps: [
          { kind: "reply", tool_calls: [{ name: "list_files", input: {} }] },
          { kind: "reply", text: "done" }
        ]
      })
    )
    const result = await cli([
      "--scenario",
      plan,
      "--mcp",
      `${process.execPath} 'examples/plugins/workspace.mjs'`,
      "--prompt",
      "list the files",
      "--json"
    ])
    assert.strictEqual(result.code, 0, result.stderr)
    const listed = ofType(result, "tool_result")[0]!
    assert.strictEqual(listed["is_error"], false)
    assert.include(listed["preview"] as string, "packages/")
  })

  it("human output: a timeline and a summary, no JSON", async () => {
    const result = await cli(["--scenario", "refusal"])
    assert.strictEqual(result.code, 3)
    assert.include(result.stdout, "content filtered")
    assert.match(result.stdout, /status\s+content_filtered/)
    assert.notInclude(result.stdout, "\x1b[")
    assert.lengthOf(result.events, 0)
  })
})

/** Starts the standalone fake provider with a plan and resolves its URL (its first stdout line). */
const standaloneServer = (plan: string) =>
  new Promise<{ readonly url: string; readonly stop: () => void }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "packages/providers/bin/fake-provider.ts", "--plan", plan],
      {
        cwd: root
      }
    )
    let buffered = ""
    child.stdout.on("data", (chunk) => {
      buffered += chunk
      const line = buffered.split("\n")[0]
      if (buffered.includes("\n") && line !== undefined)
        resolve({ url: line.trim(), stop: () => child.kill("SIGTERM") })
    })
    child.on("error", reject)
    child.on("exit", (code) => reject(new Error(`fake-provider exited early with ${code}`)))
  })

describe("agent CLI: any Anthropic- or OpenAI-compatible server, through its base URL", () => {
  for (const wire of ["anthropic", "openai"] as const) {
    it(`--provider ${wire} with ${wire === "anthropic" ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL"}: the rate-limit path, retry-after honoured`, async () => {
      const server = await standaloneServer("rate-limits")
      try {
        const env =
          wire === "anthropic"
            ? { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url }
            : { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: `${server.url}/v1` }
        const result = await cli(["--provider", wire, "--model", "any-model", "--prompt", "hi", "--json"], { env })
        assert.strictEqual(result.code, 0, result.stderr)
        const [first] = ofType(result, "retry_scheduled")
        assert.deepInclude(first, { category: "rate_limited", source: "retry_after" })
        assert.isAtLeast(first!["delay_ms"] as number, 1_000)
        assert.deepInclude(last(result), { type: "run_ended", status: "completed" })
        assert.notInclude(result.stdout + result.stderr, "test-key")
      } finally {
        server.stop()
      }
    })
  }
})

describe("agent CLI: interactive", () => {
  it("on a TTY without --prompt, each line is a run of one session; 'exit' ends it (through a pseudo-terminal)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-cli-"))
    const plan = path.join(dir, "happy.json")
    fs.writeFileSync(plan, JSON.stringify({ steps: [] }))
    // util-linux `script` gives the CLI a real pseudo-terminal on stdin and stdout.
    const command = [process.execPath, entry, "--scenario", plan].map((arg) => `'${arg}'`).join(" ")
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" }
    })
    let output = ""
    const seen = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => (output.includes(text) ? resolve() : setTimeout(check, 20))
        check()
      })
    child.stdout.on("data", (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    await seen("you> ")
    child.stdin.write("first question\n")
    await seen("You said: first question")
    await seen("status")
    child.stdin.write("second question\n")
    await seen("You said: second question")
    await seen("run session-1/run-2")
    // A long session: each prompt must release its listeners (Node warns past 10 on one emitter).
    for (let i = 3; i <= 13; i++) {
      child.stdin.write(`question ${i}\n`)
      await seen(`You said: question ${i}`)
    }
    child.stdin.write("exit\n")
    const code = await exited
    assert.strictEqual(code, 0, output)
    assert.match(output, /status\s+completed/)
    assert.include(output, "run session-1/run-13")
    assert.notInclude(output, "MaxListenersExceededWarning")
  })
})

describe("agent CLI: Ctrl-C at the interactive prompt (a real pseudo-terminal)", () => {
  const planFile = (steps: ReadonlyArray<unknown>) => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ak-cli-ctrl-c-")), "plan.json")
    fs.writeFileSync(file, JSON.stringify({ steps }))
    return file
  }
  const occurrences = (text: string, part: RegExp) => text.split(part).length - 1
  const interrupted = /status\s+interrupted/
  // A slow stream, then a rate limit whose retry waits 50 s, then the happy answers.
  const slowThenRateLimited = () =>
    planFile([
      {
        kind: "reply",
        text: "This answer streams slowly, two characters at a time.",
        delta_chars: 2,
        event_delay_ms: 200
      },
      { kind: "error", status: 429, error_type: "rate_limit_error", headers: { "retry-after": "50" } }
    ])

  for (const durable of [false, true]) {
    it(`Ctrl-C mid-stream and in a retry countdown stops the run, the prompt comes back, the next line is answered; Ctrl-D leaves${durable ? " (--session: the durable session goes on)" : ""}`, async () => {
      const store = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ak-cli-ctrl-c-store-")), "agent.db")
      const run = start(["--scenario", slowThenRateLimited(), ...(durable ? ["--session", store] : [])], {
        terminal: true,
        env: { NO_COLOR: "1" }
      })
      try {
        await run.seen("Ctrl-C stops a run; Ctrl-D or exit leaves.")
        await run.seen("you> ")
        run.write("first question\r")
        await run.seen("This ans")
        run.write("\x03")
        await run.seen(interrupted)
        await waitFor(() => occurrences(run.stdout(), /you> /g) >= 2, "the prompt after the stopped stream", run.stdout)
        run.write("second question\r")
        await run.seen("retry 1 in")
        run.write("\x03")
        await waitFor(() => occurrences(run.stdout(), /status\s+interrupted/g) >= 2, "the stopped retry", run.stdout)
        await waitFor(() => occurrences(run.stdout(), /you> /g) >= 3, "the prompt after the stopped retry", run.stdout)
        run.write("next\r")
        await run.seen("You said: next")
        await run.seen(/status\s+completed/)
        run.write("\x04")
        assert.strictEqual(await run.exited, 0, run.stdout())
        assert.include(run.stdout(), "run session-1/run-3")
        assert.notInclude(run.stdout(), "internal error")
      } finally {
        run.child.kill("SIGKILL")
      }
      if (durable) {
        const listed = await cli(["sessions", store])
        assert.strictEqual(listed.code, 0, listed.stderr)
        assert.match(listed.stdout, /session-1\tcompleted\t3\t/)
      }
    }, 600_000)
  }

  it("Ctrl-C while a plugin's tool runs: its process is stopped, the run ends interrupted, the session goes on", async () => {
    const plan = planFile([
      { kind: "reply", tool_calls: [{ name: "wait_for_approval", input: { change: "deploy" } }], stop: "tool_use" },
      { kind: "reply", text: "Approval never came.", stop: "end_turn" }
    ])
    const plugin = path.join(root, "examples/plugins/chaos.mjs")
    const run = start(["--scenario", plan, "--mcp", `node ${plugin}`, "--set", "tool_timeout_ms=600000"], {
      terminal: true,
      env: { NO_COLOR: "1" }
    })
    try {
      await run.seen("you> ")
      run.write("deploy\r")
      await run.seen("running wait_for_approval")
      // The plugin's own process (`node chaos.mjs`), not the command whose --mcp names it.
      const plugins = () => processesRunning(plugin).filter((pid) => argvOf(pid)[1] === plugin)
      const running = plugins()
      assert.lengthOf(running, 1)
      run.write("\x03")
      await run.seen(interrupted)
      await waitFor(() => !plugins().includes(running[0]!), "the plugin's process to be stopped", run.stdout)
      run.write("and now?\r")
      await run.seen("Approval never came.")
      await run.seen(/status\s+completed/)
      run.write("exit\r")
      assert.strictEqual(await run.exited, 0, run.stdout())
    } finally {
      run.child.kill("SIGKILL")
    }
  }, 600_000)

  it("at the prompt Ctrl-C clears what was typed; on an empty line it says how to leave, and a second one leaves", async () => {
    const run = start(["--scenario", planFile([])], { terminal: true, env: { NO_COLOR: "1" } })
    try {
      await run.seen("you> ")
      run.write("half typed")
      await run.seen("half typed")
      run.write("\x03")
      run.write("\x03")
      await run.seen("(Ctrl-C again, Ctrl-D or exit to leave)")
      run.write("\x03")
      assert.strictEqual(await run.exited, 0, run.stdout())
      // What was typed was cleared, never run.
      assert.notInclude(run.stdout(), "▶ run")
    } finally {
      run.child.kill("SIGKILL")
    }
  }, 600_000)
})

/** A process's argv, from /proc; empty once it is gone. */
const argvOf = (pid: number): ReadonlyArray<string> => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
  } catch {
    return []
  }
}

/** Pids of live processes whose command line mentions `needle`, from /proc. */
const processesRunning = (needle: string): ReadonlyArray<number> =>
  fs.readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return []
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8")
      const state = fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.[0]
      return cmdline.includes(needle) && state !== "Z" ? [Number(entry)] : []
    } catch {
      return []
    }
  })

describe("agent CLI: Ctrl-C", () => {
  it("SIGINT during a tool call: run_ended interrupted, exit 130, and no plugin process left", async () => {
    const child = spawn(
      process.execPath,
      [entry, "--scenario", "hung-tool", "--set", "tool_timeout_ms=60000", "--json"],
      { cwd: root, env: { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" } }
    )
    let stdout = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    await new Promise<void>((resolve) => {
      const check = () => (stdout.includes('"tool_call_started"') ? resolve() : setTimeout(check, 20))
      check()
    })
    const plugin = path.join(root, "examples/plugins/chaos.mjs")
    assert.isAbove(processesRunning(plugin).length, 0)
    child.kill("SIGINT")
    assert.strictEqual(await exited, 130)
    const lastLine = stdout.trim().split("\n").at(-1)!
    assert.deepInclude(JSON.parse(lastLine), { type: "run_ended", status: "interrupted" })
    assert.deepStrictEqual(processesRunning(plugin), [])
  })
})

describe("agent CLI: a second signal", () => {
  it("a second SIGINT during cleanup (an OTLP export that gets no answer) cuts it short at once: exit 130, one line", async () => {
    // A collector that never answers; the second SIGINT goes as the export at shutdown arrives, so cleanup has
    // begun and is waiting on it (@effect/opentelemetry waits up to 3 s).
    let run: ReturnType<typeof start> | undefined
    let interrupted = false
    let second = false
    const collector = http.createServer((request) => {
      if (interrupted && request.url === "/v1/metrics" && !second) {
        second = true
        run?.child.kill("SIGINT")
      }
    })
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
    const { port } = collector.address() as { readonly port: number }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-cli-second-"))
    const plan = path.join(dir, "plan.json")
    fs.writeFileSync(
      plan,
      JSON.stringify({
        steps: [{ kind: "error", status: 429, error_type: "rate_limit_error", headers: { "retry-after": "600" } }]
      })
    )
    run = start(["--otel", "--scenario", plan, "--set", "max_retry_wait_ms=700000", "--prompt", "hi", "--json"], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_TIMEOUT: "600000" }
    })
    try {
      await run.seen('"retry_scheduled"')
      interrupted = true
      run.child.kill("SIGINT")
      assert.strictEqual(await run.exited, 130)
      assert.isTrue(second, "the export at shutdown never came")
      assert.strictEqual(run.stderr(), "agent: interrupted by SIGINT; SIGINT again, so cleanup was cut short\n")
      assert.deepInclude(
        run
          .stdout()
          .trim()
          .split("\n")
          .map((line): unknown => JSON.parse(line))
          .at(-1),
        {
          type: "run_ended",
          status: "interrupted"
        }
      )
    } finally {
      run.child.kill("SIGKILL")
      collector.closeAllConnections()
      collector.close()
    }
  })
})

/** Runs `command` on a pseudo-terminal (util-linux `script`), so that stdout is a TTY; resolves its output. */
const onTerminal = (args: ReadonlyArray<string>, env: Record<string, string | undefined>) =>
  new Promise<string>((resolve, reject) => {
    const command = [process.execPath, entry, ...args].map((arg) => `'${arg}'`).join(" ")
    const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: root, env })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.on("error", reject)
    child.on("close", () => resolve(output))
  })

const options = [
  "--provider",
  "--model",
  "--prompt",
  "--system",
  "--mcp",
  "--settings",
  "--set",
  "--scenario",
  "--json"
]

describe("agent CLI: help and usage errors", () => {
  it("--help gives every option its own description, never the generic 'A user-defined piece of text'", async () => {
    const result = await cli(["--help"])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.notInclude(result.stdout, "A user-defined piece of text")
    assert.notInclude(result.stdout, "A true or false value")
    // effect/cli lists an option on one line: its name and value, then (past a run of spaces) its description.
    const lines = result.stdout.split("\n").map((line) => line.trim())
    for (const option of options) {
      const line = lines.find((text) => text.startsWith(`${option} `))
      assert.isDefined(line, `${option} is in --help`)
      const description = line!.split(/\s{2,}/)[1] ?? ""
      assert.isAbove(description.trim().length, 10, `${option}: "${description}"`)
      assert.notMatch(description, /^\s*This (setting|option)/, `${option} has a description of its own`)
    }
  })

  it("--help without noise: no generic line after each option, no --wizard or --completions", async () => {
    const result = await cli(["--help"])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.notInclude(result.stdout, "This setting is optional")
    assert.notInclude(result.stdout, "This option may be repeated")
    assert.notInclude(result.stdout, "--wizard")
    assert.notInclude(result.stdout, "--completions")
  })

  it("a subcommand's usage names the command it belongs to: agent simulate, not $ simulate", async () => {
    for (const subcommand of ["simulate", "sessions"]) {
      const result = await cli([subcommand, "--help"])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.include(result.stdout, `agent ${subcommand} [flags]`)
      assert.notInclude(result.stdout, `$ ${subcommand}`)
    }
  })

  it("--help writes no colour codes when stdout is not a TTY", async () => {
    const result = await cli(["--help"])
    assert.include(result.stdout, "--prompt TEXT")
    assert.notInclude(result.stdout, "\x1b[")
  })

  it("--help on a terminal is coloured, and not with NO_COLOR set", async () => {
    const env = { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" }
    const coloured = await onTerminal(["--help"], { ...env, NO_COLOR: undefined })
    // effect/cli colours an option's name and its value apart: read the text as shown.
    assert.include(stripVTControlCharacters(coloured), "--prompt TEXT")
    assert.include(coloured, "\x1b[")
    const plain = await onTerminal(["--help"], { ...env, NO_COLOR: "1" })
    assert.include(plain, "--prompt TEXT")
    assert.notInclude(plain, "\x1b[")
  })

  it("a misspelt option suggests the right one (--promt -> --prompt), in the subcommand too", async () => {
    const root = await cli(["--promt", "hi"])
    assert.strictEqual(root.code, 2)
    assert.strictEqual(root.stderr, "agent: unknown option --promt; did you mean --prompt?\n")
    const sub = await cli(["simulate", "--faults", "429", "--runz", "3"])
    assert.strictEqual(sub.code, 2)
    assert.include(sub.stderr, "did you mean --runs?")
  })

  it("an invalid choice names its option (--provider nope)", async () => {
    const result = await cli(["--provider", "nope", "--prompt", "hi"])
    assert.strictEqual(result.code, 2)
    assert.strictEqual(result.stderr, 'agent: --provider must be one of fake, anthropic, openai, not "nope"\n')
  })

  it.effect("an --mcp plugin that cannot start ends the command with exit 2, before any model request", () =>
    Effect.gen(function* () {
      const server = yield* FakeProvider.make(FaultPlan.happy)
      const result = yield* Effect.promise(() =>
        cli(["--provider", "anthropic", "--mcp", "/nonexistent/binary --flag", "--prompt", "hi", "--json"], {
          env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url }
        })
      )
      assert.strictEqual(result.code, 2)
      assert.match(result.stderr, /^agent: --mcp "\/nonexistent\/binary --flag" could not be started: .*ENOENT/)
      assert.lengthOf(result.events, 0)
      assert.lengthOf(yield* server.requests, 0)
    })
  )

  it("an --mcp plugin that never answers initialize: exit 2 once plugin_startup_timeout_ms has passed, naming it", async () => {
    // The guard is far below the default bound (30 s): only the setting ends the wait in time.
    const result = await cli(
      ["--provider", "fake", "--set", "plugin_startup_timeout_ms=1000", "--mcp", "sleep 600", "--prompt", "hi"],
      { killAfterMillis: 20_000 }
    )
    assert.strictEqual(result.code, 2, result.stderr)
    assert.match(
      result.stderr,
      /^agent: --mcp "sleep 600" could not be started: Plugin "sleep" did not answer initialize within 1000 ms of starting/
    )
  })
})

describe("agent fake-server", () => {
  /** The server's first stdout line, its URL. */
  const urlOf = (run: ReturnType<typeof start>) => run.stdout().split("\n", 1)[0]!
  const refused = (url: string) =>
    new Promise<boolean>((resolve) =>
      http
        .get(url, (response) => {
          response.resume()
          resolve(false)
        })
        .on("error", () => resolve(true))
    )

  it("serves a chaos plan by name until SIGTERM: agent against it recovers as the plan asks, and the port closes", async () => {
    const server = start(["fake-server", "--plan", "flaky-network"])
    try {
      await server.seen(/^http:\/\/127\.0\.0\.1:\d+\n/)
      const url = urlOf(server)
      await waitFor(() => server.stderr().includes("Ctrl-C to stop"), "the announcement", server.stderr)
      assert.include(server.stderr(), `fake provider: plan flaky-network (2 steps, then happy); Anthropic base ${url}`)
      const anthropic = await cli(["--provider", "anthropic", "--prompt", "hi", "--json"], {
        env: { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "any" }
      })
      assert.strictEqual(anthropic.code, 0, anthropic.stderr)
      assert.deepStrictEqual(
        ofType(anthropic, "retry_scheduled").map((event) => event["category"]),
        ["connection_error", "server_error"]
      )
      // The plan is spent: the OpenAI wire format gets the happy answer.
      const openai = await cli(["--provider", "openai", "--prompt", "hi", "--json"], {
        env: { OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: "any" }
      })
      assert.strictEqual(openai.code, 0, openai.stderr)
      assert.deepInclude(last(openai), { type: "run_ended", status: "completed" })
      server.child.kill("SIGTERM")
      assert.strictEqual(await server.exited, 143)
      assert.isTrue(await refused(url))
    } finally {
      server.child.kill("SIGKILL")
    }
  })

  it("a fault-plan file, on --port; an unknown plan or a port out of range is bad usage (exit 2)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-fake-server-"))
    const plan = path.join(dir, "plan.json")
    fs.writeFileSync(
      plan,
      JSON.stringify({ name: "one-429", steps: [{ kind: "error", status: 401, error_type: "authentication_error" }] })
    )
    const server = start(["fake-server", "--plan", plan, "--port", "0", "--host", "127.0.0.1"])
    try {
      await server.seen(/^http:\/\/127\.0\.0\.1:\d+\n/)
      const denied = await cli(["--provider", "anthropic", "--prompt", "hi", "--json"], {
        env: { ANTHROPIC_BASE_URL: urlOf(server), ANTHROPIC_API_KEY: "any" }
      })
      assert.strictEqual(denied.code, 5, denied.stderr)
      server.child.kill("SIGINT")
      assert.strictEqual(await server.exited, 130)
    } finally {
      server.child.kill("SIGKILL")
    }
    const unknown = await cli(["fake-server", "--plan", "no-such-plan"])
    assert.strictEqual(unknown.code, 2)
    assert.match(
      unknown.stderr,
      /^agent: --plan "no-such-plan" is neither a chaos plan \(rate-limits, .*\) nor a fault-plan file\n$/
    )
    const port = await cli(["fake-server", "--port", "70000"])
    assert.strictEqual(port.code, 2)
    assert.strictEqual(port.stderr, "agent: --port must be 0 to 65535, not 70000\n")
  })
})

describe("agent CLI: option values", () => {
  it("a value that starts with a dash is its option's value (--prompt -x, --prompt --x)", async () => {
    for (const input of ["-x", "--not-an-option", "-5 degrees?"]) {
      const result = await cli(["--prompt", input, "--json"])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepInclude(result.events[0], { type: "run_started", input })
    }
  })

  it("an option given twice says so, naming it (--prompt a --prompt b)", async () => {
    const twice = await cli(["--prompt", "a", "--prompt", "b"])
    assert.strictEqual(twice.code, 2)
    assert.strictEqual(twice.stderr, "agent: --prompt is given twice; it takes one value (see agent --help)\n")
    const thrice = await cli(["--json", "--json", "--json", "--prompt", "a"])
    assert.strictEqual(thrice.code, 2)
    assert.strictEqual(thrice.stderr, "agent: --json is given 3 times; it takes one value (see agent --help)\n")
  })

  it("--set __proto__=... is rejected as the settings file rejects it: exit 2, the key named", async () => {
    const result = await cli(["--set", '__proto__={"max_retries":1}', "--prompt", "hi", "--json"])
    assert.strictEqual(result.code, 2)
    assert.strictEqual(result.stderr, "agent: invalid settings in --set:\n  - __proto__: unknown key\n")
    assert.lengthOf(result.events, 0)
  })

  it("--log-level debug shows the kernel's debug logs (an unusable retry-after ignored); by default they are hidden", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-cli-log-"))
    const plan = path.join(dir, "plan.json")
    fs.writeFileSync(
      plan,
      JSON.stringify({
        steps: [
          { kind: "error", status: 429, error_type: "rate_limit_error", headers: { "retry-after": "soon" } },
          { kind: "reply", text: "ok" }
        ]
      })
    )
    const args = ["--scenario", plan, "--set", "base_delay_ms=1", "--prompt", "hi", "--json"]
    const debug = await cli(["--log-level", "debug", ...args])
    assert.strictEqual(debug.code, 0, debug.stderr)
    assert.include(debug.stderr, "ignored an unusable retry hint")
    // Logs go to stderr: stdout stays one JSON event a line.
    assert.isTrue(
      debug.stdout
        .trim()
        .split("\n")
        .every((line) => line.startsWith("{")),
      debug.stdout
    )
    const quiet = await cli(args)
    assert.strictEqual(quiet.code, 0, quiet.stderr)
    assert.notInclude(quiet.stdout + quiet.stderr, "ignored an unusable retry hint")
    const bad = await cli(["--log-level", "loud", ...args])
    assert.strictEqual(bad.code, 2)
    assert.match(bad.stderr, /^agent: --log-level must be one of .*debug.*, not "loud"\n$/)
  })
})

describe("agent CLI: bounded input", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-cli-bounded-"))

  it("--settings /dev/zero ends with exit 2 and one line", async () => {
    const result = await cli(["--settings", "/dev/zero", "--prompt", "hi"])
    assert.strictEqual(result.code, 2)
    assert.match(result.stderr, /^agent: cannot read settings file \/dev\/zero: .*larger than 1 MiB.*\n$/)
  })

  it("--settings on a FIFO with no writer ends with exit 2 at its time bound", async () => {
    const fifo = path.join(dir, "settings.fifo")
    await new Promise((resolve, reject) =>
      execFile("mkfifo", [fifo], (error) => (error === null ? resolve(undefined) : reject(error)))
    )
    const result = await cli(["--settings", fifo, "--prompt", "hi"])
    assert.strictEqual(result.code, 2)
    assert.match(result.stderr, /^agent: cannot read settings file .*settings\.fifo: .*no end of file after 5s.*\n$/)
  })

  it("--settings <(echo ...) still works: a pipe is read to its end", async () => {
    const valid = await cli([], { shell: `--settings <(echo '{"max_retries": 1}') --prompt hi --json` })
    assert.strictEqual(valid.code, 0, valid.stderr)
    assert.deepInclude(last(valid), { type: "run_ended", status: "completed" })
    const typo = await cli([], { shell: `--settings <(echo '{"max_retrys": 1}') --prompt hi --json` })
    assert.strictEqual(typo.code, 2)
    assert.include(typo.stderr, 'max_retrys: unknown key (did you mean "max_retries"?)')
  })

  it("--scenario /dev/zero ends with exit 2", async () => {
    const result = await cli(["--scenario", "/dev/zero"])
    assert.strictEqual(result.code, 2)
    assert.match(result.stderr, /^agent: cannot read the fault plan \/dev\/zero: larger than 1 MiB/)
  })

  it("stdin over 4 MiB ends with exit 2, no model request made", async () => {
    const result = await cli(["--json"], { input: Buffer.alloc(5 * 1024 * 1024, "a") })
    assert.strictEqual(result.code, 2)
    assert.strictEqual(result.stderr, "agent: stdin is larger than 4 MiB, more than any model takes as input\n")
    assert.lengthOf(result.events, 0)
  })
})

describe("agent CLI: every non-zero exit says why", () => {
  it('--prompt "" is rejected as empty stdin is', async () => {
    const empty = await cli(["--prompt", "", "--json"])
    assert.strictEqual(empty.code, 2)
    assert.strictEqual(empty.stderr, "agent: --prompt is empty: pass the text to send, or text on stdin\n")
    assert.lengthOf(empty.events, 0)
    const blank = await cli(["--prompt", "  \n", "--json"])
    assert.strictEqual(blank.code, 2)
  })

  it("a --set value nested 3,000 deep is a usage error in one line, not a silent exit 1", async () => {
    const deep = `${"[".repeat(3_000)}${"]".repeat(3_000)}`
    const result = await cli(["--set", `max_retries=${deep}`, "--prompt", "hi"])
    assert.strictEqual(result.code, 2)
    assert.strictEqual(result.stderr, "agent: invalid settings in --set: max_retries nests deeper than 32 levels\n")
  })

  it("a run that ends in a non-zero status says which on stderr", async () => {
    const result = await cli(["--scenario", "auth-error", "--json"])
    assert.strictEqual(result.code, 5)
    assert.strictEqual(result.stderr, "agent: the run ended auth_error\n")
  })

  it("a defect is exit 1 with one line, never a silent exit", () => {
    const defect = outcomeOf(Exit.die(new RangeError("Maximum call stack size exceeded\n    at format")), "SIGINT")
    assert.deepStrictEqual(defect, { code: 1, message: "internal error: Maximum call stack size exceeded" })
    const failure = outcomeOf(Exit.fail({ _tag: "FakeProviderError", message: "listen EADDRINUSE" }), "SIGINT")
    assert.deepStrictEqual(failure, { code: 1, message: "listen EADDRINUSE" })
  })

  it("SIGTERM ends the run as Ctrl-C does: run_ended interrupted, no plugin process left, exit 143", async () => {
    const child = spawn(
      process.execPath,
      [entry, "--scenario", "hung-tool", "--set", "tool_timeout_ms=60000", "--json"],
      { cwd: root, env: { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" } }
    )
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    await new Promise<void>((resolve) => {
      const check = () => (stdout.includes('"tool_call_started"') ? resolve() : setTimeout(check, 20))
      check()
    })
    const plugin = path.join(root, "examples/plugins/chaos.mjs")
    assert.isAbove(processesRunning(plugin).length, 0)
    child.kill("SIGTERM")
    assert.strictEqual(await exited, 143)
    const lastLine = stdout.trim().split("\n").at(-1)!
    assert.deepInclude(JSON.parse(lastLine), { type: "run_ended", status: "interrupted" })
    assert.strictEqual(stderr, "agent: interrupted by SIGTERM\n")
    assert.deepStrictEqual(processesRunning(plugin), [])
  })
})

describe("agent CLI: --otel", () => {
  /** A real OTLP/HTTP receiver on loopback: it keeps each JSON body by path. */
  const receiver = () =>
    new Promise<{ readonly url: string; readonly bodies: Map<string, Array<unknown>>; readonly close: () => void }>(
      (resolve) => {
        const bodies = new Map<string, Array<unknown>>()
        const server = http.createServer((request, response) => {
          let body = ""
          request.on("data", (chunk) => (body += chunk))
          request.on("end", () => {
            bodies.set(request.url ?? "", [...(bodies.get(request.url ?? "") ?? []), JSON.parse(body)])
            response.writeHead(200, { "content-type": "application/json" })
            response.end("{}")
          })
        })
        server.listen(0, "127.0.0.1", () => {
          const address = server.address() as { readonly port: number }
          resolve({ url: `http://127.0.0.1:${address.port}`, bodies, close: () => server.close() })
        })
      }
    )

  interface OtlpSpan {
    readonly spanId: string
    readonly parentSpanId?: string
    readonly name: string
    readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
  }

  it("exports the run's GenAI spans and metrics to OTEL_EXPORTER_OTLP_ENDPOINT, named by OTEL_SERVICE_NAME", async () => {
    const sink = await receiver()
    try {
      const result = await cli(["--otel", "--scenario", "rate-limits", "--json"], {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: "agent-under-test" }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      const traces = (sink.bodies.get("/v1/traces") ?? []) as ReadonlyArray<{
        readonly resourceSpans: ReadonlyArray<{
          readonly resource: { readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: unknown }> }
          readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<OtlpSpan> }>
        }>
      }>
      const resources = traces.flatMap((body) => body.resourceSpans)
      assert.deepInclude(resources[0]!.resource.attributes, {
        key: "service.name",
        value: { stringValue: "agent-under-test" }
      })
      const spans = resources.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
      const byName = (name: string) => spans.filter((span) => span.name === name)
      const [root] = byName("invoke_agent")
      assert.isDefined(root)
      const turns = byName("agent_kernel.turn")
      assert.isTrue(turns.every((turn) => turn.parentSpanId === root!.spanId))
      const [firstTurn] = turns
      const children = spans.filter((span) => span.parentSpanId === firstTurn!.spanId).map((span) => span.name)
      assert.includeMembers(children, ["chat fake-model", "agent_kernel.retry"])
      assert.isAtLeast(byName("execute_tool list_files").length, 1)
      const [retry] = byName("agent_kernel.retry")
      assert.deepInclude(retry!.attributes, { key: "agent_kernel.retry.source", value: { stringValue: "retry_after" } })
      assert.deepInclude(retry!.attributes, {
        key: "agent_kernel.retry.category",
        value: { stringValue: "rate_limited" }
      })
      const metrics = JSON.stringify(sink.bodies.get("/v1/metrics") ?? [])
      for (const name of [
        "gen_ai.client.token.usage",
        "gen_ai.client.operation.duration",
        "agent_kernel_retries_total"
      ])
        assert.include(metrics, `"name":"${name}"`)
    } finally {
      sink.close()
    }
  })

  it("without the optional packages, --otel is a usage error that names them (exit 2); without --otel the command runs", async () => {
    // The bundle alone (its entry and its chunks), where no node_modules can be found: exactly an install
    // without the optional packages.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ak-cli-otel-"))
    const lone = path.join(dir, "agent.mjs")
    fs.cpSync(path.dirname(entry), dir, { recursive: true })
    const run = (args: ReadonlyArray<string>) =>
      new Promise<{ readonly code: number | null; readonly stderr: string }>((resolve) =>
        execFile(process.execPath, [lone, ...args], { cwd: dir }, (error, _stdout, stderr) =>
          resolve({ code: error === null ? 0 : (error.code as number | null), stderr })
        )
      )
    const withOtel = await run(["--otel", "--prompt", "hi"])
    assert.strictEqual(withOtel.code, 2)
    assert.match(
      withOtel.stderr,
      /^agent: --otel needs the optional OpenTelemetry packages \(@effect\/opentelemetry is not installed\)\. Install them with: npm install @effect\/opentelemetry /
    )
    const without = await run(["--prompt", "hi"])
    assert.strictEqual(without.code, 0, without.stderr)
  })
})
