/**
 * Streaming latency: how soon the first `text_delta` reaches the
 * event bus after the fake provider server starts writing a stream, and what
 * each delta costs on its way through the kernel, against a bare SSE reader
 * over the same server.
 *
 * Each sample starts a fresh fake provider server on 127.0.0.1 (in this
 * process) whose one reply streams `deltas` text deltas of one character
 * each, held before its first byte (`hold_after_events: 0`). The client
 * sends its request and waits for the response; once the server has the
 * request, the bench notes the time and lets the server write
 * (`FakeProvider.release`): that instant is the server's first byte, on the
 * same clock (`performance.now()`) as the client's figures. Connecting and
 * sending the request fall before it, so they are not counted.
 *
 * - time to first delta: from the server's first byte to the first
 *   `text_delta` an observer receives (the kernel), or to the first text
 *   delta parsed (the bare readers);
 * - per delta: from the server's first byte to the last delta, divided by
 *   the number of deltas.
 *
 * Contenders, interleaved in rounds (`Measure.interleave`):
 * - bare `fetch` (undici) with a line split and `JSON.parse` of each `data:`
 *   line: the baseline every ratio is against;
 * - bare `node:http` with the same split: the HTTP client the kernel's
 *   `NodeTransport` uses, to tell the client's share from the kernel's;
 * - agent-kernel: a `Session` run with one observer on the bus, the
 *   Anthropic provider over `NodeTransport`, and the same over the
 *   `fetch`-based `HttpClient` (`Transport.layerHttpClient`);
 * - the Vercel AI SDK's `streamText`, reading `textStream`, over a minimal
 *   provider of its own language-model interface: `fetch`, the SDK's
 *   `parseJsonEventStream` (its SSE parser, `JSON.parse` and a zod check of
 *   each event, as its providers read a stream) and one `text-delta` part per
 *   Anthropic text delta. The workspace has no `@ai-sdk/anthropic`; a
 *   provider's own per-event work beyond this is not counted.
 *
 * Every sample checks that it saw every delta and the whole text; a wrong
 * count fails the benchmark.
 *
 * @since 0.3.0
 */
import { EventBus, Session } from "@agent-kernel/kernel"
import { Anthropic, Transport } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { parseJsonEventStream, streamText } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Http from "node:http"
import { performance } from "node:perf_hooks"
import { z } from "zod"
import * as Goal from "./Goal.js"
import * as Measure from "./Measure.js"
import * as Package from "./Package.js"
import * as Report from "./Report.js"

/**
 * @since 0.3.0
 * @category models
 */
export interface Plan {
  /** Text deltas in the stream, one character each. */
  readonly deltas: number
  readonly rounds: number
}

/**
 * @since 0.3.0
 * @category plans
 */
export const plans: { readonly full: Plan; readonly quick: Plan } = {
  full: { deltas: 2_000, rounds: 11 },
  quick: { deltas: 500, rounds: 7 }
}

/**
 * One sample: milliseconds from the server's first byte to the first and to
 * the last delta, and the process's CPU time from the first byte to the end
 * of the read (the in-process server's writes included, alike for every
 * reader).
 *
 * @since 0.3.0
 * @category models
 */
export interface Timing {
  readonly firstMs: number
  readonly lastMs: number
  readonly cpuMicros: number
}

const textOf = (deltas: number) => Array.from({ length: deltas }, (_, i) => String.fromCharCode(97 + (i % 26))).join("")

const planOf = (text: string) =>
  FaultPlan.make([
    { kind: "reply", text, delta_chars: 1, hold_after_events: 0, usage: { input_tokens: 1, output_tokens: 1 } }
  ])

/**
 * What a reader saw, checked against what the server sent.
 *
 * @since 0.3.0
 * @category models
 */
export class Seen {
  startedAt = Number.NaN
  cpuAtStart: NodeJS.CpuUsage | undefined
  first = Number.NaN
  last = Number.NaN
  count = 0
  text = ""
  /** Notes the server's first byte: the time and the CPU time every figure runs from. */
  start() {
    this.startedAt = performance.now()
    this.cpuAtStart = process.cpuUsage()
  }
  /** Notes one delta, and the time it arrived. */
  delta(piece: string) {
    const now = performance.now()
    if (this.count === 0) this.first = now
    this.last = now
    this.count++
    this.text += piece
  }
  /** The timing from `start`, at the end of the read; throws unless exactly the deltas of `expected` arrived. */
  timing(expected: string, who: string): Timing {
    const cpu = process.cpuUsage(this.cpuAtStart)
    if (this.text !== expected || this.count !== expected.length)
      throw new Error(`${who}: saw ${this.count} deltas (${this.text.length} characters), expected ${expected.length}`)
    return {
      firstMs: this.first - this.startedAt,
      lastMs: this.last - this.startedAt,
      cpuMicros: cpu.user + cpu.system
    }
  }
}

/** The text of an Anthropic SSE `data:` line, if it is a text delta. */
const textDeltaOf = (line: string): string | undefined => {
  if (!line.startsWith("data:")) return undefined
  const data: unknown = JSON.parse(line.slice(5))
  if (typeof data !== "object" || data === null || !("delta" in data)) return undefined
  const delta: unknown = data.delta
  return typeof delta === "object" &&
    delta !== null &&
    "type" in delta &&
    delta.type === "text_delta" &&
    "text" in delta &&
    typeof delta.text === "string"
    ? delta.text
    : undefined
}

/** Splits text chunks into lines, handing each complete line on. */
const lineSplitter = (onLine: (line: string) => void) => {
  let buffered = ""
  return (chunk: string) => {
    buffered += chunk
    let end = buffered.indexOf("\n")
    while (end >= 0) {
      onLine(buffered.slice(0, end).replace(/\r$/, ""))
      buffered = buffered.slice(end + 1)
      end = buffered.indexOf("\n")
    }
  }
}

const requestBody = JSON.stringify({
  model: "fake-model",
  max_tokens: 64,
  stream: true,
  messages: [{ role: "user", content: "hi" }]
})
const requestHeaders = { "content-type": "application/json", "x-api-key": "bench", "anthropic-version": "2023-06-01" }

/** Runs one sample against a fresh server: `read` sends the request and reads the stream into `seen`. */
const withServer = (text: string, read: (url: string, seen: Seen) => Promise<void>): Promise<Timing> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FakeProvider.make(planOf(text))
        const seen = new Seen()
        const reading = Effect.runPromise(Effect.promise(() => read(server.url, seen)))
        yield* server.awaitRequests(1)
        seen.start()
        yield* server.release
        yield* Effect.promise(() => reading)
        return seen.timing(text, "reader")
      })
    )
  )

const bareFetch = (text: string) =>
  withServer(text, async (url, seen) => {
    const response = await fetch(`${url}/v1/messages`, { method: "POST", headers: requestHeaders, body: requestBody })
    if (response.body === null) throw new Error("bare fetch: no body")
    const decoder = new TextDecoder()
    const split = lineSplitter((line) => {
      const piece = textDeltaOf(line)
      if (piece !== undefined) seen.delta(piece)
    })
    for await (const chunk of response.body) split(decoder.decode(chunk, { stream: true }))
  })

const bareNodeHttp = (text: string) =>
  withServer(
    text,
    (url, seen) =>
      new Promise<void>((resolve, reject) => {
        const request = Http.request(`${url}/v1/messages`, { method: "POST", headers: requestHeaders }, (response) => {
          response.setEncoding("utf8")
          const split = lineSplitter((line) => {
            const piece = textDeltaOf(line)
            if (piece !== undefined) seen.delta(piece)
          })
          response.on("data", split)
          response.on("end", resolve)
          response.on("error", reject)
        })
        request.on("error", reject)
        request.end(requestBody)
      })
  )

/** An Anthropic stream event, as loosely as a provider checks one. */
const AnthropicEvent = z.object({
  type: z.string(),
  delta: z.object({ type: z.string().optional(), text: z.string().optional() }).optional()
})

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer Part> ? Part : never

/** The SDK's stream parts of one Anthropic stream: one text part, a delta per text delta, then the finish. */
const toStreamParts = (body: ReadableStream<Uint8Array>): ReadableStream<StreamPart> =>
  parseJsonEventStream({ stream: body, schema: AnthropicEvent }).pipeThrough(
    new TransformStream({
      start(controller) {
        controller.enqueue({ type: "text-start", id: "0" })
      },
      transform(event, controller) {
        if (!event.success) controller.enqueue({ type: "error", error: event.error })
        else if (event.value.delta?.type === "text_delta" && event.value.delta.text !== undefined)
          controller.enqueue({ type: "text-delta", id: "0", delta: event.value.delta.text })
      },
      flush(controller) {
        controller.enqueue({ type: "text-end", id: "0" })
        controller.enqueue({
          type: "finish",
          finishReason: { unified: "stop", raw: "end_turn" },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 1, text: 1, reasoning: undefined }
          }
        })
      }
    })
  )

const aiSdk = (text: string) =>
  withServer(text, async (url, seen) => {
    const model = new MockLanguageModelV4({
      doStream: async () => {
        const response = await fetch(`${url}/v1/messages`, {
          method: "POST",
          headers: requestHeaders,
          body: requestBody
        })
        if (response.body === null) throw new Error("AI SDK: no body")
        return { stream: toStreamParts(response.body) }
      }
    })
    let failure: unknown
    const result = streamText({
      model,
      prompt: "hi",
      onError: ({ error }) => {
        failure = error
      }
    })
    for await (const piece of result.textStream) seen.delta(piece)
    if (failure !== undefined) throw failure
  })

const kernel = (text: string, transport: Layer.Layer<Transport.Transport>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FakeProvider.make(planOf(text))
        const seen = new Seen()
        const bus = EventBus.layer([
          {
            onEvent: (event) => (event.type === "text_delta" ? Effect.sync(() => seen.delta(event.text)) : Effect.void)
          }
        ])
        const provider = Anthropic.layer({ baseUrl: server.url, apiKey: Redacted.make("bench"), stream: true }).pipe(
          Layer.provide(transport)
        )
        const session = yield* Session.make({ model: "fake-model" }).pipe(Effect.provide(Layer.merge(provider, bus)))
        const running = yield* Effect.forkChild(session.run("hi"))
        yield* server.awaitRequests(1)
        seen.start()
        yield* server.release
        const outcome = yield* Fiber.join(running)
        const timing = seen.timing(text, "kernel")
        if (outcome.status !== "completed") throw new Error(`kernel: the run ended ${outcome.status}`)
        return timing
      })
    )
  )

interface Row {
  readonly name: string
  readonly timings: ReadonlyArray<Timing>
}

/**
 * The readers, each measuring one stream of `deltas` deltas per sample; the
 * first is the baseline.
 *
 * @since 0.3.0
 * @category contenders
 */
export const contenders = (deltas: number, samples: number): ReadonlyArray<Measure.Contender<Timing>> => {
  const text = textOf(deltas)
  return [
    { name: "bare fetch + line split (baseline)", samples, measure: () => bareFetch(text) },
    { name: "bare node:http + line split", samples, measure: () => bareNodeHttp(text) },
    { name: "agent-kernel, NodeTransport", samples, measure: () => kernel(text, NodeTransport.layer()) },
    {
      name: "agent-kernel, fetch HttpClient",
      samples,
      measure: () => kernel(text, Transport.layerHttpClient.pipe(Layer.provide(FetchHttpClient.layer)))
    },
    { name: `Vercel AI SDK ${Package.version("ai")} streamText`, samples, measure: () => aiSdk(text) }
  ]
}

/**
 * Measures, prints the table and returns the verdicts on the per-delta goal
 * (each transport of the kernel judged on its own).
 *
 * @since 0.3.0
 * @category running
 */
export const run = async (plan: Plan): Promise<ReadonlyArray<Goal.Verdict>> => {
  const measured = contenders(plan.deltas, plan.rounds)
  // One unmeasured round first: the first run of each path compiles its code.
  await Measure.interleave(measured, 1)
  const samples = await Measure.interleave(measured, plan.rounds)
  const rows: ReadonlyArray<Row> = measured.map((contender, i) => ({
    name: contender.name,
    timings: samples[i] ?? []
  }))
  const first = (row: Row) => Measure.median(row.timings.map((timing) => timing.firstMs))
  const perDelta = (row: Row) => Measure.median(row.timings.map((timing) => (timing.lastMs * 1_000) / plan.deltas))
  const cpuPerDelta = (row: Row) => Measure.median(row.timings.map((timing) => timing.cpuMicros / plan.deltas))
  const baseline = rows[0]
  console.log(
    `\nOne stream of ${plan.deltas.toLocaleString("en-US")} one-character text deltas from the fake provider ` +
      `(Anthropic SSE over HTTP on 127.0.0.1), from the server's first byte; medians of ${plan.rounds} interleaved rounds`
  )
  console.log(
    Report.table(
      [
        "reader",
        "first delta ms",
        "x baseline",
        "µs per delta",
        "x baseline",
        "overhead µs/delta",
        "CPU µs per delta",
        "x baseline"
      ],
      rows.map((row) => [
        row.name,
        Report.figure(first(row)),
        Report.times(Goal.ratio(first(row), baseline && first(baseline))),
        Report.figure(perDelta(row)),
        Report.times(Goal.ratio(perDelta(row), baseline && perDelta(baseline))),
        row === baseline || baseline === undefined ? "—" : Report.figure(perDelta(row) - perDelta(baseline)),
        Report.figure(cpuPerDelta(row)),
        Report.times(Goal.ratio(cpuPerDelta(row), baseline && cpuPerDelta(baseline)))
      ])
    )
  )
  return rows
    .filter((row) => row.name.startsWith("agent-kernel"))
    .map((row) =>
      Goal.judge(Goal.make(`stream: µs per delta, ${row.name}`, "at most", 10, "µs", "issue 22"), perDelta(row))
    )
}
