import * as Either from "effect/Either"
import * as MetricLabel from "effect/MetricLabel"
import * as Metrics from "../Metrics.js"
import type * as KernelEvent from "../KernelEvent.js"
import type * as ModelError from "../ModelError.js"
import type * as ModelProvider from "../ModelProvider.js"
import * as Telemetry from "./telemetry.js"

/**
 * A provider's recorder of the GenAI metrics and the turn histogram. A
 * metric's tags are looked up by the identity of their array, so each
 * model's arrays are made once and kept here: a call then updates a
 * histogram without building a key. Sessions share the meter of their
 * provider's name (`forProvider`), so a new session's first call finds its
 * arrays too, rather than building and hashing new metric keys.
 *
 * @internal
 */
export interface Meter {
  readonly modelCall: (
    model: string,
    durationMs: number,
    result: Either.Either<ModelProvider.ModelResponse, ModelError.ModelError>
  ) => void
  readonly turn: (durationMs: number) => void
}

interface ModelLabels {
  readonly call: ReadonlyArray<MetricLabel.MetricLabel>
  readonly input: ReadonlyArray<MetricLabel.MetricLabel>
  readonly output: ReadonlyArray<MetricLabel.MetricLabel>
  readonly failed: Map<ModelError.Category, ReadonlyArray<MetricLabel.MetricLabel>>
}

const none: ReadonlyArray<MetricLabel.MetricLabel> = []

/**
 * The meters made so far, by provider name. They hold only tag arrays, one
 * set a model, as many as Effect's metric registry (process-wide, never
 * pruned) holds metric keys for the same names, and record nothing of their
 * own: sharing one changes no figure. Keyed by name, not by the provider
 * object, so that sessions over providers made per session share one too.
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
  const byModel = new Map<string, ModelLabels>()
  const labelsOf = (model: string): ModelLabels => {
    let labels = byModel.get(model)
    if (labels === undefined) {
      const call = [
        MetricLabel.make(Telemetry.Attr.operationName, Telemetry.Operation.chat),
        MetricLabel.make(Telemetry.Attr.providerName, provider),
        MetricLabel.make(Telemetry.Attr.requestModel, model)
      ]
      labels = {
        call,
        input: [...call, MetricLabel.make(Telemetry.Attr.tokenType, "input")],
        output: [...call, MetricLabel.make(Telemetry.Attr.tokenType, "output")],
        failed: new Map()
      }
      byModel.set(model, labels)
    }
    return labels
  }
  return {
    modelCall: (model, durationMs, result) => {
      const labels = labelsOf(model)
      if (Either.isRight(result)) {
        const { usage } = result.right
        Metrics.operationDuration.unsafeUpdate(durationMs / 1000, labels.call)
        Metrics.tokenUsage.unsafeUpdate(usage.input_tokens, labels.input)
        Metrics.tokenUsage.unsafeUpdate(usage.output_tokens, labels.output)
        return
      }
      const category = result.left.category
      let failed = labels.failed.get(category)
      if (failed === undefined) {
        failed = [...labels.call, MetricLabel.make(Telemetry.Attr.errorType, category)]
        labels.failed.set(category, failed)
      }
      Metrics.operationDuration.unsafeUpdate(durationMs / 1000, failed)
    },
    turn: (durationMs) => Metrics.turnDuration.unsafeUpdate(durationMs / 1000, none)
  }
}

/** The `status` tag of `Metrics.runs` for each status, as an array made once: see `runEnded`. */
const statusTags = new Map<KernelEvent.RunStatus, ReadonlyArray<MetricLabel.MetricLabel>>()

/**
 * Records a run's end in the kernel's counters: its turns, and one run of
 * its status, under the metric labels of the run's fiber (`labels`, what
 * `Effect.tagMetrics` sets) as `Metric.increment` would. With no such label
 * the status's tag array is one made once, found by identity: a tagged
 * counter unites its tags with the fiber's into a new array at each update,
 * whose metric key is then built and hashed again.
 *
 * @internal
 */
export const runEnded = (
  status: KernelEvent.RunStatus,
  turns: number,
  labels: ReadonlyArray<MetricLabel.MetricLabel>
): void => {
  Metrics.turns.unsafeUpdate(turns, labels)
  if (labels.length > 0) {
    Metrics.runsWithStatus(status).unsafeUpdate(1, labels)
    return
  }
  let tags = statusTags.get(status)
  if (tags === undefined) {
    tags = [MetricLabel.make("status", status)]
    statusTags.set(status, tags)
  }
  Metrics.runs.unsafeUpdate(1, tags)
}
