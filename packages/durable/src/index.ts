/**
 * @since 0.1.0
 */
export * as AgentRun from "./AgentRun.js"

/**
 * @since 0.1.0
 */
export * as DurableSessions from "./DurableSessions.js"

/**
 * @since 0.1.0
 */
export * as Engine from "./Engine.js"
