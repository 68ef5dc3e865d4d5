import * as Either from "effect/Either"
import * as MetricLabel from "effect/MetricLabel"
import * as Metrics from "../Metrics.js"
import type * as ModelError from "../ModelError.js"
import type * as ModelProvider from "../ModelProvider.js"
import * as Telemetry from "./telemetry.js"

/**
 * A session's recorder of the GenAI metrics and the turn histogram. A
 * metric's tags are looked up by the identity of their array, so each
 * model's arrays are made once and kept here, for the life of the session:
 * a call then updates a histogram without building a key.
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

/** @internal */
export const make = (provider: string): Meter => {
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
