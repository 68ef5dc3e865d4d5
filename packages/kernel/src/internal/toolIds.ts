import type * as Content from "../Content.js"

/**
 * What `uniqueOf` reads of a block: its type and, a tool_use's, its id. A
 * response's content blocks are such blocks, and so are the blocks of a
 * response being assembled (`responsePart.ordered`).
 *
 * @internal
 */
export interface Block {
  readonly type: string
  readonly id?: string | undefined
}

/** The id of a tool_use; `undefined` for any other block. */
const idOf = (block: Block): string | undefined => (block.type === "tool_use" ? block.id : undefined)

/** Whether the tool_use at `index` has an id that is empty or that an earlier tool_use already has. */
const taken = (blocks: ReadonlyArray<Block>, index: number, id: string): boolean => {
  if (id === "") return true
  for (let i = 0; i < index; i++) if (idOf(blocks[i]!) === id) return true
  return false
}

const used = (blocks: ReadonlyArray<Block>, id: string): boolean => blocks.some((block) => idOf(block) === id)

/**
 * Gives every tool_use of a response an id no other tool_use of it has.
 *
 * Results are paired with calls by id on the wire, so two calls sharing an id
 * (an OpenAI-compatible server that omits ids sends "" for each) would lose a
 * result. An id that is empty or repeats an earlier one of the same response
 * is replaced by `<id or "tool">_<run>.<turn>.<n>`, so a replacement never
 * repeats an id of another turn either; any other id is kept. Returns
 * `blocks` itself when every id is already unique (the common case, which
 * allocates nothing). `rename` gives a tool_use block its new id.
 *
 * @internal
 */
export const uniqueOf = <B extends Block>(
  blocks: ReadonlyArray<B>,
  run: number,
  turn: number,
  rename: (block: B, id: string) => B
): ReadonlyArray<B> => {
  let renamed: Array<B> | undefined
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!
    const own = idOf(block)
    if (own === undefined || !taken(renamed ?? blocks, i, own)) continue
    renamed ??= blocks.slice()
    const base = own === "" ? "tool" : own
    let n = i
    let id = `${base}_${run}.${turn}.${n}`
    while (used(renamed, id) || used(blocks, id)) id = `${base}_${run}.${turn}.${++n}`
    renamed[i] = rename(block, id)
  }
  return renamed ?? blocks
}

const renameBlock = (block: Content.ContentBlock, id: string): Content.ContentBlock =>
  block.type === "tool_use" ? { ...block, id } : block

/**
 * `uniqueOf` for a response's content.
 *
 * @internal
 */
export const unique = (
  content: ReadonlyArray<Content.ContentBlock>,
  run: number,
  turn: number
): ReadonlyArray<Content.ContentBlock> => uniqueOf(content, run, turn, renameBlock)
