/**
 * Loop overhead per step: the kernel against a plain async loop, in one run.
 *
 * A zero-latency model asks for one tool call per step; the tool answers at
 * once. Runs are interleaved (baseline, kernel, kernel with an observer) so
 * that machine noise hits all of them alike; medians are reported, with the
 * ratio to the baseline. Allocation is the heap growth of one run with a young
 * generation large enough that no GC runs during it (checked; "n/a" if one did).
 *
 * Run: npx -y pnpm@12.4.2 bench
 */
import { Content, EventBus, ModelProvider, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import { PerformanceObserver, performance } from "node:perf_hooks"
import * as v8 from "node:v8"

const gc: () => void = (globalThis as { gc?: () => void }).gc ?? (() => {})
let gcsDuringRun = 0
new PerformanceObserver((list) => {
  gcsDuringRun += list.getEntries().length
}).observe({ entryTypes: ["gc"] })

const usage = { input_tokens: 1, output_tokens: 1 }
const toolCall = (i: number): ModelProvider.ModelResponse => ({
  model: "bench",
  content: [Content.toolUse(`t${i}`, "echo", { i })],
  stop_reason: "tool_use",
  usage
})
const done: ModelProvider.ModelResponse = {
  model: "bench",
  content: [Content.text("done")],
  stop_reason: "end_turn",
  usage
}

/** The floor: a plain async loop with the same model and tool. */
const baseline = async (steps: number) => {
  const history: Array<Content.Message> = [Content.userText("go")]
  let calls = 0
  const model = async (_messages: ReadonlyArray<Content.Message>) => (calls < steps ? toolCall(calls++) : done)
  const tool = async (call: Content.ToolUseBlock) => Content.toolResult(call.id, JSON.stringify(call.input))
  while (true) {
    const response = await model(history.slice())
    const message: Content.Message = { role: "assistant", content: response.content }
    history.push(message)
    const uses = Content.toolUses(message)
    if (uses.length === 0) return
    const results: Array<Content.ToolResultBlock> = []
    for (const use of uses) results.push(await tool(use))
    history.push({ role: "user", content: results })
  }
}

const kernel = (steps: number, observed: boolean) => {
  const toolbox: Toolbox.Toolbox["Type"] = {
    definitions: Effect.succeed([{ name: "echo", description: "echo", input_schema: { type: "object" } }]),
    invoke: (call) => Effect.succeed(Content.toolResult(call.id, JSON.stringify(call.input)))
  }
  let seen = 0
  const program = Effect.gen(function* () {
    let calls = 0 // per run: every run asks for the same number of steps
    const provider = ModelProvider.make("bench", () => Effect.sync(() => (calls < steps ? toolCall(calls++) : done)))
    const bus = yield* EventBus.make(observed ? [{ onEvent: () => Effect.sync(() => void seen++) }] : [])
    const session = yield* Session.make({
      model: "bench",
      settings: { ...Settings.defaults, max_turns: steps + 1 }
    }).pipe(
      Effect.provideService(ModelProvider.ModelProvider, provider),
      Effect.provideService(Toolbox.Toolbox, toolbox),
      Effect.provideService(EventBus.EventBus, bus)
    )
    const outcome = yield* session.run("go")
    if (outcome.status !== "completed" || outcome.turns !== steps + 1)
      throw new Error(`bench run ended ${outcome.status} after ${outcome.turns} turns`)
  })
  return () => Effect.runPromise(program)
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 0 ? ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2 : (sorted[mid] ?? 0)
}

const flushObserver = () => new Promise((resolve) => setTimeout(resolve, 5))

/** Timing: no forced GC, so each run sees the heap as a long-lived process would. */
const time = async (steps: number, run: () => Promise<void>): Promise<number> => {
  const start = performance.now()
  await run()
  return ((performance.now() - start) * 1000) / steps
}

/** Allocation: heap growth across one run that no GC interrupted, or undefined when one did. */
const allocation = async (steps: number, run: () => Promise<void>): Promise<number | undefined> => {
  gc()
  await flushObserver()
  gcsDuringRun = 0
  const before = v8.getHeapStatistics().used_heap_size
  await run()
  const grown = v8.getHeapStatistics().used_heap_size - before
  await flushObserver()
  return gcsDuringRun === 0 ? grown / 1024 / steps : undefined
}

const scenario = async (label: string, steps: number, repeats: number) => {
  const variants = [
    { name: "plain async loop (baseline)", run: () => baseline(steps) },
    { name: "agent-kernel, nobody listening", run: kernel(steps, false) },
    { name: "agent-kernel, one observer", run: kernel(steps, true) }
  ]
  for (let warm = 0; warm < 20; warm++) for (const variant of variants) await variant.run()
  const micros = variants.map(() => [] as Array<number>)
  for (let r = 0; r < repeats; r++)
    for (const [i, variant] of variants.entries()) micros[i]!.push(await time(steps, variant.run))
  const kilobytes = variants.map(() => [] as Array<number>)
  for (let r = 0; r < 5; r++)
    for (const [i, variant] of variants.entries()) {
      const kb = await allocation(steps, variant.run)
      if (kb !== undefined) kilobytes[i]!.push(kb)
    }
  const base = median(micros[0]!)
  console.log(`\n${label} (median of ${repeats} interleaved runs; KB from 5 runs without a GC)`)
  console.log(`${"loop".padEnd(34)}${"µs/step".padStart(10)}${"× baseline".padStart(12)}${"KB/step".padStart(10)}`)
  variants.forEach((variant, i) => {
    const us = median(micros[i]!)
    const kb = kilobytes[i]!.length === 0 ? "n/a" : median(kilobytes[i]!).toFixed(1)
    console.log(
      `${variant.name.padEnd(34)}${us.toFixed(1).padStart(10)}${(us / base).toFixed(1).padStart(12)}${kb.padStart(10)}`
    )
  })
}

const main = async () => {
  console.log(`node ${process.version}; gc exposed: ${(globalThis as { gc?: unknown }).gc !== undefined}`)
  await scenario("20-step runs", 20, 41)
  await scenario("one 2,000-step run", 2_000, 9)
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
