/**
 * Test helpers for scale-out: a throwaway PostgreSQL cluster, free ports,
 * and the laws of an adaptive rate to check your own policy with.
 *
 * @since 0.1.0
 */
export * as Ports from "./Ports.js"
export * as RateLaws from "./RateLaws.js"
export * as TempPostgres from "./TempPostgres.js"
