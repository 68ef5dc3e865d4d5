/**
 * The inspector's server on Node.
 *
 * @since 0.1.0
 */
export * as InspectorServer from "./InspectorServer.js"
