/**
 * The kernel's metrics, updated by the loop. Read them with `Metric.value`, or
 * export them with @effect/opentelemetry.
 *
 * @since 0.1.0
 */
import * as Metric from "effect/Metric"
import * as KernelEvent from "./KernelEvent.js"
import * as ModelError from "./ModelError.js"

/**
 * Retries scheduled, tagged by `category`.
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
 * Runs ended, tagged by `status`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const runs = Metric.counter("agent_kernel_runs_total", {
  description: "Runs ended, by status",
  incremental: true
})

const runsTagged: ReadonlyMap<KernelEvent.RunStatus, Metric.Metric.Counter<number>> = new Map(
  KernelEvent.RunStatus.literals.map((status) => [status, Metric.tagged(runs, "status", status)] as const)
)

const retriesTagged: ReadonlyMap<ModelError.Category, Metric.Metric.Counter<number>> = new Map(
  ModelError.Category.literals.map((category) => [category, Metric.tagged(retries, "category", category)] as const)
)

/**
 * `runs` tagged with a status. The tagged counters are made once: tagging a
 * metric makes a new key each time, which a loop that ends a run every few
 * steps should not pay for.
 *
 * @since 0.2.0
 * @category metrics
 */
export const runsWithStatus = (status: KernelEvent.RunStatus): Metric.Metric.Counter<number> =>
  runsTagged.get(status) ?? Metric.tagged(runs, "status", status)

/**
 * `retries` tagged with an error category, made once.
 *
 * @since 0.2.0
 * @category metrics
 */
export const retriesOfCategory = (category: ModelError.Category): Metric.Metric.Counter<number> =>
  retriesTagged.get(category) ?? Metric.tagged(retries, "category", category)
