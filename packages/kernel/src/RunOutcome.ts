/**
 * The result of one run: how it ended and its figures.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Content from "./Content.js"
import * as KernelEvent from "./KernelEvent.js"
import * as ModelError from "./ModelError.js"
import * as Usage from "./Usage.js"

/**
 * The outcome Schema, so outcomes encode to JSON with their history.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RunOutcome = Schema.Struct({
  run_id: Schema.String,
  status: KernelEvent.RunStatus,
  /** The error that ended the run, if one did. */
  error: Schema.optional(ModelError.ModelError),
  /** Turns started in this run (retries never advance it). */
  turns: Schema.Number,
  retries: KernelEvent.RetryCounts,
  usage: Usage.Usage,
  /** `null` when no call of the run had a price. */
  cost_usd: Schema.NullOr(Schema.Number),
  wall_ms: Schema.Number,
  context_reductions: Schema.Number,
  /** The model's last text. */
  final_text: Schema.String,
  /** The session's full history after the run (never reduced). */
  history: Content.History
})

/**
 * @since 0.1.0
 * @category models
 */
export interface RunOutcome extends Schema.Schema.Type<typeof RunOutcome> {}

/**
 * @since 0.1.0
 * @category models
 */
export type RunStatus = KernelEvent.RunStatus

/**
 * Every status, in the order the docs list them.
 *
 * @since 0.1.0
 * @category constants
 */
export const statuses: ReadonlyArray<RunStatus> = KernelEvent.RunStatus.literals
