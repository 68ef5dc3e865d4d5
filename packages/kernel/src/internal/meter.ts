import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import type * as Result from "effect/Result"
import type * as KernelEvent from "../KernelEvent.js"
import type * as ModelError from "../ModelError.js"
import * as Metrics from "../Metrics.js"
import type * as ModelProvider from "../ModelProvider.js"
import * as Telemetry from "./telemetry.js"

/**
 * A provider's recorder of the GenAI metrics: each model's histograms are
 * made once, with their attributes, and kept, so a call updates its series
 * with no metric of its own. Sessions share the meter of their provider's
 * name (`forProvider`).
 *
 * @internal
 */
export interface Meter {
  readonly modelCall: (
    model: string,
    durationMs: number,
    result: Result.Result<ModelProvider.ModelResponse, ModelError.ModelError>
  ) => Effect.Effect<void>
}

interface ModelMetrics {
  readonly duration: Metric.Histogram<number>
  readonly input: Metric.Histogram<number>
  readonly output: Metric.Histogram<number>
  readonly failed: Map<ModelError.Category, Metric.Histogram<number>>
}

/**
 * The meters made so far, by provider name: they hold only histograms, as
 * many as Effect's metric registry keeps series for the same attributes, and
 * record nothing of their own.
 */
const meters = new Map<string, Meter>()

/**
 * The meter of the provider named `provider`, shared by every session of
 * that name.
 *
 * @internal
 */
export const forProvider = (provider: string): Meter => {
  let meter = meters.get(provider)
  if (meter === undefined) {
    meter = make(provider)
    meters.set(provider, meter)
  }
  return meter
}

const make = (provider: string): Meter => {
  const byModel = new Map<string, ModelMetrics>()
  const callOf = (model: string) => ({
    [Telemetry.Attr.operationName]: Telemetry.Operation.chat,
    [Telemetry.Attr.providerName]: provider,
    [Telemetry.Attr.requestModel]: model
  })
  const metricsOf = (model: string): ModelMetrics => {
    let metrics = byModel.get(model)
    if (metrics === undefined) {
      const call = callOf(model)
      metrics = {
        duration: Metrics.operationDurationWith(call),
        input: Metrics.tokenUsageWith({ ...call, [Telemetry.Attr.tokenType]: "input" }),
        output: Metrics.tokenUsageWith({ ...call, [Telemetry.Attr.tokenType]: "output" }),
        failed: new Map()
      }
      byModel.set(model, metrics)
    }
    return metrics
  }
  const failedOf = (model: string, category: ModelError.Category) => {
    const metrics = metricsOf(model)
    let failed = metrics.failed.get(category)
    if (failed === undefined) {
      failed = Metrics.operationDurationWith({ ...callOf(model), [Telemetry.Attr.errorType]: category })
      metrics.failed.set(category, failed)
    }
    return failed
  }
  return {
    modelCall: (model, durationMs, result) => {
      if (result._tag === "Failure") return Metric.update(failedOf(model, result.failure.category), durationMs / 1000)
      const { usage } = result.success
      const metrics = metricsOf(model)
      // The call's three series, under the metric attributes of the fiber, as `Metric.update` reads them.
      return Effect.contextWith((context) => {
        metrics.duration.updateUnsafe(durationMs / 1000, context)
        metrics.input.updateUnsafe(usage.input_tokens, context)
        metrics.output.updateUnsafe(usage.output_tokens, context)
        return Effect.void
      })
    }
  }
}

/** Records a turn's duration, under the metric attributes of the fiber. @internal */
export const turn = (durationMs: number): Effect.Effect<void> =>
  Effect.contextWith((context) => {
    Metrics.turnDuration.updateUnsafe(durationMs / 1000, context)
    return Effect.void
  })

/**
 * Records a run's end in the kernel's counters: its turns, and one run of
 * its status, under the metric attributes of the run's fiber.
 *
 * @internal
 */
export const runEnded = (status: KernelEvent.RunStatus, turns: number): Effect.Effect<void> =>
  Effect.andThen(Metric.update(Metrics.turns, turns), Metric.update(Metrics.runsWithStatus(status), 1))

/** Counts a retry of its error's category. @internal */
export const retried = (category: ModelError.Category): Effect.Effect<void> =>
  Metric.update(Metrics.retriesOfCategory(category), 1)
