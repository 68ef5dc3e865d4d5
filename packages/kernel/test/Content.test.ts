import { Content } from "@agent-kernel/kernel"
import { describe, expect, it } from "@effect/vitest"

const call = (id: string): Content.Message => ({ role: "assistant", content: [Content.toolUse(id, "echo", {})] })
const answer = (...ids: ReadonlyArray<string>): Content.Message => ({
  role: "user",
  content: ids.map((id) => Content.toolResult(id, "ok"))
})

describe("Content.unansweredToolUses", () => {
  it("is empty when the next message answers every tool_use", () => {
    expect(Content.unansweredToolUses([Content.userText("hi"), call("a"), answer("a")])).toEqual([])
  })

  it("names a tool_use whose answer is missing, is under another id, or comes later than the next message", () => {
    const history: Content.History = [
      Content.userText("hi"),
      { role: "assistant", content: [Content.toolUse("a", "echo", {}), Content.toolUse("b", "echo", {})] },
      answer("a", "x"),
      call("c"),
      Content.userText("not an answer"),
      answer("c"),
      call("d")
    ]
    expect(Content.unansweredToolUses(history)).toEqual(["b", "c", "d"])
  })
})
