/**
 * `agent ui`: the run inspector served by the agent command over a store
 * another real `agent --session` process wrote, read over real HTTP, stopped
 * with SIGINT; bad input is bad usage (exit 2). The command runs as users
 * run it: node on the bundle (see testBundle.ts).
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { cli, ensureBundle, start } from "./testBundle.js"

const root = path.resolve(import.meta.dirname, "../..")
beforeAll(ensureBundle)

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "ak-ui-"))

/** The address and the action token in the banner `agent ui` prints. */
const bannerOf = (stdout: string) => {
  const found = /^agent-kernel inspector: (http:\/\/\S+\/)\naction token \(resume, interrupt\): (\S+)\n/.exec(stdout)
  if (found === null) throw new Error(`no banner in:\n${stdout}`)
  return { url: found[1]!, token: found[2]! }
}

describe("agent ui", () => {
  it("serves the inspector over a store an agent --session process wrote, until SIGINT (exit 130)", async () => {
    const store = path.join(tempDir(), "agent.db")
    const wrote = await cli(["--session", store, "--provider", "fake", "--prompt", "hello inspector", "--json"])
    assert.strictEqual(wrote.code, 0, wrote.stderr)
    const ui = start(["ui", "--session", store, "--port", "0"], { env: { ANTHROPIC_API_KEY: "sk-ant-never-shown" } })
    try {
      await ui.seen(/action token \(resume, interrupt\): \S+\n/)
      const { url, token } = bannerOf(ui.stdout())
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/)
      const page = await fetch(`${url}api/sessions`, { headers: { authorization: `Bearer ${token}` } })
      assert.strictEqual(page.status, 200)
      const listed = (await page.json()) as {
        total: number
        sessions: ReadonlyArray<{ id: string; status: string; runs: number; messages: number }>
      }
      assert.strictEqual(listed.total, 1)
      assert.deepInclude(listed.sessions[0], { id: "session-1", status: "completed", runs: 1, messages: 2 })
      const html = await (await fetch(url)).text()
      assert.include(html, "session-1")
      assert.notInclude(html, "sk-ant-never-shown")
      const events = (await (await fetch(`${url}api/sessions/session-1/events`)).json()) as ReadonlyArray<{
        seq: number
        event: { type: string; input?: string }
      }>
      assert.deepInclude(events[0], { seq: 1 })
      assert.deepInclude(events[0]!.event, { type: "run_started", input: "hello inspector" })
      assert.strictEqual(events.at(-1)!.event.type, "run_ended")
      // The actions need the token; with it, an action that does not apply is refused, saying why.
      const anonymous = await fetch(`${url}api/sessions/session-1/interrupt`, { method: "POST" })
      assert.strictEqual(anonymous.status, 401)
      const refused = await fetch(`${url}api/sessions/session-1/interrupt`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` }
      })
      assert.strictEqual(refused.status, 409)
      assert.include(await refused.text(), "it has no run in progress")
      ui.child.kill("SIGINT")
      assert.strictEqual(await ui.exited, 130)
      assert.include(ui.stderr(), "agent: interrupted by SIGINT")
    } finally {
      ui.child.kill("SIGKILL")
    }
  })

  it("a missing store, a file that is no store, a bad port and a port in use are bad usage (exit 2)", async () => {
    const dir = tempDir()
    const missing = await cli(["ui", "--session", path.join(dir, "missing.db")])
    assert.strictEqual(missing.code, 2)
    assert.strictEqual(
      missing.stderr,
      `agent: --session ${path.join(dir, "missing.db")}: there is no session store at ${path.join(dir, "missing.db")}\n`
    )
    const notes = path.join(dir, "notes.txt")
    fs.writeFileSync(notes, "some notes, no database\n".repeat(100))
    const foreign = await cli(["ui", "--session", notes])
    assert.strictEqual(foreign.code, 2)
    assert.match(foreign.stderr, new RegExp(`^agent: --session ${notes}: cannot read the session store .*\\n$`))
    const badPort = await cli(["ui", "--session", notes, "--port", "70000"])
    assert.strictEqual(badPort.code, 2)
    assert.strictEqual(badPort.stderr, "agent: --port must be 0 to 65535, not 70000\n")

    const store = path.join(dir, "agent.db")
    const wrote = await cli(["--session", store, "--provider", "fake", "--prompt", "hi"])
    assert.strictEqual(wrote.code, 0, wrote.stderr)
    const taken = http.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    try {
      const port = (taken.address() as AddressInfo).port
      const inUse = await cli(["ui", "--session", store, "--port", String(port)])
      assert.strictEqual(inUse.code, 2)
      assert.match(inUse.stderr, new RegExp(`^agent: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE.*\\n$`))
    } finally {
      taken.close()
    }
  })

  it("--help lists ui; the inspector is loaded only by agent ui (no static import of the command line reaches it)", async () => {
    const help = await cli(["--help"])
    assert.strictEqual(help.code, 0)
    assert.match(help.stdout, /\n {2}ui {2,}Serve the run inspector/)
    const meta = JSON.parse(fs.readFileSync(path.join(root, "examples/dist/meta.json"), "utf8")) as {
      outputs: Record<
        string,
        { imports: ReadonlyArray<{ path: string; kind: string }>; inputs: Record<string, unknown> }
      >
    }
    const reached = new Set<string>()
    const visit = (output: string) => {
      if (reached.has(output)) return
      reached.add(output)
      for (const imported of meta.outputs[output]?.imports ?? []) {
        if (imported.kind === "import-statement") visit(imported.path)
      }
    }
    // The bin loads main.ts (the command line) at once: what it imports statically loads on every command.
    const main = Object.entries(meta.outputs).find(([, output]) => "examples/cli/main.ts" in output.inputs)
    assert.isDefined(main)
    visit(main![0])
    const staticInputs = [...reached].flatMap((output) => Object.keys(meta.outputs[output]?.inputs ?? {}))
    assert.isTrue(staticInputs.some((input) => input.startsWith("examples/cli/ui.ts")))
    assert.deepStrictEqual(
      staticInputs.filter((input) => input.startsWith("packages/inspector/")),
      []
    )
    const allInputs = Object.values(meta.outputs).flatMap((output) => Object.keys(output.inputs))
    assert.isTrue(allInputs.includes("packages/inspector/src/durable/DurableStore.ts"))
  })
})
