import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { createRequire } from "node:module"
import { McpStdio, PluginToolbox } from "../src/index.js"
import { eventually, isAlive, use } from "./helpers.js"

// The real public server, installed from npm, run by this Node.
const require = createRequire(import.meta.url)
const serverPath = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")
const config: McpStdio.Config = { name: "everything", command: process.execPath, args: [serverPath, "stdio"] }

const toolbox = Effect.gen(function* () {
  const provider = yield* McpStdio.make(config)
  const box = yield* PluginToolbox.make({ providers: [Effect.succeed(provider)] })
  return { provider, box }
})

describe("@modelcontextprotocol/server-everything over stdio", () => {
  it.live("lists its tools and calls echo and get-sum", () =>
    Effect.gen(function* () {
      const { box, provider } = yield* toolbox
      const names = (yield* box.definitions).map((tool) => tool.name)
      expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "trigger-long-running-operation"]))
      expect((yield* provider.stats).protocolVersion).toBe("2025-11-25")
      expect(yield* box.invoke(use("echo", { message: "hi there" }))).toMatchObject({
        content: "Echo: hi there",
        is_error: false
      })
      expect(yield* box.invoke(use("get-sum", { a: 2, b: 40 }))).toMatchObject({
        content: "The sum of 2 and 40 is 42.",
        is_error: false
      })
      // Its own validation error comes back as a result the model can correct.
      const bad = yield* box.invoke(use("get-sum", { a: "two" }))
      expect(bad.is_error).toBe(true)
      expect(yield* box.breakers.get("everything")!.counts).toEqual({ consecutive: 0, total: 0 })
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("SIGKILL during a long-running operation is a process_crashed result, and the next call respawns", () =>
    Effect.gen(function* () {
      const { box, provider } = yield* toolbox
      yield* box.definitions
      const pid = (yield* provider.stats).pid!
      const call = yield* Effect.forkChild(
        box.invoke(use("trigger-long-running-operation", { duration: 30, steps: 30 }))
      )
      // The server reads stdin in order and runs the operation asynchronously: once an echo sent after
      // the call has answered, the operation is under way. No sleep, whatever the machine's speed.
      expect((yield* box.invoke(use("echo", { message: "after" }))).content).toBe("Echo: after")
      process.kill(pid, "SIGKILL")
      const result = yield* Fiber.join(call)
      expect(result.is_error).toBe(true)
      expect(result.content).toContain('Plugin "everything" crashed while handling the call')
      expect(result.content).toContain("killed by signal SIGKILL")
      yield* eventually(() => !isAlive(pid), "the server to be gone")
      expect((yield* box.invoke(use("echo", { message: "again" }))).content).toBe("Echo: again")
      expect(yield* provider.stats).toMatchObject({ spawns: 2, crashes: 1 })
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
