/**
 * How the benchmark measures: medians of samples taken in interleaved rounds,
 * the time of each sample from `performance.now()`, and the bytes it
 * allocated from `v8.GCProfiler`.
 *
 * Allocation is the heap's growth across the sample plus the bytes every GC
 * during it freed. A plain heap delta reads nothing useful once the young
 * generation fills up mid-sample (the collector frees what the sample
 * allocated); counting what each GC freed keeps the figure right at any
 * length.
 *
 * Each sample starts with a young-generation collection, so the garbage of
 * the sample before it is neither freed nor counted inside it. Not a full
 * collection: after a forced full collection V8 ran the next few thousand
 * steps of every loop 2-4x slower here (the kernel's more than the AI SDK's),
 * which would distort whichever loop came next. What a full collection inside
 * a sample frees of older old-generation garbage is counted as the sample's;
 * that garbage is what earlier samples promoted and dropped (a few MB, such
 * as a finished 2,000-step history), small against what a sample allocates.
 *
 * @since 0.1.0
 */
import { performance } from "node:perf_hooks"
import * as v8 from "node:v8"
import * as vm from "node:vm"

/**
 * The median; `NaN` for no values.
 *
 * @since 0.1.0
 * @category statistics
 */
export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 0 ? ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2 : (sorted[mid] ?? 0)
}

/**
 * The used heap before and after one garbage collection.
 *
 * @since 0.1.0
 * @category models
 */
export interface Collection {
  readonly usedBefore: number
  readonly usedAfter: number
}

/**
 * Bytes allocated in a window: what the heap grew by, plus what the
 * collections inside the window freed. Promotion from the young to the old
 * generation moves bytes without freeing them, so it adds nothing.
 *
 * @since 0.1.0
 * @category allocation
 */
export const allocatedBytes = (
  usedAtStart: number,
  usedAtEnd: number,
  collections: ReadonlyArray<Collection>
): number =>
  collections.reduce((total, gc) => total + Math.max(0, gc.usedBefore - gc.usedAfter), usedAtEnd - usedAtStart)

const exposedGc = (): Function => {
  const exposed: unknown = Reflect.get(globalThis, "gc")
  if (typeof exposed === "function") return exposed
  v8.setFlagsFromString("--expose-gc")
  const fromContext: unknown = vm.runInNewContext("gc")
  if (typeof fromContext !== "function")
    throw new Error("cannot reach the garbage collector (run node with --expose-gc)")
  return fromContext
}

const gc = exposedGc()

/**
 * A full, synchronous garbage collection. Uses `globalThis.gc` when node ran
 * with `--expose-gc`, and otherwise turns the flag on and takes `gc` from a
 * fresh context.
 *
 * @since 0.1.0
 * @category allocation
 */
export const collectGarbage = (): void => void Reflect.apply(gc, undefined, [])

/**
 * A young-generation collection (a scavenge) only.
 *
 * @since 0.1.0
 * @category allocation
 */
export const collectYoungGarbage = (): void => void Reflect.apply(gc, undefined, [{ type: "minor" }])

/**
 * The used heap after full collections, in bytes: what is still reachable.
 *
 * @since 0.1.0
 * @category allocation
 */
export const retainedHeap = (): number => {
  // Two passes: the first can leave objects whose finalizers or weak
  // references only clear in the next.
  collectGarbage()
  collectGarbage()
  return v8.getHeapStatistics().used_heap_size
}

/**
 * One sample: how long it took, what it allocated and what collecting it cost.
 *
 * @since 0.1.0
 * @category models
 */
export interface Sample {
  readonly millis: number
  readonly bytes: number
  /** User plus system CPU time of the whole process. */
  readonly cpuMicros: number
  /** Time the main thread spent in garbage collections during the sample (their pauses). */
  readonly gcMicros: number
}

/**
 * Runs `body` once as a sample: a young-generation collection first (outside
 * the timed window), then the time, the CPU time and the allocation of `body`.
 *
 * @since 0.1.0
 * @category sampling
 */
export const sample = async (body: () => Promise<unknown>): Promise<Sample> => {
  collectYoungGarbage()
  const profiler = new v8.GCProfiler()
  profiler.start()
  const usedAtStart = v8.getHeapStatistics().used_heap_size
  const cpuAtStart = process.cpuUsage()
  const start = performance.now()
  await body()
  const millis = performance.now() - start
  const cpu = process.cpuUsage(cpuAtStart)
  const usedAtEnd = v8.getHeapStatistics().used_heap_size
  const statistics = profiler.stop().statistics
  const collections = statistics.map((gc) => ({
    usedBefore: gc.beforeGC.heapStatistics.usedHeapSize,
    usedAfter: gc.afterGC.heapStatistics.usedHeapSize
  }))
  return {
    millis,
    bytes: allocatedBytes(usedAtStart, usedAtEnd, collections),
    cpuMicros: cpu.user + cpu.system,
    gcMicros: statistics.reduce((total, gc) => total + gc.cost, 0)
  }
}

/**
 * Which of `rounds` rounds a contender that takes `samples` samples runs in:
 * spread evenly, so that a contender sampled once is sampled mid-way, in the
 * same conditions as the middle of everyone else's samples.
 *
 * @since 0.1.0
 * @category interleaving
 */
export const roundsOf = (samples: number, rounds: number): ReadonlySet<number> => {
  const taken = Math.min(samples, rounds)
  return new Set(Array.from({ length: taken }, (_, k) => Math.floor(((k + 0.5) * rounds) / taken)))
}

/**
 * One round's order: every contender once, starting one further along each
 * round, so that no contender always runs right after the same other one.
 *
 * @since 0.1.0
 * @category interleaving
 */
export const orderOf = (round: number, contenders: number): ReadonlyArray<number> =>
  Array.from({ length: contenders }, (_, k) => (round + k) % contenders)

/**
 * Something measured in interleaved rounds.
 *
 * @since 0.1.0
 * @category models
 */
export interface Contender<A> {
  readonly name: string
  /** How many samples it takes; fewer than the rounds for expensive ones. */
  readonly samples: number
  readonly measure: () => Promise<A>
}

/**
 * Takes every contender's samples in `rounds` interleaved rounds, so machine
 * noise (other processes, CPU frequency) falls on all of them alike. Returns
 * the samples per contender, in the contenders' order.
 *
 * @since 0.1.0
 * @category interleaving
 */
export const interleave = async <A>(
  contenders: ReadonlyArray<Contender<A>>,
  rounds: number
): Promise<ReadonlyArray<ReadonlyArray<A>>> => {
  const taken = contenders.map((contender) => roundsOf(contender.samples, rounds))
  const samples = contenders.map((): Array<A> => [])
  for (let round = 0; round < rounds; round++)
    for (const index of orderOf(round, contenders.length)) {
      const contender = contenders[index]
      if (contender !== undefined && taken[index]?.has(round)) samples[index]?.push(await contender.measure())
    }
  return samples
}
