import { Content, EventBus, type KernelEvent } from "@agent-kernel/kernel"
import { NodeServices } from "@effect/platform-node"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { type McpStdio, ProcessSpawner } from "../src/index.js"

export const fixturePath = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "fixtures", "server.mjs")

/**
 * The spawner with the platform services, for the process tests (`describe.each`, so that a second
 * spawner would run every one of them).
 */
export const spawners = [
  {
    name: "portable spawner",
    context: Layer.merge(NodeServices.layer, ProcessSpawner.layer(ProcessSpawner.platform))
  }
] as const

/** The fixture server, run by this Node. */
export const fixture = (name: string, ...flags: ReadonlyArray<string>): McpStdio.Config => ({
  name,
  command: process.execPath,
  args: [fixturePath, ...flags],
  shutdownGraceMillis: 300
})

/** The fixture under a launcher shell that outlives it. */
export const wrapped = (name: string, script: string): McpStdio.Config => ({
  name,
  command: "bash",
  args: ["-c", script.replaceAll("SERVER", `'${process.execPath}' '${fixturePath}'`)],
  shutdownGraceMillis: 300
})

let nextId = 0
export const use = (name: string, input: unknown = {}): Content.ToolUseBlock =>
  Content.toolUse(`call_${++nextId}`, name, input)

/** Live (non-zombie) members of a process group, from /proc. */
export const liveGroup = (pgid: number): Array<number> =>
  Fs.readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = Fs.readFileSync(`/proc/${entry}/stat`, "utf8")
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
        return Number(fields[2]) === pgid && fields[0] !== "Z" ? [Number(entry)] : []
      } catch {
        return []
      }
    })

export const isAlive = (pid: number): boolean => {
  try {
    const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

/** Polls (on the wall clock) until the predicate holds; for process state, which has no event to await. */
export const eventually = (predicate: () => boolean, what: string, limitMillis = 10_000): Effect.Effect<void> =>
  Effect.promise(async () => {
    const deadline = Date.now() + limitMillis
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })

/** An event bus that also records every event. */
export const recordEvents = Effect.gen(function* () {
  const events = yield* Ref.make<Array<KernelEvent.KernelEvent>>([])
  const bus = yield* EventBus.make([{ onEvent: (event) => Ref.update(events, (all) => [...all, event]) }])
  return { events: Ref.get(events), layer: Layer.succeed(EventBus.EventBus, bus) }
})

export const parse = (text: string): unknown => JSON.parse(text)

/** Waits (wall clock, so it works under a TestClock) until the server is handling `n` calls. */
export const inflight = (
  box: { readonly invoke: (call: Content.ToolUseBlock) => Effect.Effect<Content.ToolResultBlock> },
  n: number
) =>
  Effect.gen(function* () {
    for (;;) {
      const count = Number((yield* box.invoke(use("inflight"))).content)
      if (count >= n) return
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
    }
  })

/** Live processes whose command line contains a marker. */
export const processesWith = (marker: string): Array<number> =>
  Fs.readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const cmdline = Fs.readFileSync(`/proc/${entry}/cmdline`, "utf8")
        return cmdline.includes(marker) && isAlive(Number(entry)) ? [Number(entry)] : []
      } catch {
        return []
      }
    })
