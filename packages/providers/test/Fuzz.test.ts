/**
 * A fixed-seed, bounded fuzz of both providers' SSE and JSON decoders: the
 * same `Decode.body` pipeline the providers run on a response, fed arbitrary
 * bytes at arbitrary chunk boundaries.
 *
 * Inputs start from real transcripts (written by the fake provider's
 * dialects) and are then damaged: cut, padded with keep-alives, re-ended
 * with CRLF or CR, given a BOM, spliced with random bytes, or replaced by
 * random bytes outright. Every case must end in a response the schema
 * accepts or in a typed `ModelError`: never a defect, an interruption, a
 * timeout (the input is finite, so nothing may wait: each case is bounded by
 * construction, and TestClock never moves), a leaked key, or an unhandled
 * rejection. Decoding must not depend on where the chunks were cut.
 *
 * The last test reports how often each outcome was reached and fails if the
 * generators stop reaching the interesting cases.
 */
import { describe, expect, it } from "@effect/vitest"
import { ModelError, ModelProvider } from "@agent-kernel/kernel"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Arbitrary from "effect/Arbitrary"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { ResponsePart } from "@agent-kernel/kernel"
import { Classification } from "../src/index.js"
import * as AnthropicWire from "../src/internal/anthropicWire.js"
import * as Decode from "../src/internal/decode.js"
import type * as Http from "../src/internal/http.js"
import * as OpenAiWire from "../src/internal/openAiWire.js"
import * as Dialect from "../src/testing/internal/dialect.js"
import { expectNoKeySlice, failOnUnhandledRejections } from "./support.js"

const KEY = "sk-fuzz-Sup3rSecretKey-0123456789"
const LIMIT = 32 * 1024
const SEED = 20261130
const RUNS = 300
/** Effect's Arbitrary grows strings and arrays with `size`: this one lets them reach the lengths the generators allow. */
const SIZE = 40

failOnUnhandledRejections()

type Api = "anthropic" | "openai"

const callOf = (api: Api): Http.Call => ({
  provider: api,
  model: "fuzz-model",
  secret: Redacted.make(KEY),
  table: api === "anthropic" ? Classification.anthropic : Classification.openAi,
  timeouts: { connect: Duration.seconds(10), firstByte: Duration.minutes(10), idle: Duration.seconds(60) },
  maxBodyBytes: LIMIT,
  maxErrorBodyBytes: LIMIT
})

/** The parts a body decodes to, as they would stream. */
const partsOf = (
  api: Api,
  format: "sse" | "json",
  headers: Record<string, string>,
  chunks: ReadonlyArray<Uint8Array>
): Stream.Stream<ResponsePart.ResponsePart, ModelError.ModelError> => {
  const head = {
    status: 200,
    headers: { ...headers, "content-type": format === "sse" ? "text/event-stream" : "application/json" }
  }
  const bytes = Stream.fromIterable(chunks)
  return api === "anthropic"
    ? Decode.body(callOf(api), head, bytes, AnthropicWire.decoder)
    : Decode.body(callOf(api), head, bytes, OpenAiWire.decoder)
}

/** The response the parts fold to, through the kernel's one accumulator. */
const decode = (
  api: Api,
  format: "sse" | "json",
  headers: Record<string, string>,
  chunks: ReadonlyArray<Uint8Array>
): Effect.Effect<ModelProvider.ModelResponse, ModelError.ModelError> =>
  Effect.map(
    Stream.runFold(partsOf(api, format, headers, chunks), () => ResponsePart.empty, ResponsePart.add),
    (parts) => ResponsePart.toResponse(parts, "fuzz-model")
  )

// ---------------------------------------------------------------------------
// Generators, on effect's Arbitrary

/** An integer in [min, max]. */
const int = (min: number, max: number): Arbitrary.Arbitrary<number> =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max })))

/** A natural number up to `max` (default: 2^31 - 1). */
const nat = (max = 2 ** 31 - 1): Arbitrary.Arbitrary<number> => int(0, max)

/** One of the arbitraries, each as likely as its weight. */
const weighted = <A>(choices: ReadonlyArray<readonly [Arbitrary.Arbitrary<A>, number]>): Arbitrary.Arbitrary<A> => {
  const slots = choices.flatMap(([arbitrary, weight]) => Array.from({ length: weight }, () => arbitrary))
  return Arbitrary.flatMap(int(0, slots.length - 1), (i) => slots[i] ?? Arbitrary.Constant(undefined as never))
}

/** One of the arbitraries, uniformly. */
const oneOf = <A>(...choices: ReadonlyArray<Arbitrary.Arbitrary<A>>): Arbitrary.Arbitrary<A> =>
  weighted(choices.map((choice) => [choice, 1] as const))

/** One of the values, uniformly. */
const pick = <const A>(...values: ReadonlyArray<A>): Arbitrary.Arbitrary<A> =>
  Arbitrary.flatMap(int(0, values.length - 1), (i) => Arbitrary.Constant(values[i] as A))

/** A printable string (with effect's edge cases: empty, control characters, lone surrogates, emoji...). */
const printable = (maxLength: number): Arbitrary.Arbitrary<string> =>
  Arbitrary.schema(Schema.String.check(Schema.isMaxLength(maxLength)))

/** A string of arbitrary UTF-16 code units up to `maxUnit`: control characters, CR, LF, lone surrogates. */
const codeUnits = (maxLength: number, maxUnit: number): Arbitrary.Arbitrary<string> =>
  Arbitrary.map(Arbitrary.array(int(0, maxUnit), { maxLength }), (units) => String.fromCharCode(...units))

/** A string of arbitrary code points, of every plane: most take four bytes in UTF-8. */
const codePoints = (maxLength: number): Arbitrary.Arbitrary<string> =>
  Arbitrary.map(Arbitrary.array(int(0, 0x10ffff), { maxLength }), (points) => String.fromCodePoint(...points))

/** A small JSON value: a primitive, or an array or object of primitives. */
const jsonValue: Arbitrary.Arbitrary<unknown> = (() => {
  const primitive = oneOf<unknown>(
    Arbitrary.Constant(null),
    Arbitrary.schema(Schema.Boolean),
    int(-1000, 1000),
    printable(12)
  )
  return oneOf<unknown>(
    primitive,
    Arbitrary.array(primitive, { maxLength: 3 }),
    Arbitrary.map(Arbitrary.array(Arbitrary.all([printable(6), primitive]), { maxLength: 3 }), Object.fromEntries)
  )
})()

const encoder = new TextEncoder()

const incoming: Dialect.Incoming = {
  model: "fuzz-model",
  stream: true,
  tools: [],
  afterTools: false,
  lastToolResult: "",
  lastUserText: "",
  inputTokens: 42,
  key: KEY
}

const text = oneOf(
  printable(40),
  codePoints(20),
  pick("héllo wörld", "日本語のテキスト", "🙂👍🏽 emoji", "a\u2028b\u2029c", "line\r\nbreak", `key ${KEY}`)
)

const answer: Arbitrary.Arbitrary<Dialect.Answer> = Arbitrary.all({
  text,
  toolCalls: Arbitrary.array(
    Arbitrary.all({
      id: pick("toolu_1", "call_2", ""),
      name: pick("lookup", "search"),
      input: Arbitrary.map(
        Arbitrary.array(Arbitrary.all([printable(8), jsonValue]), { maxLength: 4 }),
        (entries): unknown => Object.fromEntries(entries)
      )
    }),
    { maxLength: 2 }
  ),
  stop: pick("end_turn", "tool_use", "max_tokens", "refusal", "model_context_window_exceeded"),
  usage: Arbitrary.all({
    input_tokens: nat(100_000),
    output_tokens: nat(100_000),
    cache_read_tokens: oneOf<number | undefined>(Arbitrary.Constant(undefined), nat(1000))
  })
})

const errorType = pick(
  "overloaded_error",
  "rate_limit_error",
  "api_error",
  "server_error",
  "invalid_request_error",
  "authentication_error",
  "brand_new_error"
)

/** A transcript as the fake provider writes it: complete, or ending in an error event. */
const transcript = (dialect: Dialect.Dialect, format: "sse" | "json"): Arbitrary.Arbitrary<string> =>
  oneOf(
    Arbitrary.map(answer, (a) =>
      format === "sse"
        ? [...dialect.streamHead(incoming, 0, a.text), ...dialect.streamTail(a, incoming, 0)].join("")
        : JSON.stringify(dialect.json(a, incoming, 0).body)
    ),
    Arbitrary.map(
      Arbitrary.all([text, errorType, text, Arbitrary.schema(Schema.Boolean)]),
      ([partial, type, message, flat]) =>
        format === "sse"
          ? [
              ...dialect.streamHead(incoming, 0, partial),
              flat ? Dialect.sse("error", { type, message }) : dialect.streamError(type, message, undefined)
            ].join("")
          : JSON.stringify(dialect.errorBody(type, message, undefined))
    )
  )

/** Events that carry nothing, as servers of each format send them. */
const keepAlives = (dialect: Dialect.Dialect) => [
  dialect.ping(incoming, 0),
  ": keep-alive\n\n",
  "data:\n\n",
  "retry: 10\n\n",
  dialect.api === "anthropic"
    ? 'event: brand_new_event\ndata: {"type":"brand_new_event"}\n\n'
    : "event: ping\ndata: {}\n\n"
]

interface Damage {
  readonly label: string
  readonly apply: (body: string) => string
}

/** Ways to damage a transcript, each as a function of the text. */
const damage = (dialect: Dialect.Dialect, format: "sse" | "json"): Arbitrary.Arbitrary<Damage> =>
  oneOf<Damage>(
    Arbitrary.Constant({ label: "intact", apply: (body: string) => body }),
    Arbitrary.map(nat(), (at) => ({
      label: "cut",
      apply: (body: string) => body.slice(0, at % (body.length + 1))
    })),
    Arbitrary.map(
      Arbitrary.array(Arbitrary.all([nat(), pick(...keepAlives(dialect))]), { minLength: 1, maxLength: 6 }),
      (inserts) => ({
        label: "keep-alives",
        apply: (body: string) => {
          if (format === "json") return `${" \n\t".repeat(inserts.length)}${body}  `
          const events = body.split(/(?<=\n\n)/)
          for (const [at, event] of inserts) events.splice(at % (events.length + 1), 0, event)
          return events.join("")
        }
      })
    ),
    Arbitrary.map(pick("\r\n", "\r"), (ending) => ({
      label: ending === "\r" ? "CR line ends" : "CRLF line ends",
      apply: (body: string) => body.replace(/\n/g, ending)
    })),
    Arbitrary.Constant({ label: "BOM", apply: (body: string) => `\uFEFF${body}` }),
    Arbitrary.map(
      Arbitrary.array(Arbitrary.all([nat(), codeUnits(4, 0x7f)]), { minLength: 1, maxLength: 4 }),
      (splices) => ({
        label: "spliced",
        apply: (body: string) =>
          splices.reduce((out, [at, junk]) => {
            const i = at % (out.length + 1)
            return out.slice(0, i) + junk + out.slice(i + junk.length)
          }, body)
      })
    ),
    // The key where an excerpt of the body is cut (2,000 characters): scrubbed before the cut, or a part survives.
    Arbitrary.map(int(2_000 - KEY.length + 1, 1_999), (before) => ({
      label: "key at the cut",
      apply: (body: string) => `${"x".repeat(before)}${KEY}${body}`
    })),
    Arbitrary.map(nat(4096), (extra) => ({
      label: "oversize",
      apply: (body: string) =>
        format === "sse" ? `data: ${"x".repeat(LIMIT + extra)}\n\n${body}` : `${body}${" ".repeat(LIMIT + extra)}`
    }))
  )

interface Case {
  readonly api: Api
  readonly format: "sse" | "json"
  readonly label: string
  readonly headers: Record<string, string>
  readonly bytes: Uint8Array
  readonly cuts: ReadonlyArray<number>
}

const headers: Arbitrary.Arbitrary<Record<string, string>> = Arbitrary.map(
  Arbitrary.array(
    Arbitrary.all([
      pick("retry-after", "retry-after-ms", "x-should-retry"),
      oneOf(pick("1", "true", "false", "-3", "Mon, 30 Nov 2026 06:00:42 GMT"), text)
    ]),
    { maxLength: 2 }
  ),
  Object.fromEntries
)

const fuzzCase: Arbitrary.Arbitrary<Case> = Arbitrary.flatMap(
  Arbitrary.all([pick<Api>("anthropic", "openai"), pick<"sse" | "json">("sse", "json")]),
  ([api, format]) => {
    const dialect = api === "anthropic" ? Dialect.anthropic : Dialect.openAi
    const cuts = Arbitrary.array(nat(), { maxLength: 24 })
    const damaged = Arbitrary.map(
      Arbitrary.all([transcript(dialect, format), damage(dialect, format), headers, cuts]),
      ([body, how, headers, cuts]): Case => ({
        api,
        format,
        label: how.label,
        headers,
        bytes: encoder.encode(how.apply(body)),
        cuts
      })
    )
    const random = Arbitrary.map(
      Arbitrary.all([
        Arbitrary.map(Arbitrary.array(int(0, 255), { maxLength: 512 }), (bytes) => Uint8Array.from(bytes)),
        headers,
        cuts
      ]),
      ([bytes, headers, cuts]): Case => ({ api, format, label: "random bytes", headers, bytes, cuts })
    )
    return weighted([
      [damaged, 5],
      [random, 1]
    ])
  }
)

/** Splits the bytes at the cut positions: arbitrary chunk boundaries, inside characters and line ends too. */
const chunked = (bytes: Uint8Array, cuts: ReadonlyArray<number>): ReadonlyArray<Uint8Array> => {
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Array<Uint8Array> = []
  let from = 0
  for (const to of [...at, bytes.length]) {
    out.push(bytes.subarray(from, to))
    from = to
  }
  return out
}

// ---------------------------------------------------------------------------
// Outcomes

const isResponse = Schema.is(ModelProvider.ModelResponse)

type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: ModelError.ModelError }

/** The outcome of one decode, or a description of why it is not allowed (a defect, an interruption...). */
const outcomeOf = (exit: Exit.Exit<ModelProvider.ModelResponse, ModelError.ModelError>): Outcome | string => {
  if (Exit.isSuccess(exit)) return isResponse(exit.value) ? { ok: true, value: exit.value } : "an invalid response"
  const [reason, ...others] = exit.cause.reasons
  if (reason === undefined || !Cause.isFailReason(reason) || others.length > 0) {
    return `not a typed failure: ${Cause.pretty(exit.cause)}`
  }
  return ModelError.isModelError(reason.error)
    ? { ok: false, error: reason.error }
    : "a failure that is not a ModelError"
}

const summary = (outcome: Outcome) =>
  outcome.ok ? { ok: outcome.value } : { tag: outcome.error._tag, message: outcome.error.message }

/** What one case reached: its outcome, and what kind of input it was. */
const reachedBy = (c: Case, pieces: ReadonlyArray<Uint8Array>, outcome: Outcome): ReadonlyArray<string> => [
  `${c.api} ${c.format}: ${outcome.ok ? "response" : outcome.error._tag}`,
  `input: ${c.label}`,
  ...(pieces.length > 2 ? ["input: cut in 3 chunks or more"] : [])
]

describe("SSE framing, whatever the line endings and chunk boundaries", () => {
  it.effect("a stray CR early in a chunk does not swallow the blank lines that end events (found by the fuzz)", () =>
    Effect.gen(function* () {
      const reply: Dialect.Answer = {
        text: "héllo wörld",
        toolCalls: [],
        stop: "end_turn",
        usage: { input_tokens: 42, output_tokens: 3 }
      }
      const body = `\r${[...Dialect.anthropic.streamHead(incoming, 0, reply.text), ...Dialect.anthropic.streamTail(reply, incoming, 0)].join("")}`
      const bytes = encoder.encode(body)
      const whole = yield* decode("anthropic", "sse", {}, [bytes])
      const split = yield* decode("anthropic", "sse", {}, [bytes.subarray(0, 1), bytes.subarray(1)])
      expect(whole.content).toEqual([{ type: "text", text: "héllo wörld" }])
      expect(split).toEqual(whole)
    })
  )

  it.effect("an event name split from its data by a CRLF cut between chunks keeps its name", () =>
    Effect.gen(function* () {
      const body = 'event: error\r\ndata: {"type":"overloaded_error","message":"busy"}\r\n\r\n'
      const bytes = encoder.encode(body)
      const cut = body.indexOf("\n")
      const error = yield* Effect.flip(decode("openai", "sse", {}, [bytes.subarray(0, cut), bytes.subarray(cut)]))
      expect(error._tag).toBe("Overloaded")
    })
  )

  it.effect(
    "LF, CRLF and a lone CR all end lines; a CRLF split across chunks is one ending; an empty chunk is nothing",
    () =>
      Effect.gen(function* () {
        const data = '{"type":"overloaded_error","message":"busy"}'
        const bodies: ReadonlyArray<ReadonlyArray<string>> = [
          [`event: error\ndata: ${data}\r\n\r`, "\n"],
          ["event: error\r", `\ndata: ${data}\r`, "", "\n\r", "\n"],
          [`event: error\rdata: ${data}\r`, "\r"]
        ]
        for (const pieces of bodies) {
          const error = yield* Effect.flip(
            decode(
              "openai",
              "sse",
              {},
              pieces.map((piece) => encoder.encode(piece))
            )
          )
          expect(error._tag, JSON.stringify(pieces)).toBe("Overloaded")
        }
      })
  )
})

describe("fuzz: the SSE and JSON decoders of both providers", () => {
  it.effect.prop(
    "arbitrary bytes at arbitrary chunk boundaries: a response or a typed ModelError, chunking-independent",
    [fuzzCase],
    ([c]) =>
      Effect.gen(function* () {
        const pieces = chunked(c.bytes, c.cuts)
        const outcome = outcomeOf(yield* Effect.exit(decode(c.api, c.format, c.headers, pieces)))
        if (typeof outcome === "string") return expect.fail(`${c.api} ${c.format} ${c.label}: ${outcome}`)
        if (!outcome.ok) {
          // The input is finite: nothing may have waited for the idle timer.
          expect(outcome.error._tag).not.toBe("Timeout")
          expectNoKeySlice(JSON.stringify(Schema.encodeSync(ModelError.ModelError)(outcome.error)), KEY)
        }
        // Within the body limit, where the chunks were cut must not matter.
        if (c.bytes.length <= LIMIT && pieces.length > 1) {
          const whole = outcomeOf(yield* Effect.exit(decode(c.api, c.format, c.headers, [c.bytes])))
          if (typeof whole === "string") return expect.fail(`${c.api} ${c.format} ${c.label} (one chunk): ${whole}`)
          expect(summary(outcome)).toEqual(summary(whole))
        }
      }),
    { arbitrary: { seed: SEED, runs: RUNS, size: SIZE } }
  )

  // Measured on its own sample of the same generator and seed, so it holds when run alone (-t) or in any order.
  it("the generators reach every interesting outcome", async () => {
    const reached = new Map<string, number>()
    for (const c of await Effect.runPromise(
      Arbitrary.sampleEffect(fuzzCase, { seed: SEED, count: RUNS, size: SIZE })
    )) {
      const pieces = chunked(c.bytes, c.cuts)
      const outcome = outcomeOf(await Effect.runPromise(Effect.exit(decode(c.api, c.format, c.headers, pieces))))
      if (typeof outcome === "string") return expect.fail(`${c.api} ${c.format} ${c.label}: ${outcome}`)
      for (const key of reachedBy(c, pieces, outcome)) reached.set(key, (reached.get(key) ?? 0) + 1)
    }
    const total = [...reached.entries()].filter(([key]) => !key.startsWith("input:")).reduce((n, [, v]) => n + v, 0)
    const report = [...reached.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, n]) => `${key}: ${n} (${((100 * n) / total).toFixed(1)} %)`)
    console.log(`fuzz outcomes over ${total} cases (seed ${SEED}):\n  ${report.join("\n  ")}`)
    expect(total).toBe(RUNS)
    const share = (prefix: string) =>
      [...reached.entries()].filter(([key]) => key.startsWith(prefix)).reduce((n, [, v]) => n + v, 0) / total
    for (const api of ["anthropic", "openai"]) {
      for (const format of ["sse", "json"]) {
        // Every pair reaches a decoded response and a typed failure, often enough to matter.
        expect(share(`${api} ${format}: response`), `${api} ${format} responses`).toBeGreaterThan(0.02)
        expect(share(`${api} ${format}: Unknown`), `${api} ${format} malformed`).toBeGreaterThan(0.02)
      }
      expect(share(`${api} sse: ConnectionError`), `${api} truncated streams`).toBeGreaterThan(0.01)
    }
    expect(share("input: cut in 3 chunks or more")).toBeGreaterThan(0.3)
    expect(share("input: key at the cut")).toBeGreaterThan(0.02)
  })
})

describe("property: where a recorded stream is cut into chunks never changes its parts", () => {
  /** A complete or failing SSE transcript of either format, and cut positions. */
  const cutTranscript = Arbitrary.flatMap(pick<Api>("anthropic", "openai"), (api) =>
    Arbitrary.all([
      Arbitrary.Constant(api),
      transcript(api === "anthropic" ? Dialect.anthropic : Dialect.openAi, "sse"),
      Arbitrary.array(nat(), { minLength: 1, maxLength: 40 })
    ])
  )
  const shapeOf = (exit: Exit.Exit<ReadonlyArray<ResponsePart.ResponsePart>, ModelError.ModelError>) =>
    Exit.match(exit, {
      onSuccess: (parts) => ({ parts }),
      onFailure: (cause) => ({ failure: Cause.squash(cause) })
    })

  it.effect.prop(
    "the same parts, in the same order, whole or at arbitrary chunk boundaries",
    [cutTranscript],
    ([[api, body, cuts]]) =>
      Effect.gen(function* () {
        const bytes = encoder.encode(body)
        const pieces = chunked(bytes, cuts)
        const collect = (chunks: ReadonlyArray<Uint8Array>) =>
          Effect.exit(Stream.runCollect(partsOf(api, "sse", {}, chunks)))
        const whole = yield* collect([bytes])
        const cut = yield* collect(pieces)
        expect(shapeOf(cut)).toEqual(shapeOf(whole))
      }),
    { arbitrary: { seed: SEED, runs: RUNS, size: SIZE } }
  )

  it("its generator reaches many chunks and cuts inside characters", () => {
    // Measured on its own sample, so it holds alone and in any order.
    const sample = Effect.runSync(Arbitrary.sampleEffect(cutTranscript, { seed: SEED, count: RUNS, size: SIZE }))
    let manyChunks = 0
    let insideCharacter = 0
    for (const [, body, cuts] of sample) {
      const pieces = chunked(encoder.encode(body), cuts)
      if (pieces.length > 2) manyChunks++
      // A cut on a UTF-8 continuation byte splits a character between two chunks.
      if (pieces.slice(1).some((piece) => piece.length > 0 && ((piece[0] ?? 0) & 0xc0) === 0x80)) insideCharacter++
    }
    console.log(
      `chunking property over ${sample.length} cases: ${manyChunks} cut in 3+ chunks, ${insideCharacter} cut inside a character`
    )
    expect(manyChunks / sample.length).toBeGreaterThan(0.5)
    expect(insideCharacter / sample.length).toBeGreaterThan(0.05)
  })
})
