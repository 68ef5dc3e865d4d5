/**
 * The last agent-kernel on Effect 3, as the benchmark's baseline: the bundle
 * in `bench/baseline/effect3-kernel.mjs` (with its own effect 3.22 inside),
 * loaded beside the current kernel so that both run the same scenario
 * (`KernelLoop.ts`, as it was on Effect 3) in one process and one run.
 *
 * @since 0.1.0
 */

/**
 * Options of one run, as the bundle's `KernelLoop` takes them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Attach one observer to the event bus (spans go to Effect 3's default tracer either way). */
  readonly observed: boolean
  /** How long each model call sleeps on the live clock; 0 answers at once. */
  readonly latencyMs?: number | undefined
}

/**
 * What the bundle exports.
 *
 * @since 0.1.0
 * @category models
 */
export interface Effect3Kernel {
  /** One run of `steps` tool steps in a new session. */
  readonly run: (steps: number, options: Options) => Promise<unknown>
  /** `sessions` such runs, all at once. */
  readonly runMany: (sessions: number, steps: number, options: Options) => Promise<unknown>
}

const bundle = new URL("../baseline/effect3-kernel.mjs", import.meta.url).href

const functionOf = (module: unknown, name: string): Function => {
  const value: unknown = typeof module === "object" && module !== null ? Reflect.get(module, name) : undefined
  if (typeof value !== "function") throw new Error(`${bundle} exports no function ${name}`)
  return value
}

const asPromise = (value: unknown): Promise<unknown> => Promise.resolve(value)

let loaded: Promise<Effect3Kernel> | undefined

/**
 * Loads the bundle once (later calls return the same module).
 *
 * @since 0.1.0
 * @category loading
 */
export const load = (): Promise<Effect3Kernel> => {
  loaded ??= import(bundle).then((module: unknown): Effect3Kernel => {
    const run = functionOf(module, "run")
    const runMany = functionOf(module, "runMany")
    return {
      run: (steps, options) => asPromise(Reflect.apply(run, undefined, [steps, options])),
      runMany: (sessions, steps, options) => asPromise(Reflect.apply(runMany, undefined, [sessions, steps, options]))
    }
  })
  return loaded
}
