/**
 * What a key does at the interactive prompt, pure: the decisions the prompt's
 * shell (interactive.ts) acts on. The end-to-end tests on a real terminal are
 * in agent.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Exit from "effect/Exit"
import * as Interactive from "./interactive.js"

const line = (text: string) => ({ _tag: "Line", text }) as const
const ctrlC = (typed: boolean) => ({ _tag: "Interrupt", typed }) as const
const ctrlD = { _tag: "End" } as const

describe("interactive prompt: what a key does", () => {
  it("at the prompt: a line runs, a blank line prompts again, exit and Ctrl-D leave", () => {
    assert.deepStrictEqual(Interactive.atPrompt(line("hello"), false), { _tag: "Run", text: "hello" })
    assert.deepStrictEqual(Interactive.atPrompt(line("   "), false), { _tag: "Prompt" })
    assert.deepStrictEqual(Interactive.atPrompt(line(" exit "), false), { _tag: "Leave" })
    assert.deepStrictEqual(Interactive.atPrompt(ctrlD, false), { _tag: "Leave" })
  })

  it("at the prompt: Ctrl-C clears typed text; on an empty line the first says how to leave, the second leaves", () => {
    assert.deepStrictEqual(Interactive.atPrompt(ctrlC(true), false), { _tag: "ClearLine" })
    assert.deepStrictEqual(Interactive.atPrompt(ctrlC(true), true), { _tag: "ClearLine" })
    assert.deepStrictEqual(Interactive.atPrompt(ctrlC(false), false), { _tag: "Hint" })
    assert.deepStrictEqual(Interactive.atPrompt(ctrlC(false), true), { _tag: "Leave" })
  })

  it("during a run: Ctrl-C stops it, a line waits its turn, Ctrl-D leaves after it, its end is reported", () => {
    assert.deepStrictEqual(Interactive.whileRunning(ctrlC(false)), { _tag: "Stop" })
    assert.deepStrictEqual(Interactive.whileRunning(ctrlC(true)), { _tag: "Stop" })
    assert.deepStrictEqual(Interactive.whileRunning(line("next")), { _tag: "Queue", text: "next" })
    assert.deepStrictEqual(Interactive.whileRunning(ctrlD), { _tag: "LeaveAfter" })
    const ended = Interactive.whileRunning({ _tag: "RunEnded", exit: Exit.interrupt() })
    assert.strictEqual(ended._tag, "Ended")
    assert.isTrue(ended._tag === "Ended" && Exit.hasInterrupts(ended.exit))
  })
})
