/**
 * A TCP proxy between the browser and the inspector, whose connections the
 * test can cut: a dropped connection, as a flaky network drops it.
 */
import * as Net from "node:net"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

export interface Proxy {
  readonly url: string
  /** Cuts every open connection, both ways. */
  readonly dropAll: Effect.Effect<number>
}

/** A proxy to `target` (`http://host:port`) on a free port of 127.0.0.1. */
export const make = (target: string): Effect.Effect<Proxy, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ server: Net.Server; sockets: Set<Net.Socket> }>((resolve) => {
          const { hostname, port } = new URL(target)
          const sockets = new Set<Net.Socket>()
          const server = Net.createServer((client) => {
            const upstream = Net.connect(Number(port), hostname)
            for (const socket of [client, upstream]) {
              sockets.add(socket)
              socket.on("close", () => sockets.delete(socket))
              socket.on("error", () => {
                client.destroy()
                upstream.destroy()
              })
            }
            client.pipe(upstream)
            upstream.pipe(client)
          })
          server.listen(0, "127.0.0.1", () => resolve({ server, sockets }))
        })
    ),
    ({ server, sockets }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => resolve())
          })
      )
  ).pipe(
    Effect.map(({ server, sockets }) => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      return {
        url: `http://127.0.0.1:${port}`,
        dropAll: Effect.sync(() => {
          const count = sockets.size
          for (const socket of sockets) socket.destroy()
          return count
        })
      }
    })
  )
