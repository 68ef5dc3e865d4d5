/**
 * The CLI's durable sessions, imported only by `--session` and `agent sessions`: the store's
 * SQLite (a native module) is then loaded only by a command that keeps a session, so every other
 * command starts without it, and a bundle copied without its native module still runs.
 */
export { DurableSessions, Engine } from "@agent-kernel/durable"
