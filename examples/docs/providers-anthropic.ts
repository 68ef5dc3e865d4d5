import { Session } from "@agent-kernel/kernel"
import { Anthropic } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const ModelLive = Anthropic.layer({ timeouts: { connect: "10 seconds", idle: "60 seconds" } }).pipe(
  Layer.provide(NodeTransport.layer())
)

export const program = Effect.gen(function* () {
  const session = yield* Session.make({ model: "claude-sonnet-4-5" })
  return yield* session.run("Hello")
}).pipe(Effect.provide(ModelLive))
