/**
 * End-to-end: `on_exhausted: pause` with `agent --session`. A run whose call runs out of retries
 * against the fake provider (a real HTTP server that outlives the processes) pauses: its process
 * exits 75, `agent sessions` lists it paused with why and since when, and a new prompt does not
 * run. A later process's `--resume` continues it from its pause: no completed model call is sent
 * again (the server counts them), the tool call it completed (an MCP fixture that counts its
 * invocations in a file) is not run again, and the budget is not reset unless `--reset-budget`
 * says so.
 */
import { FakeProvider, type FaultPlan } from "@agent-kernel/providers/testing"
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cli, ensureBundle, invocations, ofType } from "./testBundle.js"

const root = path.resolve(import.meta.dirname, "../..")
beforeAll(ensureBundle)

const rateLimited: FaultPlan.Step = {
  kind: "error",
  status: 429,
  error_type: "rate_limit_error",
  message: "Number of requests has exceeded your per-minute rate limit",
  headers: { "retry-after": "0" }
}

describe("agent --session with on_exhausted=pause", () => {
  it("a run out of retries pauses (exit 75, listed paused); --resume goes on from its pause, the budget reset only with --reset-budget", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-pause-"))
    const store = path.join(dir, "agent.db")
    const counter = path.join(dir, "counts.txt")
    const scope = Effect.runSync(Scope.make())
    const provider = await Effect.runPromise(
      Scope.provide(
        FakeProvider.make({
          steps: [
            {
              kind: "reply",
              tool_calls: [{ name: "count", input: { key: "once" }, id: "toolu_once" }],
              stop: "tool_use"
            },
            rateLimited,
            rateLimited,
            rateLimited,
            rateLimited,
            { kind: "reply", text: "done" }
          ]
        }),
        scope
      )
    )
    const sent = async () => (await Effect.runPromise(provider.requests)).length
    const env = { ANTHROPIC_BASE_URL: provider.url, ANTHROPIC_API_KEY: "fake-key" }
    const args = [
      "--provider",
      "anthropic",
      "--json",
      "--session",
      store,
      "--set",
      "on_exhausted=pause",
      "--set",
      "max_retries=1",
      "--set",
      "base_delay_ms=1",
      "--mcp",
      `node ${path.join(root, "examples/plugins/counter.mjs")} ${counter} 0`
    ]
    try {
      // The tool call, then a 429 and its one retry's 429: the call is out of retries, and the run pauses.
      const first = await cli([...args, "--prompt", "count once"], { env })
      assert.strictEqual(first.code, 75, first.stderr)
      assert.include(first.stderr, "the run paused")
      const [paused] = ofType(first, "run_paused")
      assert.deepInclude(paused, { reason: "retries_exhausted", turn: 2, attempt: 2, resume_at: null })
      assert.lengthOf(ofType(first, "run_ended"), 0)
      assert.strictEqual(await sent(), 3)

      const listed = await cli(["sessions", store])
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.match(listed.stdout, /^session-1\tpaused \(retries_exhausted since \d{4}-\d\d-\d\dT[\d:.]+Z\)\t1\t1\t/m)
      const asJson = JSON.parse((await cli(["sessions", store, "--json"])).stdout) as Record<string, unknown>
      // `resumable` as DurableSessions.Summary has it: a run a stopped process left, never a paused one.
      assert.deepInclude(asJson, { id: "session-1", status: "paused", resumable: false, unfinished: true, live: false })
      assert.deepInclude(asJson["paused"] as object, { reason: "retries_exhausted", resume_at: null })

      // A new input waits behind the paused run: nothing is sent.
      const waiting = await cli([...args, "--prompt", "something else"], { env })
      assert.strictEqual(waiting.code, 75, waiting.stderr)
      assert.match(
        waiting.stderr,
        /run 1 of session-1 is paused \(retries_exhausted since .*\): `--resume` continues it/
      )
      assert.strictEqual(await sent(), 3)

      // Resumed without a reset: one attempt (its 429), no retry (the call's retry stays used), paused again.
      const again = await cli([...args, "--resume"], { env })
      assert.strictEqual(again.code, 75, again.stderr)
      assert.match(again.stderr, /agent: resuming run 1 of session-1, paused \(retries_exhausted since /)
      assert.strictEqual(await sent(), 4)
      assert.lengthOf(ofType(again, "retry_scheduled"), 0)
      assert.deepInclude(ofType(again, "run_resumed")[0], { reset_budget: false })
      // The tool call's model call and its result were not sent again: the resumed request carries them.
      const requests = await Effect.runPromise(provider.requests)
      assert.deepStrictEqual(requests[3]!.body, requests[2]!.body)

      // With --reset-budget: the 429 is retried, and the run completes.
      const reset = await cli([...args, "--resume", "--reset-budget"], { env })
      assert.strictEqual(reset.code, 0, reset.stderr)
      assert.strictEqual(await sent(), 6)
      // Its own resume only: the earlier one, replayed from the journal, is not shown again.
      assert.lengthOf(ofType(reset, "run_resumed"), 1)
      assert.deepInclude(ofType(reset, "run_resumed")[0], { reset_budget: true })
      assert.lengthOf(ofType(reset, "retry_scheduled"), 1)
      const [ended] = ofType(reset, "run_ended")
      assert.deepInclude(ended, { status: "completed", final_text: "done" })
      assert.deepInclude(ended, { retries: { max_per_call: 1, session_total: 1 } })
      assert.strictEqual(invocations(counter).get("once"), 1)

      const after = await cli(["sessions", store])
      assert.match(after.stdout, /^session-1\tcompleted\t1\t/m)

      // Nothing left to resume: a reset is refused as bad usage, and nothing is sent.
      const nothing = await cli([...args, "--resume", "--reset-budget"], { env })
      assert.strictEqual(nothing.code, 2, nothing.stderr)
      assert.include(nothing.stderr, "--reset-budget resets the retry budget of a paused run only")
      assert.include(nothing.stderr, "has no paused run")
      assert.strictEqual(await sent(), 6)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("a quota error pauses with a resume_at no sooner than its retry-after; pause_on without it ends the run as before", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-pause-quota-"))
    const scope = Effect.runSync(Scope.make())
    const billing: FaultPlan.Step = {
      kind: "error",
      status: 402,
      error_type: "billing_error",
      message: "Your credit balance is too low",
      headers: { "retry-after": "120" }
    }
    const provider = await Effect.runPromise(
      Scope.provide(FakeProvider.make({ steps: [billing], after: "repeat_last" }), scope)
    )
    const env = { ANTHROPIC_BASE_URL: provider.url, ANTHROPIC_API_KEY: "fake-key" }
    const args = ["--provider", "anthropic", "--json", "--prompt", "hi", "--set", "on_exhausted=pause"]
    try {
      const paused = await cli([...args, "--session", path.join(dir, "a.db"), "--set", "pause_resume_after_ms=1000"], {
        env
      })
      assert.strictEqual(paused.code, 75, paused.stderr)
      const [event] = ofType(paused, "run_paused")
      assert.deepInclude(event, { reason: "quota_exceeded" })
      const at = event?.["at"]
      assert.strictEqual(event?.["resume_at"], typeof at === "number" ? at + 120_000 : "no time")
      const listed = await cli(["sessions", path.join(dir, "a.db")])
      assert.match(listed.stdout, /paused \(quota_exceeded since [^,]+, resumes at \d{4}-/)

      const unlisted = await cli(
        [...args, "--session", path.join(dir, "b.db"), "--set", 'pause_on=["retries_exhausted"]'],
        { env }
      )
      assert.strictEqual(unlisted.code, 5, unlisted.stderr)
      assert.lengthOf(ofType(unlisted, "run_paused"), 0)
      assert.deepInclude(ofType(unlisted, "run_ended")[0], { status: "quota_exceeded" })
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("a run resumed past max_wall_clock_ms ends at once (exit 7), its run_resumed shown before its run_ended", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-pause-bound-"))
    const store = path.join(dir, "agent.db")
    const scope = Effect.runSync(Scope.make())
    const provider = await Effect.runPromise(
      Scope.provide(FakeProvider.make({ steps: [rateLimited, rateLimited, { kind: "reply", text: "never" }] }), scope)
    )
    const env = { ANTHROPIC_BASE_URL: provider.url, ANTHROPIC_API_KEY: "fake-key" }
    const args = [
      ...["--provider", "anthropic", "--json", "--session", store],
      ...["--set", "on_exhausted=pause", "--set", "max_retries=1", "--set", "base_delay_ms=1"],
      ...["--set", "max_wall_clock_ms=1500"]
    ]
    try {
      const first = await cli([...args, "--prompt", "hi"], { env })
      assert.strictEqual(first.code, 75, first.stderr)
      // The bound passes while the run is paused.
      await Effect.runPromise(Effect.sleep("1600 millis"))
      const resumed = await cli([...args, "--resume"], { env })
      assert.strictEqual(resumed.code, 7, resumed.stderr)
      assert.deepStrictEqual(
        resumed.events.map((event) => event["type"]),
        ["run_resumed", "run_ended"]
      )
      assert.deepInclude(ofType(resumed, "run_ended")[0], { status: "wall_clock_exceeded" })
      assert.strictEqual((await Effect.runPromise(provider.requests)).length, 2)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("--reset-budget without --resume is bad usage", async () => {
    const result = await cli(["--provider", "fake", "--prompt", "hi", "--reset-budget"])
    assert.strictEqual(result.code, 2, result.stderr)
    assert.include(result.stderr, "--reset-budget needs --resume")
  })
})
