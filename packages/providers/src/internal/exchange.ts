/**
 * One request and its response, the same for every provider: encode the
 * body, open with the phased timeouts, classify a non-2xx, and decode a 2xx
 * body with the provider's decoder.
 *
 * @internal
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type { ModelError, ModelProvider } from "@agent-kernel/kernel"
import * as Effect from "effect/Effect"
import type * as Transport from "../Transport.js"
import * as Decode from "./decode.js"
import * as Http from "./http.js"

/** The request a provider sends. */
export interface Request {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

/** Sends the request and decodes the answer into a response or a classified error. */
export const exchange = <S>(
  transport: Transport.Transport["Type"],
  call: Http.Call,
  decoder: Decode.Decoder<S>,
  request: Request
): Effect.Effect<ModelProvider.ModelResponse, ModelError.ModelError> =>
  Effect.gen(function* () {
    const httpRequest = yield* HttpClientRequest.post(request.url).pipe(
      HttpClientRequest.setHeaders(request.headers),
      HttpClientRequest.bodyJson(request.body),
      Effect.mapError((error) =>
        Http.makeError(call, "invalid_request", { message: `cannot encode the request body: ${error.reason._tag}` })
      )
    )
    return yield* Effect.scoped(
      Effect.gen(function* () {
        const response = yield* Http.open(transport, httpRequest, call)
        if (response.status < 200 || response.status >= 300) {
          return yield* Effect.flip(Http.fromErrorResponse(response, call, decoder.errorFacts))
        }
        return yield* Decode.body(call, response, response.stream, decoder)
      })
    )
  })
