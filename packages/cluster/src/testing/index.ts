/**
 * Test helpers for scale-out: a throwaway PostgreSQL cluster.
 *
 * @since 0.1.0
 */
export * as TempPostgres from "./TempPostgres.js"
