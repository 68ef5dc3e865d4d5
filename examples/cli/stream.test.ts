/**
 * End-to-end: the built `agent` command streaming its answer, against the
 * fake provider over real sockets (the CLI starts it in its own process for
 * a fault-plan file). Off a terminal through pipes; on one through a real
 * pseudo-terminal made by util-linux `script`. Assertions read the output,
 * never its timing.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cli, ensureBundle, ofType, start } from "./testBundle.js"

beforeAll(ensureBundle)

/** The command with its output to pipes. */
const agent = (args: ReadonlyArray<string>) => cli(["--prompt", "hi", ...args])

/** The command on a pseudo-terminal of 80 columns by 24 rows: stdout is a TTY. */
const agentOnTty = (args: ReadonlyArray<string>) =>
  cli(["--prompt", "hi", ...args], { terminal: { columns: 80, rows: 24 } })

const planFile = (steps: ReadonlyArray<unknown>) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ak-stream-")), "plan.json")
  fs.writeFileSync(file, JSON.stringify({ steps }))
  return file
}

const answer = "The answer, written in many small pieces so that it streams."
const partial = "Partial words that fail"

/** A stream that fails with a transient error after some text, then one that completes. */
const restartPlan = () =>
  planFile([
    { kind: "stream_error", text: partial, error_type: "overloaded_error" },
    { kind: "reply", text: answer, delta_chars: 4 }
  ])

const occurrences = (text: string, part: string) => text.split(part).length - 1

describe("agent CLI streaming: --json", () => {
  it("every line is one JSON object; the text_delta events joined are run_ended.final_text", async () => {
    const result = await agent(["--scenario", planFile([{ kind: "reply", text: answer, delta_chars: 3 }]), "--json"])
    assert.strictEqual(result.code, 0, result.stderr)
    const events = result.events
    const lines = result.stdout.split("\n").filter((line) => line !== "")
    assert.deepStrictEqual(
      lines.map((line): unknown => JSON.parse(line)),
      [...events]
    )
    const deltas = ofType(result, "text_delta")
    assert.strictEqual(deltas.length, Math.ceil(answer.length / 3))
    const ended = events.at(-1)!
    assert.strictEqual(ended.type, "run_ended")
    assert.strictEqual(deltas.map((delta) => delta["text"]).join(""), answer)
    assert.strictEqual(ended["final_text"], answer)
    // The deltas come between the request and the response.
    const types = events.map((event) => event.type)
    assert.isBelow(types.indexOf("model_request"), types.indexOf("text_delta"))
    assert.isBelow(types.lastIndexOf("text_delta"), types.indexOf("model_response"))
  })

  it("a mid-stream failure: stream_restarted counts the discarded text; the last attempt's deltas are final_text", async () => {
    const result = await agent(["--scenario", restartPlan(), "--json"])
    assert.strictEqual(result.code, 0, result.stderr)
    const events = result.events
    const restarted = ofType(result, "stream_restarted")
    assert.lengthOf(restarted, 1)
    assert.deepInclude(restarted[0], { attempt: 1, discarded_text_chars: partial.length, category: "overloaded" })
    const deltas = ofType(result, "text_delta")
    const byAttempt = (attempt: number) =>
      deltas
        .filter((delta) => delta["attempt"] === attempt)
        .map((delta) => delta["text"])
        .join("")
    assert.strictEqual(byAttempt(1), partial)
    assert.strictEqual(byAttempt(2), answer)
    assert.strictEqual(events.at(-1)!["final_text"], answer)
    // The restart is announced before the next attempt's first delta.
    const restartAt = events.indexOf(restarted[0]!)
    assert.isBelow(
      restartAt,
      events.findIndex((event) => event.type === "text_delta" && event["attempt"] === 2)
    )
  })

  it("tool_use_started is a line too", async () => {
    const plan = planFile([
      { kind: "reply", text: "Calling.", tool_calls: [{ name: "no_such_tool", input: {} }] },
      { kind: "reply", text: answer }
    ])
    const result = await agent(["--scenario", plan, "--json"])
    assert.strictEqual(result.code, 0, result.stderr)
    const started = ofType(result, "tool_use_started")
    assert.lengthOf(started, 1)
    assert.strictEqual(started[0]!["name"], "no_such_tool")
  })
})

describe("agent CLI streaming: off a terminal", () => {
  it("without --stream the output is as before: no deltas, the answer once, in the summary", async () => {
    const result = await agent(["--scenario", restartPlan()])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.notInclude(result.stdout, "\x1b")
    assert.notInclude(result.stdout, partial)
    assert.include(result.stdout, "↺ the stream failed mid-way (overloaded): the whole request is restarted")
    assert.strictEqual(occurrences(result.stdout, answer), 1)
    assert.include(result.stdout, `\n\n${answer}\n\nstatus   completed`)
  })

  it("--stream prints the deltas: the failed attempt's text marked discarded, the answer once", async () => {
    const result = await agent(["--scenario", restartPlan(), "--stream"])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.notInclude(result.stdout, "\x1b")
    assert.include(
      result.stdout,
      `${partial}\n  ↺ [stream restarted (overloaded): ${partial.length} characters discarded, attempt 2]\n`
    )
    assert.strictEqual(occurrences(result.stdout, answer), 1)
    assert.match(
      result.stdout,
      new RegExp(`\\(attempt 2\\).*tools\\n${answer.replace(/[.,]/g, "\\$&")}\\n {2}← end_turn`)
    )
  })
})

describe("agent CLI streaming: on a terminal (a pseudo-terminal from `script`)", () => {
  it("streams the answer after a spinner, rewrites the failed attempt struck through, and prints the answer once", async () => {
    const result = await agentOnTty(["--scenario", restartPlan()])
    assert.strictEqual(result.code, 0, result.stderr)
    const out = result.stdout
    // The spinner, erased before the text.
    assert.include(out, "waiting for fake-model 0.0 s")
    assert.include(out, "\r\x1b[KPartial words")
    // The partial text is rewritten in place, struck through and dim, then marked.
    assert.include(out, `${partial}\r\x1b[J\x1b[2;9m${partial}\x1b[0m\n`)
    assert.include(out, `[stream restarted (overloaded): ${partial.length} characters discarded, attempt 2]`)
    // The retry countdown while the kernel waits.
    assert.match(out, /retry 1 in \d\.\d s/)
    // The answer streamed once and not repeated by the summary.
    assert.strictEqual(occurrences(out, answer), 1)
    assert.include(out, `\r\x1b[K${answer}\n`)
    assert.notInclude(out.slice(out.indexOf("status")), answer)
  })

  it("a tool's run shows the spinner with its name", async () => {
    const plan = planFile([
      { kind: "reply", text: "Calling.", tool_calls: [{ name: "no_such_tool", input: {} }] },
      { kind: "reply", text: answer }
    ])
    const result = await agentOnTty(["--scenario", plan])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.include(result.stdout, "running no_such_tool 0.0 s")
    assert.strictEqual(occurrences(result.stdout, answer), 1)
  })
})

describe("agent CLI: terminal safety, against agent fake-server", () => {
  // What a hostile server sends: a window title (OSC 0), a clear screen, a cursor move, a bell, a bidi override.
  const hostile = "Safe start \x1b]0;pwned\x07 \x1b[2J\x1b[H\x07 \u202Eevil\u202C end."
  const sequences = ["\x1b]", "\x07", "\x1b[2J", "\x1b[H", "\u202E", "\u202C"]
  const hostilePlan = () =>
    planFile([
      { kind: "error", status: 429, error_type: "rate_limit_error", message: hostile, headers: { "retry-after": "0" } },
      { kind: "reply", text: hostile, tool_calls: [{ name: "list\x1b]0;t\x07_files\u202E", input: {} }] },
      { kind: "reply", text: hostile, delta_chars: 5 }
    ])

  /** The command against its own `agent fake-server` playing the hostile plan. */
  const againstHostileServer = async (args: ReadonlyArray<string>, terminal: boolean) => {
    const server = start(["fake-server", "--plan", hostilePlan()])
    try {
      await server.seen(/^http:\/\/127\.0\.0\.1:\d+\n/)
      const env = { ANTHROPIC_BASE_URL: server.stdout().split("\n", 1)[0]!, ANTHROPIC_API_KEY: "any" }
      return await cli(["--provider", "anthropic", "--prompt", "hi", ...args], {
        env,
        ...(terminal ? { terminal: { columns: 80, rows: 24 } } : {})
      })
    } finally {
      server.child.kill("SIGKILL")
    }
  }

  it("no model, tool or server text reaches the terminal with escape sequences or bidi controls, the summary included; --json keeps the exact text", async () => {
    for (const [where, args, terminal] of [
      ["terminal", [], true],
      ["pipe --stream", ["--stream"], false],
      ["pipe", [], false]
    ] as const) {
      const result = await againstHostileServer(args, terminal)
      assert.strictEqual(result.code, 0, `${where}: ${result.stdout}${result.stderr}`)
      for (const sequence of sequences) {
        assert.notInclude(result.stdout, sequence, `${where}: ${JSON.stringify(sequence)}`)
      }
      // The text is shown, cleaned; the summary does not repeat an answer that streamed.
      assert.include(result.stdout, "Safe start ]0;pwned [2J[H evil end.", where)
      const summary = result.stdout.slice(result.stdout.lastIndexOf("← end_turn"))
      assert.strictEqual(summary.includes("evil end."), where === "pipe", where)
    }
    const json = await againstHostileServer(["--json"], false)
    assert.strictEqual(json.code, 0, json.stderr)
    assert.strictEqual(json.events.at(-1)!["final_text"], hostile)
  })
})
