import * as Option from "effect/Option"
import type * as Content from "../Content.js"
import * as TokenEstimate from "../TokenEstimate.js"

const isUserInput = (message: Content.Message): boolean =>
  message.role === "user" && message.content.every((block) => block.type !== "tool_result")

/** @internal */
export const dropOldestTurns = (messages: Content.History, target: number): Option.Option<Content.History> => {
  const latestInput = findLastIndex(messages, isUserInput)
  if (latestInput < 0) return Option.none()
  // Each message is estimated once; the estimate of any suffix is then a lookup.
  const suffix: Array<number> = new Array(messages.length + 1).fill(0)
  for (let i = messages.length - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + TokenEstimate.message(messages[i]!)
  // Cut points: user inputs at or before the latest one. The first that meets the target wins.
  let start: number | undefined
  for (let i = 1; i <= latestInput; i++) {
    const msg = messages[i]
    if (msg === undefined || !isUserInput(msg)) continue
    start = i
    if (suffix[i]! <= target) return Option.some(messages.slice(i))
  }
  // Still over: drop whole tool round trips after the latest input, oldest first, keeping the newest.
  const head = start ?? latestInput
  let rest = head + 1
  let estimate = suffix[head]!
  while (messages.length - rest > 2 && estimate > target) {
    const assistant = messages[rest]
    const results = messages[rest + 1]
    if (assistant?.role !== "assistant" || results?.role !== "user") break
    estimate -= suffix[rest]! - suffix[rest + 2]!
    rest += 2
  }
  const current = [messages[head]!, ...messages.slice(rest)]
  return current.length < messages.length ? Option.some(current) : Option.none()
}

const marker = (dropped: number) => `\n[... ${dropped} characters truncated to fit the context window ...]`

/** @internal */
export const truncateToolResults = (
  messages: Content.History,
  target: number,
  minChars: number
): Option.Option<Content.History> => {
  const before = TokenEstimate.messages(messages)
  let longest = 0
  for (const msg of messages)
    for (const block of msg.content) if (block.type === "tool_result") longest = Math.max(longest, block.content.length)
  if (longest <= minChars) return Option.none()
  let limit = Math.max(minChars, Math.floor(longest / 2))
  let current = truncateAt(messages, limit)
  while (TokenEstimate.messages(current) > target && limit > minChars) {
    limit = Math.max(minChars, Math.floor(limit / 2))
    current = truncateAt(messages, limit)
  }
  return TokenEstimate.messages(current) < before ? Option.some(current) : Option.none()
}

const truncateAt = (messages: Content.History, limit: number): Content.History =>
  messages.map((msg) =>
    msg.content.some((block) => block.type === "tool_result" && block.content.length > limit)
      ? {
          ...msg,
          content: msg.content.map((block) =>
            block.type === "tool_result" && block.content.length > limit
              ? { ...block, content: block.content.slice(0, limit) + marker(block.content.length - limit) }
              : block
          )
        }
      : msg
  )

const findLastIndex = <A>(array: ReadonlyArray<A>, predicate: (a: A) => boolean): number => {
  for (let i = array.length - 1; i >= 0; i--) {
    const item = array[i]
    if (item !== undefined && predicate(item)) return i
  }
  return -1
}
