/**
 * The kernel's metrics, updated by the loop. Read them with `Metric.value`, or
 * export them with @effect/opentelemetry.
 *
 * @since 0.1.0
 */
import * as Metric from "effect/Metric"

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
