/**
 * Test support: an in-memory `InspectorStore` over real kernel sessions.
 * Not part of the production entry point.
 *
 * @since 0.1.0
 */
export * as MemoryStore from "./MemoryStore.js"
