import type * as Content from "../Content.js"

/**
 * Gives every tool_use of a response an id no other tool_use of it has.
 *
 * Results are paired with calls by id on the wire, so two calls sharing an id
 * (an OpenAI-compatible server that omits ids sends "" for each) would lose a
 * result. An id that is empty or repeats an earlier one of the same response
 * is replaced by `<id or "tool">_<scope>.<n>`, `scope` naming the run and the
 * turn, so a replacement never repeats an id of another turn either; any
 * other id is kept. Returns `content` itself when every id is already unique.
 *
 * @internal
 */
export const unique = (
  content: ReadonlyArray<Content.ContentBlock>,
  scope: string
): ReadonlyArray<Content.ContentBlock> => {
  let seen: Set<string> | undefined
  let renamed: Array<Content.ContentBlock> | undefined
  for (let i = 0; i < content.length; i++) {
    const block = content[i]!
    if (block.type !== "tool_use") continue
    seen ??= new Set()
    if (block.id !== "" && !seen.has(block.id)) {
      seen.add(block.id)
      continue
    }
    let n = i
    let id = `${block.id === "" ? "tool" : block.id}_${scope}.${n}`
    while (seen.has(id) || content.some((other) => other.type === "tool_use" && other.id === id))
      id = `${block.id === "" ? "tool" : block.id}_${scope}.${++n}`
    seen.add(id)
    renamed ??= content.slice()
    renamed[i] = { ...block, id }
  }
  return renamed ?? content
}
