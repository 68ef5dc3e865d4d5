/**
 * End-to-end: what the `agent` command says, and exits with, when the session store it is given
 * is missing, not ours, damaged, or owned by another process (whatever path names it), and how
 * `agent sessions` lists a run whose process was killed. Real processes (the bundle on node),
 * real SQLite files, real symbolic and hard links; the fake provider plays a plan file inside each
 * process. Exit codes as the README's table gives them: 2 when the path is wrong or taken, 1 with
 * the store's one-line reason when a store of ours fails.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { cli, ensureBundle, type Result, start, waitFor } from "./testBundle.js"

const root = path.resolve(import.meta.dirname, "../..")
beforeAll(ensureBundle)

const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), "ak-store-errors-"))

/** A fault-plan file for the fake provider. */
const planFile = (dir: string, steps: ReadonlyArray<unknown>) => {
  const file = path.join(dir, "plan.json")
  fs.writeFileSync(file, JSON.stringify({ steps }))
  return file
}

/** The counter plugin (examples/plugins/counter.mjs), recording its invocations in `file`, each taking `delayMs`. */
const counter = (file: string, delayMs: number) =>
  `node ${path.join(root, "examples/plugins/counter.mjs")} ${file} ${delayMs}`

/** How often the counter's tool was started. */
const starts = (file: string) =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.startsWith("start "))
    : []

/** Another program's SQLite database: one table of its own, one row. */
const foreignDatabase = (file: string) => {
  const db = new DatabaseSync(file)
  db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine')")
  db.close()
}

/** The tables of a SQLite database, read without writing it. */
const tables = (file: string) => {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((row) => String(row["name"]))
  } finally {
    db.close()
  }
}

/** stderr holds exactly one line, `agent: ...`, and no stack trace. */
const oneLine = (result: Result) => {
  const lines = result.stderr.split("\n").filter((line) => line !== "")
  assert.lengthOf(lines, 1, result.stderr)
  assert.match(lines[0]!, /^agent: /)
  assert.notMatch(result.stderr, /^\s+at /m, result.stderr)
  return lines[0]!
}

/** A run on the store `store`, through the fake provider playing `plan`, with `args` added. */
const onStore = (store: string, plan: string, args: ReadonlyArray<string> = []) => [
  "--provider",
  "fake",
  "--scenario",
  plan,
  "--session",
  store,
  ...args
]

describe("agent CLI: a store path that is wrong exits 2 with one line naming it", () => {
  it("agent sessions of a file that does not exist: exit 2, and nothing is created", async () => {
    const dir = scratch()
    const store = path.join(dir, "missing.db")
    const result = await cli(["sessions", store])
    assert.strictEqual(result.code, 2, result.stderr)
    assert.include(oneLine(result), store)
    assert.deepStrictEqual(fs.readdirSync(dir), [])
  })

  it("agent --session --resume on a file that does not exist: exit 2, and nothing is created", async () => {
    const dir = scratch()
    const store = path.join(dir, "missing.db")
    const result = await cli(["--provider", "fake", "--session", store, "--resume"])
    assert.strictEqual(result.code, 2, result.stderr)
    assert.include(oneLine(result), `there is no session store at ${store}`)
    assert.deepStrictEqual(fs.readdirSync(dir), [])
  })

  it("another program's SQLite database: exit 2, not an agent-kernel session store, left as it is", async () => {
    const dir = scratch()
    const store = path.join(dir, "theirs.db")
    foreignDatabase(store)
    const plan = planFile(dir, [{ kind: "reply", text: "never sent" }])
    for (const args of [onStore(store, plan, ["--prompt", "hi"]), ["sessions", store]]) {
      const result = await cli(args)
      assert.strictEqual(result.code, 2, result.stderr)
      const line = oneLine(result)
      assert.include(line, store)
      assert.include(line, "not an agent-kernel session store")
      assert.deepStrictEqual(tables(store), ["notes"])
    }
  })

  it("a text file: exit 2, not an agent-kernel session store, left as it is", async () => {
    const dir = scratch()
    const store = path.join(dir, "notes.txt")
    fs.writeFileSync(store, "a text file, not a database\n")
    const plan = planFile(dir, [{ kind: "reply", text: "never sent" }])
    for (const args of [onStore(store, plan, ["--prompt", "hi"]), ["sessions", store]]) {
      const result = await cli(args)
      assert.strictEqual(result.code, 2, result.stderr)
      const line = oneLine(result)
      assert.include(line, store)
      assert.include(line, "not an agent-kernel session store")
      assert.strictEqual(fs.readFileSync(store, "utf8"), "a text file, not a database\n")
    }
  })
})

describe("agent CLI: a store of ours that fails", () => {
  it("a store cut off mid-page: exit 1 with one line saying it is corrupt, no stack trace", async () => {
    const dir = scratch()
    const store = path.join(dir, "agent.db")
    const plan = planFile(dir, [{ kind: "reply", text: "stored" }])
    const made = await cli(onStore(store, plan, ["--prompt", "hi"]))
    assert.strictEqual(made.code, 0, made.stderr)
    // A clean exit leaves the whole store in its file; cut it part-way through a page.
    const pageSize = 4096
    const size = fs.statSync(store).size
    assert.isAtLeast(size, 4 * pageSize)
    fs.truncateSync(store, Math.floor(size / pageSize / 2) * pageSize + pageSize / 2)
    for (const args of [["sessions", store], onStore(store, plan, ["--prompt", "again"])]) {
      const result = await cli(args)
      assert.strictEqual(result.code, 1, result.stderr)
      const line = oneLine(result)
      assert.include(line, store)
      assert.include(line, "corrupt")
      assert.notInclude(line, "internal error")
    }
  })
})

describe("agent CLI: one owner per store, whatever path names it", () => {
  it("a second process through a symbolic or hard link exits 2, in use, while the first runs; the tool runs once", async () => {
    const dir = scratch()
    const store = path.join(dir, "agent.db")
    const counts = path.join(dir, "counts.txt")
    const plan = planFile(dir, [
      { kind: "reply", tool_calls: [{ name: "count", input: { key: "once" }, id: "toolu_once" }], stop: "tool_use" },
      { kind: "reply", text: "counted" }
    ])
    // The store exists before the links are made to it.
    const made = await cli(onStore(store, planFile(scratch(), [{ kind: "reply", text: "made" }]), ["--prompt", "hi"]))
    assert.strictEqual(made.code, 0, made.stderr)
    const symlink = path.join(dir, "link.db")
    fs.symlinkSync("agent.db", symlink)
    const hardLink = path.join(dir, "hard.db")
    fs.linkSync(store, hardLink)

    const first = start(onStore(store, plan, ["--json", "--mcp", counter(counts, 60_000), "--prompt", "count"]))
    try {
      await first.seen('"type":"tool_call_started"')
      for (const other of [symlink, hardLink]) {
        const second = await cli(onStore(other, plan, ["--json", "--mcp", counter(counts, 0), "--prompt", "count"]))
        assert.strictEqual(second.code, 2, second.stderr)
        assert.include(oneLine(second), "in use by another process")
        assert.deepStrictEqual(second.events, [])
      }
      // Listing reads beside the owner: the run it is running lists as running.
      const listed = await cli(["sessions", symlink])
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.match(listed.stdout, /^session-1\trunning\t2\t/m)
      assert.lengthOf(starts(counts), 1)
    } finally {
      first.child.kill("SIGINT")
    }
    assert.strictEqual(await first.exited, 130, first.stderr())
    assert.lengthOf(starts(counts), 1)
  })
})

describe("agent sessions: a run whose process was killed", () => {
  it("after one retry was spent: interrupted (resumable), 1 retry used", async () => {
    const dir = scratch()
    const store = path.join(dir, "agent.db")
    // A 429 with retry-after: the run suspends on a durable wait, its one retry spent.
    const plan = planFile(dir, [
      {
        kind: "error",
        status: 429,
        error_type: "rate_limit_error",
        message: "Number of requests has exceeded your per-minute rate limit",
        headers: { "retry-after": "60" }
      },
      { kind: "reply", text: "never reached" }
    ])
    const run = start(onStore(store, plan, ["--json", "--prompt", "wait"]))
    try {
      await run.seen('"type":"retry_scheduled"')
      await waitFor(() => suspended(store), "the run to suspend on its retry wait", run.stdout)
    } finally {
      run.child.kill("SIGKILL")
    }
    assert.strictEqual(await run.exited, null)

    const listed = await cli(["sessions", store])
    assert.strictEqual(listed.code, 0, listed.stderr)
    const row = listed.stdout.split("\n").find((line) => line.startsWith("session-1\t"))
    assert.isDefined(row, listed.stdout)
    const [, status, runs, retriesUsed] = row!.split("\t")
    assert.strictEqual(status, "interrupted (resumable)")
    assert.strictEqual(runs, "1")
    assert.strictEqual(retriesUsed, "1")
    const asJson = await cli(["sessions", store, "--json"])
    assert.deepInclude(JSON.parse(asJson.stdout), { status: "interrupted", resumable: true, retries_used: 1 })
  })
})

/** Whether the store's run is suspended on a durable wait, as its journal says (read beside its owner). */
const suspended = (store: string): boolean => {
  if (!fs.existsSync(store)) return false
  const db = new DatabaseSync(store, { readOnly: true })
  try {
    const row = db.prepare("SELECT status FROM workflow_executions").get()
    return row !== undefined && row["status"] === "suspended"
  } catch {
    // The tables are not there yet.
    return false
  } finally {
    db.close()
  }
}
