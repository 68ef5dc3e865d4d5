/**
 * A fixed-seed, bounded fuzz of the MCP line reader: arbitrary bytes, arbitrary chunk
 * boundaries. Nothing may throw, a chunking may never change what is read, and every well-formed
 * message gets through whatever surrounds it.
 */
import { describe, expect, it } from "@effect/vitest"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { findId, StdioTransport } from "../src/internal/stdioTransport.js"

const MAX = 300
const fuzz = { seed: 20_260_731, runs: 400 } as const
const encoder = new TextEncoder()

type Line =
  | { readonly kind: "message"; readonly bytes: Uint8Array }
  | { readonly kind: "oversize"; readonly bytes: Uint8Array; readonly answers: boolean }
  | { readonly kind: "junk"; readonly bytes: Uint8Array }

const Integer = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))
const Text = (maxLength: number) => Schema.String.check(Schema.isMaxLength(maxLength))
const integer = (minimum: number, maximum: number) => Arbitrary.schema(Integer(minimum, maximum))
const boolean = Arbitrary.schema(Schema.Boolean)

/** One of the choices, each as likely as its weight says. */
const weighted = <A>(...choices: ReadonlyArray<readonly [weight: number, Arbitrary.Arbitrary<A>]>) => {
  const picks = choices.flatMap(([weight, arbitrary]) => Array.from({ length: weight }, () => arbitrary))
  return Arbitrary.flatMap(integer(0, picks.length - 1), (index) => picks[index]!)
}
const oneOf = <A>(...choices: ReadonlyArray<Arbitrary.Arbitrary<A>>) =>
  weighted(...choices.map((choice) => [1, choice] as const))
const constantFrom = <A>(...values: ReadonlyArray<A>) => Arbitrary.map(integer(0, values.length - 1), (i) => values[i]!)

const Id = Schema.Union([Integer(-1000, 1_000_000), Text(12)])
const message = Arbitrary.schema(
  Schema.Union([
    Schema.Struct({
      jsonrpc: Schema.Literal("2.0"),
      id: Id,
      result: Schema.Record(Text(5), Text(20)).check(Schema.isMaxProperties(3))
    }),
    Schema.Struct({
      jsonrpc: Schema.Literal("2.0"),
      id: Id,
      error: Schema.Struct({ code: Integer(-32700, -32000), message: Text(30) })
    }),
    Schema.Struct({
      jsonrpc: Schema.Literal("2.0"),
      method: Schema.Literal("notifications/progress"),
      params: Schema.Struct({ progressToken: Schema.Int, progress: Schema.Int })
    })
  ])
)

// Ids as a hostile server writes them: fine, not JSON at all though shaped like it, or too large.
const rawId = oneOf(
  Arbitrary.map(integer(0, 99_999), (n) => ({ text: String(n), valid: true })),
  Arbitrary.map(Arbitrary.schema(Schema.String.check(Schema.isPattern(/^[a-z0-9]{1,8}$/))), (s) => ({
    text: JSON.stringify(s),
    valid: true
  })),
  Arbitrary.map(constantFrom('"\\q"', '"\\u12"', '"\\x41"', '"\\', "99999999999999999999999"), (text) => ({
    text,
    valid: false
  }))
)
const oversize: Arbitrary.Arbitrary<Line> = Arbitrary.map(
  Arbitrary.all([rawId, boolean, integer(MAX + 1, MAX * 3)]),
  ([raw, idFirst, size]) => {
    const pad = "é".repeat(size)
    const text = idFirst
      ? `{"jsonrpc":"2.0","id":${raw.text},"result":{"pad":"${pad}"}}`
      : `{"result":{"pad":"${pad}"},"jsonrpc":"2.0","id":${raw.text}}`
    return { kind: "oversize", bytes: encoder.encode(text), answers: raw.valid }
  }
)
const noNewline = (bytes: Uint8Array) => bytes.map((b) => (b === 10 ? 32 : b))
const junk: Arbitrary.Arbitrary<Line> = oneOf(
  // Arbitrary bytes, invalid UTF-8 included.
  Arbitrary.map(Arbitrary.array(integer(0, 255), { minLength: 1, maxLength: 200 }), (bytes) =>
    noNewline(Uint8Array.from(bytes))
  ),
  // Near misses: JSON that is not JSON-RPC, truncated JSON, deep nesting.
  Arbitrary.map(
    constantFrom('{"not":"jsonrpc"}', '{"jsonrpc":"2.0","id":', "[".repeat(100_000), "null", "Starting server..."),
    (s) => encoder.encode(s)
  ),
  Arbitrary.map(Arbitrary.schema(Text(60)), (s) => noNewline(encoder.encode(s)))
).pipe(
  Arbitrary.filter((bytes) => new TextDecoder().decode(bytes).trim() !== ""),
  Arbitrary.map((bytes): Line => ({ kind: "junk", bytes }))
)
const line: Arbitrary.Arbitrary<Line> = weighted(
  [3, Arbitrary.map(message, (m): Line => ({ kind: "message", bytes: encoder.encode(JSON.stringify(m)) }))],
  [1, oversize],
  [2, junk]
)

const stream = Arbitrary.all({
  lines: Arbitrary.array(line, { maxLength: 12 }),
  crlf: boolean,
  // Cut points anywhere: taken modulo the input's length, so every byte can be a boundary.
  cuts: Arbitrary.array(integer(0, 1 << 20), { maxLength: 20 })
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
    { arbitrary: fuzz }
  )

  it.prop(
    "a message sent one byte at a time is read whole",
    [Arbitrary.array(message, { minLength: 1, maxLength: 4 })],
    ([messages]) => {
      const bytes = encoder.encode(messages.map((m) => `${JSON.stringify(m)}\n`).join(""))
      const byteByByte = read(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)))
      expect(byteByByte.messages).toHaveLength(messages.length)
      expect(byteByByte.badLines).toBe(0)
    },
    { arbitrary: { seed: fuzz.seed, runs: 50 } }
  )

  it("findId never throws on an id that only looks like JSON", () => {
    expect(findId('{"jsonrpc":"2.0","id":"\\q","result":', "")).toBeUndefined()
    expect(findId("", '"id":"\\u12"}')).toBeUndefined()
    expect(findId('{"id":99999999999999999999999,', "")).toBeUndefined()
    expect(findId('{"id":"ok",', "")).toBe("ok")
  })

  it.effect("the generator reaches the hostile cases (measured on the fuzz's own seed)", () =>
    Effect.gen(function* () {
      const samples = yield* Arbitrary.sampleEffect(stream, { seed: fuzz.seed, count: fuzz.runs })
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
  )
})
