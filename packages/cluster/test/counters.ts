/**
 * The records of the MCP counter fixture (examples/plugins/counter.mjs) that
 * the runner processes run as plugins: which tool calls started, how often,
 * and which ended, read from its file; and the results the sessions' stored
 * histories hold for them.
 */
import type { Content } from "@agent-kernel/kernel"
import * as fs from "node:fs"

/** What the counter's file says of one key. */
export interface Invocations {
  starts: number
  ended: boolean
  /** The counter process of the last start. */
  pid: number
}

/** The counter's file: for each key, how often it started and whether it ended. */
export const invocations = (file: string): Map<string, Invocations> => {
  const keys = new Map<string, Invocations>()
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""
  for (const line of text.split("\n")) {
    const [kind, key, pid] = line.split(" ")
    if (key === undefined) continue
    const entry = keys.get(key) ?? { starts: 0, ended: false, pid: 0 }
    if (kind === "start") {
      entry.starts++
      entry.pid = Number(pid)
    }
    if (kind === "end") entry.ended = true
    keys.set(key, entry)
  }
  return keys
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Keys started and not ended, whose counter process still runs (a stopped plugin's calls are over). */
export const inFlight = (file: string): ReadonlyArray<string> =>
  [...invocations(file)].filter(([, entry]) => !entry.ended && alive(entry.pid)).map(([key]) => key)

/** How often each key started, over the files of several runners' counters. */
export const startsOver = (files: ReadonlyArray<string>): Map<string, number> => {
  const starts = new Map<string, number>()
  for (const file of files) {
    for (const [key, entry] of invocations(file)) starts.set(key, (starts.get(key) ?? 0) + entry.starts)
  }
  return starts
}

/** The text of the tool_result a history holds for the tool_use `id`. */
export const resultOf = (history: Content.History, id: string): string | undefined => {
  for (const message of history) {
    for (const block of message.content) {
      if (block.type === "tool_result" && block.tool_use_id === id) return JSON.stringify(block.content)
    }
  }
  return undefined
}

/** Whether a tool result is the one a call cut off by a crash gets: its outcome unknown. */
export const unknownOutcome = (result: string): boolean => result.includes("unknown whether the tool finished")
