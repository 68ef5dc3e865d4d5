import type * as Content from "../Content.js"

/** Whether the tool_use at `index` has an id that is empty or that an earlier tool_use already has. */
const taken = (content: ReadonlyArray<Content.ContentBlock>, index: number, id: string): boolean => {
  if (id === "") return true
  for (let i = 0; i < index; i++) {
    const block = content[i]!
    if (block.type === "tool_use" && block.id === id) return true
  }
  return false
}

const used = (content: ReadonlyArray<Content.ContentBlock>, id: string): boolean =>
  content.some((block) => block.type === "tool_use" && block.id === id)

/**
 * Gives every tool_use of a response an id no other tool_use of it has.
 *
 * Results are paired with calls by id on the wire, so two calls sharing an id
 * (an OpenAI-compatible server that omits ids sends "" for each) would lose a
 * result. An id that is empty or repeats an earlier one of the same response
 * is replaced by `<id or "tool">_<run>.<turn>.<n>`, so a replacement never
 * repeats an id of another turn either; any other id is kept. Returns
 * `content` itself when every id is already unique (the common case, which
 * allocates nothing).
 *
 * @internal
 */
export const unique = (
  content: ReadonlyArray<Content.ContentBlock>,
  run: number,
  turn: number
): ReadonlyArray<Content.ContentBlock> => {
  let renamed: Array<Content.ContentBlock> | undefined
  for (let i = 0; i < content.length; i++) {
    const block = content[i]!
    if (block.type !== "tool_use" || !taken(renamed ?? content, i, block.id)) continue
    renamed ??= content.slice()
    const base = block.id === "" ? "tool" : block.id
    let n = i
    let id = `${base}_${run}.${turn}.${n}`
    while (used(renamed, id) || used(content, id)) id = `${base}_${run}.${turn}.${++n}`
    renamed[i] = { ...block, id }
  }
  return renamed ?? content
}
