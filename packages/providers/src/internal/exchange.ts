/**
 * One request and its response, the same for every provider: encode the
 * body, open with the phased timeouts, classify a non-2xx, and decode a 2xx
 * body with the provider's decoder into a stream of response parts.
 *
 * @internal
 */
import type { ModelError, ResponsePart } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Stream from "effect/Stream"
import type * as Transport from "../Transport.js"
import * as Decode from "./decode.js"
import * as Http from "./http.js"

/** The request a provider sends. */
export interface Request {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

/**
 * Sends the request and streams the answer's parts as they arrive, or fails
 * with a classified error. The connection lives as long as the stream: it is
 * released when the stream ends, fails or is interrupted.
 */
export const exchange = <S>(
  transport: Transport.Service,
  call: Http.Call,
  decoder: Decode.Decoder<S>,
  request: Request
): Stream.Stream<ResponsePart.ResponsePart, ModelError.ModelError> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const httpRequest = yield* HttpClientRequest.post(request.url).pipe(
        HttpClientRequest.setHeaders(request.headers),
        HttpClientRequest.bodyJson(request.body),
        Effect.mapError((error) =>
          Http.makeError(call, "invalid_request", { message: `cannot encode the request body: ${error.reason._tag}` })
        )
      )
      const response = yield* Http.open(transport, httpRequest, call)
      if (response.status < 200 || response.status >= 300) {
        return yield* Effect.flip(Http.fromErrorResponse(response, call, decoder.errorFacts))
      }
      return Decode.body(call, response, response.stream, decoder)
    })
  )
