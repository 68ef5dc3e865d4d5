/**
 * The sessions whose runs execute in this process, by id: each one's state
 * as its run has it now (after the run's last completed step), which the
 * store has only once the run ends (`DurableSessions.Service.history`).
 *
 * @internal
 */
import type { Session } from "@agent-kernel/kernel"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** @internal */
export type Registry = Map<string, Effect.Effect<Session.State>>

/**
 * The registry the runs of this process note their sessions in:
 * `DurableSessions.layer` provides its own; by default, one for the process.
 *
 * @internal
 */
export const LiveSessions = Context.Reference<Registry>("@agent-kernel/durable/LiveSessions", {
  defaultValue: () => new Map()
})
