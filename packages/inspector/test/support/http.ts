/** The inspector on a real HTTP server, and a reader of its live stream, for the tests. */
import type { KernelEvent } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { InspectorServer } from "../../src/node/index.js"
import type { InspectorStore } from "../../src/index.js"

/** The token the tests' inspectors are started with. */
export const token = Redacted.make("test-token-0f1e2d3c4b5a69788796a5b4c3d2e1f0")

/** Starts the inspector over the store on 127.0.0.1, a free port unless given; returns its URL. */
export const serve = (
  store: Layer.Layer<InspectorStore.InspectorStore>,
  options: Partial<InspectorServer.Options> = {}
): Effect.Effect<string, never, Scope.Scope> =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      InspectorServer.layer({ token, port: 0, ...options }).pipe(Layer.provide(store))
    ).pipe(Effect.orDie)
    return yield* InspectorServer.url.pipe(Effect.provideContext(context))
  })

/** A response read whole. */
export interface Fetched {
  readonly status: number
  readonly headers: Headers
  readonly body: string
}

export const get = (url: string, init: RequestInit = {}): Effect.Effect<Fetched> =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    return { status: response.status, headers: response.headers, body: await response.text() }
  })

export const post = (url: string, headers: Record<string, string> = {}) => get(url, { method: "POST", headers })

/** One SSE message. */
export interface Message {
  readonly event: string
  readonly id: string | undefined
  readonly data: string
}

const parse = (block: string): Message | undefined => {
  let event = "message"
  let id: string | undefined
  const data: Array<string> = []
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue
    const colon = line.indexOf(":")
    const field = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "")
    if (field === "event") event = value
    else if (field === "id") id = value
    else if (field === "data") data.push(value)
  }
  return data.length === 0 ? undefined : { event, id, data: data.join("\n") }
}

/**
 * Reads the live stream until `stop` says so (then drops the connection),
 * with the given headers (`last-event-id`), returning the messages read.
 */
export const readLive = (
  url: string,
  stop: (message: Message) => boolean,
  headers: Record<string, string> = {}
): Effect.Effect<{ readonly messages: ReadonlyArray<Message>; readonly raw: string }> =>
  Effect.promise(async () => {
    const controller = new AbortController()
    const response = await fetch(url, { headers, signal: controller.signal })
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    const messages: Array<Message> = []
    let buffer = ""
    let raw = ""
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        raw += value
        buffer += value
        let end = buffer.indexOf("\n\n")
        while (end >= 0) {
          const message = parse(buffer.slice(0, end))
          buffer = buffer.slice(end + 2)
          if (message !== undefined) {
            messages.push(message)
            if (stop(message)) return { messages, raw }
          }
          end = buffer.indexOf("\n\n")
        }
      }
      return { messages, raw }
    } finally {
      controller.abort()
    }
  })

/** The kernel events of messages, with their ids. */
export const kernelEvents = (
  messages: ReadonlyArray<Message>
): ReadonlyArray<{ readonly seq: number; readonly event: KernelEvent.KernelEvent }> =>
  messages.flatMap((message) =>
    message.event === "kernel" ? [{ seq: Number(message.id), event: JSON.parse(message.data) }] : []
  )
