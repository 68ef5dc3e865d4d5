/**
 * The service's API as its tests call it: a prompt posted over real HTTP,
 * and the lines of its answer.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Api from "./Api.js"

/**
 * The request got no complete answer: the runner refused the connection
 * (`unreachable`: nothing was sent, the prompt was not taken), or the
 * connection ended before the answer did (`cut`: the prompt may have been
 * taken; what arrived before is in `text`).
 *
 * @since 0.1.0
 * @category errors
 */
export class ApiClientError extends Data.TaggedError("ApiClientError")<{
  readonly kind: "unreachable" | "cut"
  readonly message: string
  readonly text: string
}> {}

/**
 * A complete answer: its status, its content type and its body.
 *
 * @since 0.1.0
 * @category models
 */
export interface Answer {
  readonly status: number
  readonly type: string | null
  readonly text: string
}

/**
 * POSTs `body` as the prompt of the session `id` to the runner at `base`
 * (`http://127.0.0.1:PORT`) and reads the whole answer.
 *
 * @since 0.1.0
 * @category requests
 */
export const post = (base: string, id: string, body: string): Effect.Effect<Answer, ApiClientError> =>
  Effect.gen(function* () {
    const response = yield* Effect.tryPromise({
      try: (signal) =>
        fetch(`${base}/sessions/${id}/prompt`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          signal
        }),
      catch: (error) =>
        new ApiClientError({ kind: refused(error) ? "unreachable" : "cut", message: String(error), text: "" })
    })
    // The body as it arrives, so that an answer cut off keeps what came before the cut.
    let text = ""
    const decoder = new TextDecoder()
    yield* Effect.tryPromise({
      try: async () => {
        for await (const chunk of response.body ?? []) text += decoder.decode(chunk, { stream: true })
      },
      catch: (error) => new ApiClientError({ kind: "cut", message: String(error), text })
    })
    return { status: response.status, type: response.headers.get("content-type"), text }
  })

/**
 * The lines of an answer's body, decoded.
 *
 * @since 0.1.0
 * @category decoding
 */
export const lines = (text: string): Effect.Effect<ReadonlyArray<typeof Api.Line.Type>, Schema.SchemaError> =>
  Effect.forEach(text.trimEnd().split("\n"), (line) => decodeLine(line))

const decodeLine = Schema.decodeUnknownEffect(Schema.fromJsonString(Api.Line))

/** Whether fetch failed because the connection was refused (undici puts the socket's error in `cause`). */
const refused = (error: unknown): boolean =>
  error instanceof Error &&
  typeof error.cause === "object" &&
  error.cause !== null &&
  "code" in error.cause &&
  error.cause.code === "ECONNREFUSED"
