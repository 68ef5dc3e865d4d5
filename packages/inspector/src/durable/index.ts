/**
 * The inspector over the durable session store (`@agent-kernel/durable`, an
 * optional peer): the embedded SQLite store and Postgres.
 *
 * @since 0.1.0
 */
export * as DurableStore from "./DurableStore.js"
