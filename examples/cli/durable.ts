/**
 * The CLI's durable sessions, imported only by `--session` and `agent sessions`: the store and its
 * engine are then loaded only by a command that keeps a session, so every other command starts
 * without them.
 */
export { DurableSessions, Engine } from "@agent-kernel/durable"
