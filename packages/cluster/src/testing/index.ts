/**
 * Test helpers for scale-out: a throwaway PostgreSQL cluster, and free ports.
 *
 * @since 0.1.0
 */
export * as Ports from "./Ports.js"
export * as TempPostgres from "./TempPostgres.js"
