import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as InspectorStore from "../InspectorStore.js"

/**
 * The store as the pages see it: every value it returns with the secrets
 * scrubbed, so no page or response can carry one. (Error messages are
 * scrubbed where they are shown.)
 *
 * @internal
 */
export const scrubbed = (store: InspectorStore.Service, scrub: <A>(value: A) => A): InspectorStore.Service => ({
  sessions: (query) => Effect.map(store.sessions(query), scrub),
  session: (id) => Effect.map(store.session(id), scrub),
  history: (id) => Effect.map(store.history(id), scrub),
  events: (id, query) => Effect.map(store.events(id, query), scrub),
  follow: (id, after) => Stream.map(store.follow(id, after), scrub),
  resume: store.resume,
  interrupt: store.interrupt
})
