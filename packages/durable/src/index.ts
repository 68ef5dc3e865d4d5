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

/**
 * @since 0.5.0
 */
export * as EventLog from "./EventLog.js"

/**
 * @since 0.2.0
 */
export * as SqlEngine from "./SqlEngine.js"

/**
 * @since 0.5.0
 */
export * as DurableAgent from "./DurableAgent.js"
