/**
 * Free TCP ports for tests and local runs: a port the OS picked for a
 * listener on 127.0.0.1 that is closed again at once.
 *
 * @example
 * ```ts
 * import { Ports } from "@agent-kernel/cluster/testing"
 * import * as Effect from "effect/Effect"
 *
 * const program = Effect.gen(function* () {
 *   const port = yield* Ports.free
 *   console.log(`listen on ${port}`)
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Net from "node:net"

/**
 * No port could be had: the listener that asks the OS for one failed.
 *
 * @since 0.1.0
 * @category errors
 */
export class PortError extends Data.TaggedError("PortError")<{ readonly message: string }> {}

/**
 * A port of 127.0.0.1 that was free a moment ago (another process may take
 * it before it is used). The listener is closed whatever happens,
 * interruption included.
 *
 * @since 0.1.0
 * @category constructors
 */
export const free: Effect.Effect<number, PortError> = Effect.callback((resume) => {
  const server = Net.createServer()
  server.once("error", (error) => resume(Effect.fail(new PortError({ message: error.message }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
  return Effect.sync(() => {
    if (server.listening) server.close()
  })
})
