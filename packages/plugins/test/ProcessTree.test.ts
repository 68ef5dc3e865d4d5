/**
 * Which of a plugin's processes is its server, and what it started: a short-lived helper of the
 * server is no crash, and nothing the plugin started outlives its scope, not even a helper that
 * double-forked into a session of its own. Processes are real; waits are for conditions.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { McpStdio, PluginToolbox } from "../src/index.js"
import { eventually, inflight, isAlive, liveGroup, parse, processesWith, spawners, use, wrapped } from "./helpers.js"

const toolbox = (config: McpStdio.Config) =>
  Effect.gen(function* () {
    const provider = yield* McpStdio.make(config)
    const box = yield* PluginToolbox.make({ providers: [Effect.succeed(provider)], settings: {} })
    return { provider, box }
  })

const pidOf = (box: PluginToolbox.PluginToolbox) =>
  Effect.map(box.invoke(use("pid")), (result) => (parse(result.content) as { pid: number }).pid)

let runs = 0
const unique = (what: string) => `agent-kernel-${what}-${process.pid}-${++runs}`

/** Whatever a test leaves running is killed at its end, pass or fail. */
const killAtEnd = (marker: string) =>
  Effect.addFinalizer(() =>
    Effect.sync(() => {
      for (const pid of processesWith(marker)) {
        try {
          process.kill(pid, "SIGKILL")
        } catch {}
      }
    })
  )

const wallPause = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

describe.each(spawners)("a plugin's processes, $name", ({ context }) => {
  it.live("a helper of the server that exits mid-call is no crash: the call goes on and is answered", () =>
    Effect.gen(function* () {
      const release = Path.join(Os.tmpdir(), unique("release"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(release, { force: true })))
      // sh -c 'helper & exec server': the helper is a member of the server's process group, and holds its stdout.
      const { box, provider } = yield* toolbox(
        wrapped("helped", `while [ ! -e '${release}' ]; do sleep 0.05; done & exec SERVER`)
      )
      const server = yield* pidOf(box)
      const [helper] = liveGroup(server).filter((pid) => pid !== server)
      expect(helper).toBeDefined()
      const call = yield* Effect.forkChild(box.invoke(use("hang")))
      yield* inflight(box, 1)
      Fs.writeFileSync(release, "go")
      yield* eventually(() => !isAlive(helper!), "the helper to exit", 60_000)
      // Give a watcher of the group ample time to (wrongly) take the helper's exit for a crash.
      yield* wallPause(1_000)
      expect((yield* box.invoke(use("echo", { text: "still here" }))).content).toBe("still here")
      expect(call.pollUnsafe()).toBeUndefined()
      expect(yield* provider.stats).toMatchObject({ pid: server, spawns: 1, crashes: 0 })
      yield* Fiber.interrupt(call)
    }).pipe(Effect.scoped, Effect.provide(context))
  )

  it.live("a helper that double-forked into a session of its own is ended when the scope closes", () =>
    Effect.gen(function* () {
      const marker = unique("daemon")
      yield* killAtEnd(marker)
      const scope = yield* Scope.make()
      // (setsid …) in a subshell: its parent exits at once, so it is reparented to init, in no group of ours.
      const { box } = yield* Effect.provideService(
        toolbox(wrapped("daemonizing", `(setsid bash -c 'exec -a ${marker} sleep 300' &); exec SERVER`)),
        Scope.Scope,
        scope
      )
      const server = yield* pidOf(box)
      yield* eventually(() => processesWith(marker).length === 1, "the daemon to run", 60_000)
      const [daemon] = processesWith(marker)
      const stat = Fs.readFileSync(`/proc/${daemon}/stat`, "utf8")
      const [, , pgrp, session] = stat
        .slice(stat.lastIndexOf(")") + 2)
        .split(" ")
        .map(Number)
      expect(pgrp).not.toBe(server)
      expect(session).not.toBe(server)
      yield* Scope.close(scope, Exit.void)
      yield* eventually(() => processesWith(marker).length === 0, "the daemon to be ended", 60_000)
      expect(isAlive(server)).toBe(false)
    }).pipe(Effect.scoped, Effect.provide(context))
  )
})
