/**
 * The kernel's metrics, updated by the loop. Read them with `Metric.value`, or
 * export them with @effect/opentelemetry. The model calls' token usage and
 * duration carry the OpenTelemetry GenAI metric names
 * (`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`) and tags;
 * what the conventions do not name (retries, runs, turns) is the kernel's own.
 *
 * @since 0.1.0
 */
import * as Metric from "effect/Metric"
import * as KernelEvent from "./KernelEvent.js"
import * as ModelError from "./ModelError.js"

/**
 * Retries scheduled, with the attribute `category`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const retries = Metric.counter("agent_kernel_retries_total", {
  description: "Model-call retries scheduled, by error category",
  incremental: true
})

/**
 * Turns started.
 *
 * @since 0.1.0
 * @category metrics
 */
export const turns = Metric.counter("agent_kernel_turns_total", {
  description: "Turns started",
  incremental: true
})

/**
 * Runs ended, with the attribute `status`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const runs = Metric.counter("agent_kernel_runs_total", {
  description: "Runs ended, by status",
  incremental: true
})

// One attributed counter per value, made once: attributing a metric makes a new one each time.
const runsTagged: ReadonlyMap<KernelEvent.RunStatus, Metric.Counter<number>> = new Map(
  KernelEvent.RunStatus.literals.map((status) => [status, Metric.withAttributes(runs, { status })] as const)
)

const retriesTagged: ReadonlyMap<ModelError.Category, Metric.Counter<number>> = new Map(
  ModelError.Category.literals.map((category) => [category, Metric.withAttributes(retries, { category })] as const)
)

/**
 * `runs` with the attribute `status`.
 *
 * @since 0.2.0
 * @category metrics
 */
export const runsWithStatus = (status: KernelEvent.RunStatus): Metric.Counter<number> =>
  runsTagged.get(status) ?? Metric.withAttributes(runs, { status })

/**
 * `retries` with the attribute `category`.
 *
 * @since 0.2.0
 * @category metrics
 */
export const retriesOfCategory = (category: ModelError.Category): Metric.Counter<number> =>
  retriesTagged.get(category) ?? Metric.withAttributes(retries, { category })

const tokenUsageOptions = {
  description: "Number of input and output tokens used, per model call",
  boundaries: Metric.boundariesFromIterable([
    1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864
  ])
}

const operationDurationOptions = {
  description: "Duration of each model call attempt, in seconds",
  boundaries: Metric.boundariesFromIterable([
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92
  ])
}

/**
 * Tokens used by each model call, with the attributes `gen_ai.token.type`
 * (`input` or `output`), `gen_ai.operation.name`, `gen_ai.provider.name` and
 * `gen_ai.request.model`, and the boundaries the GenAI conventions advise.
 *
 * @since 0.3.0
 * @category metrics
 */
export const tokenUsage = Metric.histogram("gen_ai.client.token.usage", tokenUsageOptions)

/**
 * `tokenUsage` with these attributes, given when it is made: one series,
 * where `Metric.withAttributes` over the shared histogram would work out its
 * series again at every update that changes the attributes.
 *
 * @example
 * ```ts
 * import { Metrics } from "@agent-kernel/kernel"
 * import { Metric } from "effect"
 *
 * const input = Metrics.tokenUsageWith({ "gen_ai.token.type": "input", "gen_ai.request.model": "m" })
 * const record = Metric.update(input, 120)
 * ```
 *
 * @since 0.4.0
 * @category metrics
 */
export const tokenUsageWith = (attributes: Metric.Metric.Attributes): Metric.Histogram<number> =>
  Metric.histogram("gen_ai.client.token.usage", { ...tokenUsageOptions, attributes })

/**
 * The duration of each model call attempt in seconds, with the attributes
 * of `tokenUsage` (without the token type) and, for a failed attempt,
 * `error.type` (the error's category).
 *
 * @since 0.3.0
 * @category metrics
 */
export const operationDuration = Metric.histogram("gen_ai.client.operation.duration", operationDurationOptions)

/**
 * `operationDuration` with these attributes, given when it is made (see
 * `tokenUsageWith`).
 *
 * @since 0.4.0
 * @category metrics
 */
export const operationDurationWith = (attributes: Metric.Metric.Attributes): Metric.Histogram<number> =>
  Metric.histogram("gen_ai.client.operation.duration", { ...operationDurationOptions, attributes })

/**
 * The duration of each turn that ends normally (its model call with every
 * retry, and its tool calls), in seconds.
 *
 * @since 0.3.0
 * @category metrics
 */
export const turnDuration = Metric.histogram("agent_kernel.turn.duration", {
  description: "Duration of each turn, model call and tools, in seconds",
  boundaries: operationDurationOptions.boundaries
})
