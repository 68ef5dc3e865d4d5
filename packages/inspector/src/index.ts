/**
 * @agent-kernel/inspector: a run inspector in the browser, on effect/http.
 *
 * @since 0.1.0
 */
export * as ActionToken from "./ActionToken.js"
export * as Inspector from "./Inspector.js"
export * as InspectorStore from "./InspectorStore.js"
export * as Runs from "./Runs.js"
export * as Secrets from "./Secrets.js"
export * as Timeline from "./Timeline.js"
