import { ActionToken, type InspectorStore, Secrets } from "@agent-kernel/inspector"
import { InspectorServer } from "@agent-kernel/inspector/node"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

// The inspector alone, as `agent ui` runs it: 127.0.0.1, a new token printed
// at start-up, every secret of the environment kept out of the pages.
export const ui = (store: Layer.Layer<InspectorStore.InspectorStore>, port = InspectorServer.defaultPort) =>
  Effect.gen(function* () {
    const token = yield* ActionToken.make
    const server = InspectorServer.layer({ token, port, secrets: Secrets.fromEnvironment(process.env) })
    return yield* Effect.gen(function* () {
      yield* Console.log(yield* InspectorServer.banner(token))
      return yield* Effect.never
    }).pipe(Effect.provide(server.pipe(Layer.provide(store))))
  })
