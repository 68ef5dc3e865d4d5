import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as InspectorStore from "../InspectorStore.js"

type Scrub = <A>(value: A) => A

const scrubError =
  (scrub: Scrub) =>
  <E extends InspectorStore.SessionNotFound | InspectorStore.StoreUnavailable | InspectorStore.ActionRefused>(
    error: E
  ): E => {
    switch (error._tag) {
      case "StoreUnavailable":
        return new InspectorStore.StoreUnavailable({ message: scrub(error.message) }) as E
      case "ActionRefused":
        return new InspectorStore.ActionRefused({
          session_id: scrub(error.session_id),
          action: error.action,
          reason: scrub(error.reason)
        }) as E
      default:
        return new InspectorStore.SessionNotFound({ session_id: scrub(error.session_id) }) as E
    }
  }

/**
 * The store as the pages see it: every value and error it returns with the
 * secrets scrubbed, so no page or response can carry one.
 *
 * @internal
 */
export const scrubbed = (store: InspectorStore.Service, scrub: Scrub): InspectorStore.Service => {
  const error = scrubError(scrub)
  return {
    sessions: (query) => store.sessions(query).pipe(Effect.map(scrub), Effect.mapError(error)),
    session: (id) => store.session(id).pipe(Effect.map(scrub), Effect.mapError(error)),
    history: (id) => store.history(id).pipe(Effect.map(scrub), Effect.mapError(error)),
    events: (id, query) => store.events(id, query).pipe(Effect.map(scrub), Effect.mapError(error)),
    follow: (id, after) => store.follow(id, after).pipe(Stream.map(scrub), Stream.mapError(error)),
    resume: (id) => Effect.mapError(store.resume(id), error),
    interrupt: (id) => Effect.mapError(store.interrupt(id), error)
  }
}
