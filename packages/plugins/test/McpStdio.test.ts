import type { Toolbox } from "@agent-kernel/kernel"
import { NodeChildProcessSpawner, NodeFileSystem, NodePath } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { McpStdio, PluginToolbox } from "../src/index.js"
import {
  eventually,
  fixture,
  inflight,
  isAlive,
  spawners,
  liveGroup,
  parse,
  recordEvents,
  use,
  wrapped
} from "./helpers.js"

const toolbox = (config: McpStdio.Config, settings: PluginToolbox.Options<never>["settings"] = {}) =>
  Effect.gen(function* () {
    const provider = yield* McpStdio.make(config)
    const box = yield* PluginToolbox.make({ providers: [Effect.succeed(provider)], settings })
    return { provider, box }
  })

const pidOf = (box: Toolbox.Service) =>
  Effect.map(box.invoke(use("pid")), (result) => (parse(result.content) as { pid: number }).pid)

const expectGroupGone = (pgid: number) => eventually(() => liveGroup(pgid).length === 0, `group ${pgid} to be empty`)

describe.each(spawners)("McpStdio against the fixture server, $name", ({ context }) => {
  it.live("spawns lazily, lists every page of tools and speaks 2025-11-25", () =>
    Effect.gen(function* () {
      const { box, provider } = yield* toolbox(fixture("fx"))
      expect((yield* provider.stats).spawns).toBe(0)
      expect(yield* provider.ping).toBe(false)
      const tools = yield* box.definitions
      // 22 tools come in pages of 4.
      expect(tools).toHaveLength(22)
      expect(tools.map((t) => t.name)).toContain("extra-4")
      expect(tools.find((t) => t.name === "echo")?.input_schema).toMatchObject({ required: ["text"] })
      const stats = yield* provider.stats
      expect(stats.spawns).toBe(1)
      expect(stats.protocolVersion).toBe("2025-11-25")
      const result = yield* box.invoke(use("echo", { text: "hello" }))
      expect(result).toMatchObject({ content: "hello", is_error: false })
      expect(yield* provider.ping).toBe(true)
    }).pipe(Effect.provide(context))
  )

  it.live("asks for the tools again, every page, after notifications/tools/list_changed", () =>
    Effect.gen(function* () {
      const { box, provider } = yield* toolbox(fixture("fx"))
      expect((yield* box.definitions).map((t) => t.name)).not.toContain("brand-new")
      expect(yield* provider.changed).toBe(false)
      expect((yield* box.invoke(use("add-tool", { name: "brand-new" }))).content).toBe("added")
      // The notification and the answer race through the SDK; the flag follows within a few event-loop turns.
      yield* eventually(() => Effect.runSync(provider.changed), "the list_changed notification")
      const names = (yield* box.definitions).map((t) => t.name)
      expect(names).toContain("brand-new")
      expect(names).toHaveLength(23)
      expect(yield* provider.changed).toBe(false)
      expect((yield* box.invoke(use("brand-new"))).content).toContain("not found")
      expect((yield* provider.stats).spawns).toBe(1)
    }).pipe(Effect.provide(context))
  )

  it.live("negotiates down to the server's older protocol version", () =>
    Effect.gen(function* () {
      const { box, provider } = yield* toolbox(fixture("old", "--protocol=2025-06-18"))
      expect((yield* box.invoke(use("echo", { text: "x" }))).is_error).toBe(false)
      expect((yield* provider.stats).protocolVersion).toBe("2025-06-18")
    }).pipe(Effect.provide(context))
  )

  it.live("a crash mid-call is an error result naming the provider, exit code and stderr; the next call respawns", () =>
    Effect.gen(function* () {
      const { box, provider } = yield* toolbox(fixture("fx"))
      const before = yield* pidOf(box)
      const crashed = yield* box.invoke(use("crash", { code: 3, stderr: "fatal: disk quota exceeded" }))
      expect(crashed.is_error).toBe(true)
      expect(crashed.content).toContain('Plugin "fx" crashed while handling the call')
      expect(crashed.content).toContain("process_crashed: exit code 3")
      expect(crashed.content).toContain("fatal: disk quota exceeded")
      expect(crashed.content).toContain("will be restarted")
      const after = yield* pidOf(box)
      expect(after).not.toBe(before)
      expect(isAlive(before)).toBe(false)
      expect(yield* provider.stats).toMatchObject({ spawns: 2, crashes: 1 })
    }).pipe(Effect.provide(context))
  )

  it.live("a kill by signal fails every in-flight call at once, with the signal", () =>
    Effect.gen(function* () {
      const { box } = yield* toolbox(fixture("fx"))
      const pid = yield* pidOf(box)
      const calls = yield* Effect.forkChild(
        Effect.all([box.invoke(use("hang")), box.invoke(use("hang")), box.invoke(use("slow", { ms: 60_000 }))], {
          concurrency: "unbounded"
        })
      )
      yield* inflight(box, 3)
      process.kill(pid, "SIGKILL")
      const results = yield* Fiber.join(calls)
      for (const result of results) {
        expect(result.is_error).toBe(true)
        expect(result.content).toContain("killed by signal SIGKILL")
        expect(result.content).toContain(`pid ${pid}`)
      }
    }).pipe(Effect.provide(context))
  )

  it.live("an exit at startup withdraws the tools and reports its stderr", () =>
    Effect.gen(function* () {
      const recorded = yield* recordEvents
      const { box, provider } = yield* toolbox(fixture("broken", "--exit-at-startup"))
      expect(yield* Effect.provide(box.definitions, recorded.layer)).toEqual([])
      const warning = (yield* recorded.events).find((event) => event.type === "warning")
      expect(warning).toBeDefined()
      if (warning?.type === "warning") {
        expect(warning.message).toContain("exited during startup")
        expect(warning.message).toContain("process_crashed: exit code 2")
        expect(warning.message).toContain("the configuration file is missing")
      }
      const result = yield* box.invoke(use("echo", { text: "x" }))
      expect(result.is_error).toBe(true)
      expect(result.content).toContain("the configuration file is missing")
      expect((yield* provider.stats).spawns).toBe(2)
    }).pipe(Effect.provide(context))
  )

  it.live("a spawn failure (ENOENT) is an error, not a fault", () =>
    Effect.gen(function* () {
      const { box } = yield* toolbox({ name: "ghost", command: "/nonexistent/mcp-server" })
      expect(yield* box.definitions).toEqual([])
      const result = yield* box.invoke(use("anything"))
      expect(result.is_error).toBe(true)
      expect(result.content).toContain('Plugin "ghost" could not be started (/nonexistent/mcp-server): NotFound')
    }).pipe(Effect.provide(context))
  )

  it.live("junk on stdout is counted and reported, never fatal", () =>
    Effect.gen(function* () {
      const recorded = yield* recordEvents
      const { box, provider } = yield* toolbox(fixture("chatty", "--junk-at-startup"))
      const result = yield* Effect.provide(box.invoke(use("junk", { lines: 5 })), recorded.layer)
      expect(result).toMatchObject({ content: "printed junk", is_error: false })
      expect((yield* box.invoke(use("echo", { text: "still alive" }))).content).toBe("still alive")
      expect((yield* provider.stats).junkLines).toBe(6)
      const warnings = (yield* recorded.events).filter((event) => event.type === "warning")
      expect(warnings.length).toBeGreaterThan(0)
      expect(JSON.stringify(warnings)).toContain("junk line")
    }).pipe(Effect.provide(context))
  )

  it.live("a 20 MB result is truncated with a visible marker", () =>
    Effect.gen(function* () {
      const { box } = yield* toolbox(fixture("fx"), { max_tool_result_bytes: 100_000 })
      const result = yield* box.invoke(use("big", { bytes: 20_000_000 }))
      expect(result.is_error).toBe(false)
      expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(100_000)
      expect(result.content.startsWith("xxxxxxxx")).toBe(true)
      expect(result.content).toContain("[truncated: the result was 20000000 bytes")
    }).pipe(Effect.provide(context))
  )

  it.live("a line over maxMessageBytes is discarded and fails only its own call", () =>
    Effect.gen(function* () {
      const { box } = yield* toolbox({ ...fixture("fx"), maxMessageBytes: 1_000_000 })
      const result = yield* box.invoke(use("big", { bytes: 2_000_000 }))
      expect(result.is_error).toBe(true)
      expect(result.content).toContain("exceeded the limit of 1000000 bytes")
      expect((yield* box.invoke(use("echo", { text: "ok" }))).content).toBe("ok")
    }).pipe(Effect.provide(context))
  )

  it.live("isError results and JSON-RPC errors are error results; only the latter counts toward the breaker", () =>
    Effect.gen(function* () {
      const { box } = yield* toolbox(fixture("fx"))
      const failed = yield* box.invoke(use("fail"))
      expect(failed).toMatchObject({ content: "the tool failed on purpose", is_error: true })
      const breaker = box.breakers.get("fx")!
      expect(yield* breaker.counts).toEqual({ consecutive: 0, total: 0 })
      const rpc = yield* box.invoke(use("rpc-error"))
      expect(rpc.is_error).toBe(true)
      expect(rpc.content).toContain("JSON-RPC error -32603")
      expect(rpc.content).toContain("the database is on fire")
      expect(yield* breaker.counts).toEqual({ consecutive: 1, total: 1 })
      const unknown = yield* box.invoke(use("echo", "not an object"))
      expect(unknown.content).toContain("must be a JSON object")
      expect(yield* breaker.counts).toEqual({ consecutive: 1, total: 1 })
    }).pipe(Effect.provide(context))
  )

  it.live("under a launcher that outlives the server, the server's death is a crash and the group is killed", () =>
    Effect.gen(function* () {
      // Stock SDK client: no pipe closes here (bash and sleep hold them), so the call would hang until its timeout.
      const { box, provider } = yield* toolbox(wrapped("wrapped", "SERVER; sleep 30"))
      const server = yield* pidOf(box)
      const launcher = (yield* provider.stats).pid!
      expect(server).not.toBe(launcher)
      const result = yield* box.invoke(use("crash", { code: 7, stderr: "server: out of memory" }))
      expect(result.is_error).toBe(true)
      expect(result.content).toContain(`Process ${server} (node) of its process group exited`)
      expect(result.content).toContain("server: out of memory")
      yield* expectGroupGone(launcher)
      // And it comes back.
      expect((yield* box.invoke(use("echo", { text: "back" }))).content).toBe("back")
    }).pipe(Effect.provide(context))
  )

  it.live("a killed launcher whose grandchild holds the pipes is a crash at once, and the grandchild dies", () =>
    Effect.gen(function* () {
      // `exec` makes the server the group leader; the background sleep keeps stdout and stderr open.
      const { box, provider } = yield* toolbox(wrapped("held", "sleep 30 & exec SERVER"))
      yield* box.definitions
      const leader = (yield* provider.stats).pid!
      expect(liveGroup(leader).length).toBe(2)
      const call = yield* Effect.forkChild(box.invoke(use("hang")))
      yield* inflight(box, 1)
      process.kill(leader, "SIGKILL")
      const result = yield* Fiber.join(call)
      expect(result.content).toContain("killed by signal SIGKILL")
      yield* expectGroupGone(leader)
    }).pipe(Effect.provide(context))
  )

  it.live("closing the scope kills every process of every group, even one that ignores SIGTERM", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { box, provider } = yield* Effect.provideService(toolbox(fixture("fx")), Scope.Scope, scope)
      const leader = yield* pidOf(box)
      const plain = (parse((yield* box.invoke(use("spawn-grandchild"))).content) as { pid: number }).pid
      const stubborn = (
        parse((yield* box.invoke(use("spawn-grandchild", { ignoreTerm: true }))).content) as { pid: number }
      ).pid
      expect(liveGroup(leader)).toEqual(expect.arrayContaining([leader, plain, stubborn]))
      expect((yield* provider.stats).pid).toBe(leader)
      yield* Scope.close(scope, Exit.void)
      expect(liveGroup(leader)).toEqual([])
      expect([leader, plain, stubborn].filter(isAlive)).toEqual([])
    }).pipe(Effect.provide(context))
  )

  it.live("closing the scope shuts a well-behaved server down by closing its stdin, as the MCP spec asks", () =>
    Effect.gen(function* () {
      const marker = Path.join(Os.tmpdir(), `agent-kernel-marker-${process.pid}-${Date.now()}`)
      yield* Effect.scoped(
        Effect.gen(function* () {
          const { box } = yield* toolbox({ ...fixture("fx", `--marker=${marker}`), shutdownGraceMillis: 10_000 })
          expect((yield* box.invoke(use("echo", { text: "x" }))).content).toBe("x")
        })
      )
      expect(Fs.readFileSync(marker, "utf8")).toBe("stdin closed")
      Fs.rmSync(marker)
    }).pipe(Effect.provide(context))
  )

  it.live("interrupting a run in flight kills the plugin's processes", () =>
    Effect.gen(function* () {
      const pids: Array<number> = []
      const run = Effect.scoped(
        Effect.gen(function* () {
          const { box } = yield* toolbox(fixture("fx"))
          pids.push(yield* pidOf(box))
          pids.push((parse((yield* box.invoke(use("spawn-grandchild"))).content) as { pid: number }).pid)
          return yield* box.invoke(use("hang"))
        })
      )
      const fiber = yield* Effect.forkChild(run)
      yield* eventually(() => pids.length === 2, "the processes to start")
      yield* Fiber.interrupt(fiber)
      expect(pids.filter(isAlive)).toEqual([])
      expect(liveGroup(pids[0]!)).toEqual([])
    }).pipe(Effect.provide(context))
  )

  it.live("the server gets a minimal environment: no host API keys unless named", () =>
    Effect.gen(function* () {
      process.env["ANTHROPIC_API_KEY"] = "sk-ant-host-secret"
      process.env["OPENAI_API_KEY"] = "sk-host-secret"
      process.env["FIXTURE_TOKEN"] = "passed-by-name"
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          delete process.env["ANTHROPIC_API_KEY"]
          delete process.env["OPENAI_API_KEY"]
          delete process.env["FIXTURE_TOKEN"]
        })
      )
      const { box } = yield* toolbox({
        ...fixture("fx"),
        inheritEnv: ["FIXTURE_TOKEN"],
        env: { FIXTURE_MODE: "test" }
      })
      const env = parse((yield* box.invoke(use("env"))).content) as Record<string, string>
      expect(env["ANTHROPIC_API_KEY"]).toBeUndefined()
      expect(env["OPENAI_API_KEY"]).toBeUndefined()
      expect(JSON.stringify(env)).not.toContain("secret")
      expect(env["FIXTURE_TOKEN"]).toBe("passed-by-name")
      expect(env["FIXTURE_MODE"]).toBe("test")
      expect(env["PATH"]).toBe(process.env["PATH"])
      const allowed = new Set([...McpStdio.baseEnvironment, "FIXTURE_TOKEN", "FIXTURE_MODE"])
      expect(Object.keys(env).filter((key) => !allowed.has(key) && !key.startsWith("LC_"))).toEqual([])
    }).pipe(Effect.provide(context))
  )
})

describe("McpStdio with the portable spawner (the default)", () => {
  it.live("takes the ChildProcessSpawner and the FileSystem from context: /proc is read through the one provided", () =>
    Effect.gen(function* () {
      const paths: Array<string> = []
      const Spy = Layer.effect(
        FileSystem.FileSystem,
        Effect.map(
          Effect.service(FileSystem.FileSystem),
          (fs): FileSystem.FileSystem => ({
            ...fs,
            readFileString: (path, encoding) => {
              paths.push(path)
              return fs.readFileString(path, encoding)
            },
            open: (path, options) => {
              paths.push(path)
              return fs.open(path, options)
            }
          })
        )
      ).pipe(Layer.provide(NodeFileSystem.layer))
      const services = Layer.merge(
        NodeChildProcessSpawner.layer.pipe(Layer.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer))),
        Spy
      )
      const { box, provider } = yield* Effect.provide(toolbox(fixture("fx")), services)
      const pid = yield* pidOf(box)
      expect((yield* provider.stats).pid).toBe(pid)
      expect(paths).toContain(`/proc/${pid}/stat`)
      expect(paths.some((path) => path.startsWith(`/proc/${pid}/task/`))).toBe(true)
    })
  )
})
