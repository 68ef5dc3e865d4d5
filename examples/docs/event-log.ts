import { Engine, EventLog } from "@agent-kernel/durable"
import { Effect, Stream } from "effect"

const store = Engine.layerSqliteStore("agent.db")
// A page of a session's events, without its text deltas.
const page = EventLog.events("support-42", { after: 0, limit: 100, omitDeltas: true })
// Its runs as the log tells them: run id, input, status (null while unfinished), first and last seq.
const runs = EventLog.runs("support-42")
// Every event after seq 12, then each new one as it is logged, by this process or another.
const live = EventLog.follow("support-42", { after: 12 }).pipe(
  Stream.takeUntil((logged) => logged.event.type === "run_ended"),
  Stream.runForEach((logged) => Effect.log(logged.seq, logged.event.type))
)
// The three in turn; the follow ends at the next run_ended.
Effect.runPromise(Effect.provide(Effect.all([page, runs, live]), store))
