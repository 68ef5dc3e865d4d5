/**
 * A fixed-seed, bounded fuzz of the MCP line reader (issue 10): arbitrary bytes, arbitrary chunk
 * boundaries. Nothing may throw, a chunking may never change what is read, and every well-formed
 * message gets through whatever surrounds it.
 */
import { describe, expect, it } from "@effect/vitest"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as FastCheck from "effect/FastCheck"
import { findId, StdioTransport } from "../src/internal/stdioTransport.js"

const MAX = 300
const fuzz = { seed: 20_260_731, numRuns: 400 } as const
const encoder = new TextEncoder()

type Line =
  | { readonly kind: "message"; readonly bytes: Uint8Array }
  | { readonly kind: "oversize"; readonly bytes: Uint8Array; readonly answers: boolean }
  | { readonly kind: "junk"; readonly bytes: Uint8Array }

const id = FastCheck.oneof(FastCheck.integer({ min: -1000, max: 1_000_000 }), FastCheck.string({ maxLength: 12 }))
const message = FastCheck.oneof(
  FastCheck.record({
    jsonrpc: FastCheck.constant("2.0" as const),
    id,
    result: FastCheck.dictionary(FastCheck.string({ maxLength: 5 }), FastCheck.string({ maxLength: 20 }), {
      maxKeys: 3
    })
  }),
  FastCheck.record({
    jsonrpc: FastCheck.constant("2.0" as const),
    id,
    error: FastCheck.record({
      code: FastCheck.integer({ min: -32700, max: -32000 }),
      message: FastCheck.string({ maxLength: 30 })
    })
  }),
  FastCheck.record({
    jsonrpc: FastCheck.constant("2.0" as const),
    method: FastCheck.constant("notifications/progress"),
    params: FastCheck.record({ progressToken: FastCheck.integer(), progress: FastCheck.integer() })
  })
)

// Ids as a hostile server writes them: fine, not JSON at all though shaped like it, or too large.
const rawId = FastCheck.oneof(
  FastCheck.integer({ min: 0, max: 99_999 }).map((n) => ({ text: String(n), valid: true })),
  FastCheck.stringMatching(/^[a-z0-9]{1,8}$/).map((s) => ({ text: JSON.stringify(s), valid: true })),
  FastCheck.constantFrom('"\\q"', '"\\u12"', '"\\x41"', '"\\', "99999999999999999999999").map((text) => ({
    text,
    valid: false
  }))
)
const oversize: FastCheck.Arbitrary<Line> = FastCheck.tuple(
  rawId,
  FastCheck.boolean(),
  FastCheck.integer({ min: MAX + 1, max: MAX * 3 })
).map(([raw, idFirst, size]) => {
  const pad = "é".repeat(size)
  const text = idFirst
    ? `{"jsonrpc":"2.0","id":${raw.text},"result":{"pad":"${pad}"}}`
    : `{"result":{"pad":"${pad}"},"jsonrpc":"2.0","id":${raw.text}}`
  return { kind: "oversize", bytes: encoder.encode(text), answers: raw.valid }
})
const noNewline = (bytes: Uint8Array) => bytes.map((b) => (b === 10 ? 32 : b))
const junk: FastCheck.Arbitrary<Line> = FastCheck.oneof(
  // Arbitrary bytes, invalid UTF-8 included.
  FastCheck.uint8Array({ minLength: 1, maxLength: 200 }).map(noNewline),
  // Near misses: JSON that is not JSON-RPC, truncated JSON, deep nesting.
  FastCheck.constantFrom(
    '{"not":"jsonrpc"}',
    '{"jsonrpc":"2.0","id":',
    "[".repeat(100_000),
    "null",
    "Starting server..."
  ).map((s) => encoder.encode(s)),
  FastCheck.string({ unit: "grapheme", maxLength: 60 }).map((s) => noNewline(encoder.encode(s)))
)
  .filter((bytes) => new TextDecoder().decode(bytes).trim() !== "")
  .map((bytes) => ({ kind: "junk", bytes }))
const line: FastCheck.Arbitrary<Line> = FastCheck.oneof(
  { weight: 3, arbitrary: message.map((m): Line => ({ kind: "message", bytes: encoder.encode(JSON.stringify(m)) })) },
  { weight: 1, arbitrary: oversize },
  { weight: 2, arbitrary: junk }
)

const stream = FastCheck.record({
  lines: FastCheck.array(line, { maxLength: 12 }),
  crlf: FastCheck.boolean(),
  // Cut points anywhere: taken modulo the input's length, so every byte can be a boundary.
  cuts: FastCheck.array(FastCheck.integer({ min: 0, max: 1 << 20 }), { maxLength: 20 })
})

const assemble = ({ lines, crlf }: { readonly lines: ReadonlyArray<Line>; readonly crlf: boolean }) => {
  const end = encoder.encode(crlf ? "\r\n" : "\n")
  const parts = lines.flatMap((l) => [l.bytes, end])
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    all.set(part, at)
    at += part.length
  }
  return all
}

const chunk = (bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let from = 0
  for (const point of [...points, bytes.length]) {
    if (point > from) chunks.push(bytes.subarray(from, point))
    from = Math.max(from, point)
  }
  return chunks
}

const read = (chunks: ReadonlyArray<Uint8Array>) => {
  const messages: Array<JSONRPCMessage> = []
  const transport = new StdioTransport({ write: () => {}, maxMessageBytes: MAX })
  transport.onmessage = (m) => messages.push(m)
  for (const c of chunks) transport.feed(c)
  return { messages, badLines: transport.badLines }
}

describe("the MCP line reader, fuzzed (fixed seed, bounded)", () => {
  it.prop(
    "never throws, reads the same whatever the chunk boundaries, and lets every well-formed message through",
    [stream],
    ([input]) => {
      const bytes = assemble(input)
      const whole = read([bytes])
      const chunked = read(chunk(bytes, input.cuts))
      expect(chunked).toEqual(whole)
      const messages = input.lines.filter((l) => l.kind === "message").length
      const answered = input.lines.filter((l) => l.kind === "oversize" && l.answers).length
      expect(whole.messages).toHaveLength(messages + answered)
      expect(whole.badLines).toBe(input.lines.length - messages)
    },
    { fastCheck: fuzz }
  )

  it.prop(
    "a message sent one byte at a time is read whole",
    [FastCheck.array(message, { minLength: 1, maxLength: 4 })],
    ([messages]) => {
      const bytes = encoder.encode(messages.map((m) => `${JSON.stringify(m)}\n`).join(""))
      const byteByByte = read(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)))
      expect(byteByByte.messages).toHaveLength(messages.length)
      expect(byteByByte.badLines).toBe(0)
    },
    { fastCheck: { seed: fuzz.seed, numRuns: 50 } }
  )

  it("findId never throws on an id that only looks like JSON", () => {
    expect(findId('{"jsonrpc":"2.0","id":"\\q","result":', "")).toBeUndefined()
    expect(findId("", '"id":"\\u12"}')).toBeUndefined()
    expect(findId('{"id":99999999999999999999999,', "")).toBeUndefined()
    expect(findId('{"id":"ok",', "")).toBe("ok")
  })

  it("the generator reaches the hostile cases (measured on the fuzz's own seed)", () => {
    const samples = FastCheck.sample(FastCheck.tuple(stream), { seed: fuzz.seed, numRuns: fuzz.numRuns }).map(
      ([input]) => input
    )
    const share = (predicate: (input: (typeof samples)[number]) => boolean) =>
      samples.filter(predicate).length / samples.length
    const hostileId = share((s) => s.lines.some((l) => l.kind === "oversize" && !l.answers))
    const oversized = share((s) => s.lines.some((l) => l.kind === "oversize"))
    const junkLine = share((s) => s.lines.some((l) => l.kind === "junk"))
    const invalidUtf8 = share((s) =>
      s.lines.some((l) => {
        try {
          new TextDecoder("utf-8", { fatal: true }).decode(l.bytes)
          return false
        } catch {
          return true
        }
      })
    )
    // A cut inside a multi-byte character: the byte after the cut is a UTF-8 continuation byte.
    const splitCharacter = share((s) => {
      const bytes = assemble(s)
      return chunk(bytes, s.cuts)
        .slice(1)
        .some((c) => c.length > 0 && (c[0]! & 0xc0) === 0x80)
    })
    const cutMidLine = share((s) =>
      chunk(assemble(s), s.cuts)
        .slice(0, -1)
        .some((c) => c[c.length - 1] !== 10)
    )
    const figures = { hostileId, oversized, junkLine, invalidUtf8, splitCharacter, cutMidLine }
    console.log("line reader fuzz coverage", JSON.stringify(figures))
    expect(hostileId).toBeGreaterThan(0.15)
    expect(oversized).toBeGreaterThan(0.3)
    expect(junkLine).toBeGreaterThan(0.5)
    expect(invalidUtf8).toBeGreaterThan(0.2)
    expect(splitCharacter).toBeGreaterThan(0.15)
    expect(cutMidLine).toBeGreaterThan(0.5)
  })
})
