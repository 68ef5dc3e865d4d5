import { DurableSessions, Engine } from "@agent-kernel/durable"
import { ModelProvider } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

// Any provider; the sample's answers at once.
const provider = ModelProvider.fromGenerate("sample", (request) =>
  Effect.succeed({
    model: request.model,
    content: [{ type: "text" as const, text: "Noted." }],
    stop_reason: "end_turn" as const,
    usage: { input_tokens: 1, output_tokens: 1 }
  })
)

export const program = Effect.gen(function* () {
  const sessions = yield* DurableSessions.DurableSessions
  // A run a crash interrupted is finished from its journal first (None when there is none).
  yield* sessions.resume("support-42")
  const outcome = yield* sessions.run("support-42", "Remember that the deploy is on Friday.")
  const listed = yield* sessions.list // id, last status, runs, retries_used, messages
  const exported = yield* sessions.exportJson("support-42") // Schema-encoded, portable between stores
  return { status: outcome.status, sessions: listed.length, bytes: exported.length }
})

// The embedded store is a SQLite file (Engine.layerSqlite("agent.db")); Engine.layerSql() runs the
// same engine over any SqlClient (Postgres: @effect/sql-pg), Engine.layerMemory keeps nothing.
export const live = (engine: Layer.Layer<Engine.Engine, Engine.StoreError>) =>
  DurableSessions.layer({ model: "claude-sonnet-4-5", idempotentTools: ["read_file"] }).pipe(
    Layer.provideMerge(engine),
    Layer.provide(Layer.succeed(ModelProvider.ModelProvider, provider))
  )

export const main = Effect.provide(program, live(Engine.layerMemory))
