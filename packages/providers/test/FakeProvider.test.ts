import { describe, expect, it } from "@effect/vitest"
import { ModelProvider } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { ChaosPlans, FakeProvider, FaultPlan } from "../src/testing/index.js"
import { failure, providerAt, request, setup, tool } from "./support.js"

const root = NodePath.join(import.meta.dirname, "..", "..", "..")

describe("FaultPlan", () => {
  it.effect("loads from JSON", () =>
    Effect.gen(function* () {
      const text = NodeFs.readFileSync(
        NodePath.join(import.meta.dirname, "..", "fixtures", "plans", "retry-then-refusal.json"),
        "utf8"
      )
      const plan = yield* FaultPlan.fromJson(text)
      expect(plan.steps.map((step) => step.kind)).toEqual(["error", "stream_error", "reply"])
    })
  )

  it.effect("reports every invalid field of a bad plan", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        FaultPlan.fromJson(
          JSON.stringify({
            steps: [{ kind: "error", status: "429" }, { kind: "raw", status: 1000, body: "" }, { kind: "explode" }]
          })
        )
      )
      expect(error.message).toContain("status")
      expect(error.message).toContain("error_type")
      expect(error.message).toContain("explode")
      expect(error.message).toContain("1000")
    })
  )

  it("steps run in order, then happy, or the last one repeats", () => {
    const plan = FaultPlan.make([{ kind: "hang" }, { kind: "reset" }])
    expect(FaultPlan.stepAt(plan, 0).kind).toBe("hang")
    expect(FaultPlan.stepAt(plan, 1).kind).toBe("reset")
    expect(FaultPlan.stepAt(plan, 2).kind).toBe("happy")
    expect(FaultPlan.stepAt({ ...plan, after: "repeat_last" }, 7).kind).toBe("reset")
  })

  it.effect("every bundled chaos plan is a valid plan", () =>
    Effect.gen(function* () {
      expect(ChaosPlans.names).toEqual(
        expect.arrayContaining(["rate-limits", "overload-storm", "context-overflow", "refusal"])
      )
      for (const name of ChaosPlans.names) {
        const plan = Option.getOrThrow(ChaosPlans.byName(name))
        expect(yield* FaultPlan.validate(plan)).toEqual(plan)
      }
      expect(ChaosPlans.byName("toString")).toEqual(Option.none())
    })
  )
})

describe("FakeProvider", () => {
  it("sampleInput fills required properties by type", () => {
    expect(
      FakeProvider.sampleInput({
        type: "object",
        properties: {
          s: { type: "string" },
          n: { type: "number" },
          b: { type: "boolean" },
          e: { enum: ["a", "b"] },
          o: { type: "object", properties: { x: { type: "integer" } }, required: ["x"] },
          skipped: { type: "string" }
        },
        required: ["s", "n", "b", "e", "o"]
      })
    ).toEqual({ s: "example", n: 1, b: true, e: "a", o: { x: 1 } })
  })

  it("sampleInput never makes up an optional property (a schema without `required` gets {})", () => {
    // The workspace plugin's list_files: an optional path, which a made-up "example" turns into ENOENT.
    expect(
      FakeProvider.sampleInput({
        type: "object",
        properties: { path: { type: "string", description: "A folder relative to the workspace root" } },
        additionalProperties: false
      })
    ).toEqual({})
    expect(
      FakeProvider.sampleInput({
        type: "object",
        properties: { path: { type: "string" }, max_bytes: { type: "integer", exclusiveMinimum: 0 } },
        required: ["path"]
      })
    ).toEqual({ path: "example" })
  })

  it("sampleInput writes values the schema accepts: defaults, bounds, formats, nullable types", () => {
    expect(
      FakeProvider.sampleInput({
        type: "object",
        properties: {
          positive: { type: "integer", exclusiveMinimum: 0 },
          floor: { type: "integer", minimum: 5, maximum: 9 },
          ceiling: { type: "number", maximum: 0.25 },
          long: { type: "string", minLength: 12 },
          short: { type: "string", maxLength: 3 },
          at: { type: "string", format: "date-time" },
          mode: { type: "string", default: "fast" },
          fixed: { const: 42 },
          maybe: { type: ["null", "boolean"] },
          either: { anyOf: [{ type: "integer", minimum: 3 }, { type: "string" }] },
          tags: { type: "array", items: { type: "string" }, minItems: 2 }
        },
        required: ["positive", "floor", "ceiling", "long", "short", "at", "mode", "fixed", "maybe", "either", "tags"]
      })
    ).toEqual({
      positive: 1,
      floor: 5,
      ceiling: 0.25,
      long: "examplexxxxx",
      short: "exa",
      at: "2026-01-01T00:00:00Z",
      mode: "fast",
      fixed: 42,
      maybe: true,
      either: 3,
      tags: ["example", "example"]
    })
  })

  it.effect("records every request: index, time on the Clock, api, model, stream, body", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(1_000_000)
      const { server, provider } = yield* setup("anthropic", FaultPlan.happy)
      yield* ModelProvider.generate(provider, request({ model: "first" }))
      yield* TestClock.adjust("5 seconds")
      const openai = yield* providerAt("openai", server.openAiBaseUrl, { stream: false })
      yield* ModelProvider.generate(openai, request({ model: "second" }))
      const recorded = yield* server.awaitRequests(2)
      expect(recorded.map((r) => [r.index, r.time, r.api, r.model, r.stream])).toEqual([
        [0, 1_000_000, "anthropic", "first", true],
        [1, 1_005_000, "openai", "second", false]
      ])
      expect(recorded[0]?.path).toBe("/v1/messages")
      expect(recorded[1]?.path).toBe("/v1/chat/completions")
      expect(recorded[0]?.body).toMatchObject({ model: "first", messages: [{ role: "user" }] })
    })
  )

  it.effect("happy mode without tools answers with text and end_turn", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup("openai", FaultPlan.happy)
      const response = yield* ModelProvider.generate(provider, request())
      expect(response.stop_reason).toBe("end_turn")
      expect(response.content[0]).toEqual({ type: "text", text: "Hello from the fake provider. You said: hello" })
    })
  )

  it.effect("happy mode offers tool_use again on a fresh user turn", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup("anthropic", FaultPlan.happy, { stream: false })
      const response = yield* ModelProvider.generate(provider, request({ tools: [tool] }))
      expect(response.stop_reason).toBe("tool_use")
    })
  )

  it.effect("a plan that delays on the server's Clock", () =>
    Effect.gen(function* () {
      const { server } = yield* setup("anthropic", FaultPlan.make([{ kind: "reply", text: "late", delay_ms: 60_000 }]))
      const response = yield* Effect.forkChild(
        Effect.promise(() =>
          fetch(`${server.url}/v1/messages`, {
            method: "POST",
            body: JSON.stringify({ model: "m", messages: [] })
          }).then((r) => r.json())
        )
      )
      yield* server.awaitRequests(1)
      for (let i = 0; i < 10; i++) yield* Effect.promise(() => new Promise((r) => setImmediate(r)))
      expect(response.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("60 seconds")
      expect(Exit.isSuccess(yield* Fiber.await(response))).toBe(true)
    })
  )

  it.effect(
    "a capacity answers 429 above N requests in the last second, with a retry-after, and takes no plan step",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(10_000)
        const plan: FaultPlan.FaultPlan = {
          steps: [
            { kind: "reply", text: "first" },
            { kind: "reply", text: "second" },
            { kind: "reply", text: "third" }
          ],
          capacity: { requests_per_second: 2 }
        }
        const server = yield* FakeProvider.make(yield* FaultPlan.validate(plan))
        const send = Effect.promise(() =>
          fetch(`${server.url}/v1/messages`, {
            method: "POST",
            body: JSON.stringify({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
          }).then(async (r) => ({
            status: r.status,
            retryAfterMs: r.headers.get("retry-after-ms"),
            body: await r.json()
          }))
        )
        const first = yield* send
        yield* TestClock.adjust("400 millis")
        const second = yield* send
        const refused = yield* send
        expect([first.status, second.status, refused.status]).toEqual([200, 200, 429])
        expect(refused.body).toMatchObject({ error: { type: "rate_limit_error" } })
        // The first admitted request leaves the window 600 ms later.
        expect(refused.retryAfterMs).toBe("600")
        yield* TestClock.adjust("600 millis")
        const third = yield* send
        expect(third.status).toBe(200)
        expect(third.body).toMatchObject({ content: [{ type: "text", text: "third" }] })
        const recorded = yield* server.requests
        expect(recorded.map((r) => [r.index, r.time, r.throttled])).toEqual([
          [0, 10_000, false],
          [1, 10_400, false],
          [2, 10_400, true],
          [3, 11_000, false]
        ])
      })
  )

  it.effect("a capacity schedule admits the new capacity from its after_ms, counted from the server's start", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(10_000)
      const plan = yield* FaultPlan.fromJson(
        JSON.stringify({
          steps: [],
          capacity: { requests_per_second: 2, changes: [{ after_ms: 5_000, requests_per_second: 1 }] }
        })
      )
      const server = yield* FakeProvider.make(plan)
      const send = Effect.promise(() =>
        fetch(`${server.url}/v1/messages`, {
          method: "POST",
          body: JSON.stringify({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
        }).then((r) => r.status)
      )
      // Two a second before the change.
      const before = [yield* send, yield* send, yield* send]
      yield* TestClock.adjust("5 seconds")
      // One a second from 5 s on.
      const after = [yield* send, yield* send]
      yield* TestClock.adjust("1 second")
      const later = yield* send
      expect({ before, after, later }).toEqual({ before: [200, 200, 429], after: [200, 429], later: 200 })
    })
  )

  it.effect("a capacity change must admit at least one request a second after a time that is not negative", () =>
    Effect.gen(function* () {
      const bad = yield* Effect.flip(
        FaultPlan.decode({
          steps: [],
          capacity: { requests_per_second: 2, changes: [{ after_ms: -1, requests_per_second: 0 }] }
        })
      )
      expect(bad.message).toContain("after_ms")
      expect(bad.message).toContain("requests_per_second")
      expect(
        FaultPlan.requestsPerSecondAt(
          {
            requests_per_second: 4,
            changes: [
              { after_ms: 10, requests_per_second: 2 },
              { after_ms: 20, requests_per_second: 1 }
            ]
          },
          15
        )
      ).toBe(2)
    })
  )

  it.effect("answers 404 on unknown paths and 400 on a body that is not JSON", () =>
    Effect.gen(function* () {
      const server = yield* FakeProvider.make(FaultPlan.happy)
      const notFound = yield* Effect.promise(() => fetch(`${server.url}/v2/whatever`, { method: "POST", body: "{}" }))
      expect(notFound.status).toBe(404)
      const bad = yield* Effect.promise(() => fetch(`${server.url}/v1/messages`, { method: "POST", body: "{nope" }))
      expect(bad.status).toBe(400)
      expect(yield* Effect.promise(() => bad.json())).toMatchObject({
        type: "error",
        error: { type: "invalid_request_error" }
      })
    })
  )

  it.effect("stops with its scope: hung requests are cut and the port is closed", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const server = yield* FakeProvider.make(FaultPlan.make([{ kind: "hang" }])).pipe(Scope.provide(scope))
      const provider = yield* providerAt("anthropic", server.url)
      const hung = yield* Effect.forkChild(failure(provider))
      yield* server.awaitRequests(1)
      yield* Scope.close(scope, Exit.void)
      // Only the server closing can end this call: no clock moves here.
      const cut = yield* Fiber.join(hung)
      expect(cut._tag).toBe("ConnectionError")
      const afterClose = yield* failure(provider)
      expect(afterClose._tag).toBe("ConnectionError")
      expect(afterClose.details?.["code"]).toBe("ECONNREFUSED")
    })
  )
})

describe("fake-provider CLI", () => {
  it.live("serves a bundled plan by name, prints its URL, and stops on SIGTERM", () =>
    Effect.gen(function* () {
      const child = ChildProcess.spawn(
        NodePath.join(root, "node_modules", ".bin", "tsx"),
        [
          NodePath.join(root, "packages", "providers", "bin", "fake-provider.ts"),
          "--plan",
          "rate-limits",
          "--port",
          "0"
        ],
        { stdio: ["ignore", "pipe", "pipe"] }
      )
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      const url = yield* Effect.promise(
        () =>
          new Promise<string>((resolve, reject) => {
            let out = ""
            child.stdout.on("data", (data: Buffer) => {
              out += data.toString()
              const line = out.split("\n")[0]
              if (out.includes("\n") && line !== undefined) resolve(line.trim())
            })
            child.once("exit", () => reject(new Error(`exited before printing a URL: ${out}`)))
          })
      )
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const error = yield* Effect.scoped(Effect.flatMap(providerAt("anthropic", url), (p) => failure(p)))
      expect(error._tag).toBe("RateLimited")
      expect(error.retryAfter).toBeDefined()
      child.kill("SIGTERM")
      const code = yield* Effect.promise(() => exited)
      expect(code === 0 || code === null || code === 130 || code === 143).toBe(true)
    })
  )

  it("exits 2 with usage on an unknown plan", () => {
    const result = ChildProcess.spawnSync(
      NodePath.join(root, "node_modules", ".bin", "tsx"),
      [NodePath.join(root, "packages", "providers", "bin", "fake-provider.ts"), "--plan", "no-such-plan"],
      { encoding: "utf8" }
    )
    expect(result.status).toBe(2)
    expect(result.stderr).toContain("bundled plans: rate-limits")
  })
})

describe("happy mode calls a real MCP plugin's tools with inputs they accept", () => {
  it("the agent CLI with the workspace plugin: list_files gets no made-up path, so its result is not an error", async () => {
    const env: Record<string, string | undefined> = { ...process.env }
    for (const key of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"]) delete env[key]
    const result = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = ChildProcess.spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          NodePath.join(root, "examples", "cli", "main.ts"),
          "--mcp",
          "node examples/plugins/workspace.mjs",
          "--prompt",
          "What is in this folder?",
          "--json"
        ],
        { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] }
      )
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (data: Buffer) => (stdout += data.toString()))
      child.stderr.on("data", (data: Buffer) => (stderr += data.toString()))
      child.once("error", reject)
      child.once("close", (status) => resolve({ status, stdout, stderr }))
    })
    const events = result.stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { readonly type: string; readonly [key: string]: unknown })
    const calls = events.filter((event) => event.type === "tool_result")
    expect(
      calls.map((event) => [event["name"], event["is_error"]]),
      result.stderr
    ).toEqual([["list_files", false]])
    expect(calls[0]?.["preview"]).toContain("packages/")
    expect(events.at(-1)).toMatchObject({ type: "run_ended", status: "completed" })
    expect(result.status).toBe(0)
  })
})
