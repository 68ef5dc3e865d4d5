import { Session, Settings } from "@agent-kernel/kernel"
import { Anthropic } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

// Each call is bounded by the session's settings (model_*_timeout_ms); a
// provider's own `timeouts` option, if given, wins over them.
const ModelLive = Anthropic.layer().pipe(Layer.provide(NodeTransport.layer()))

export const program = Effect.gen(function* () {
  const settings = yield* Settings.decode({ model_idle_timeout_ms: 30_000 })
  const session = yield* Session.make({ model: "claude-sonnet-4-5", settings })
  return yield* session.run("Hello")
}).pipe(Effect.provide(ModelLive))
