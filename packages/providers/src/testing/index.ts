/**
 * Test helpers for providers and for apps built on them: a fake provider
 * server on 127.0.0.1 that speaks both wire formats, its fault plans, and the
 * bundled chaos plans.
 *
 * @since 0.1.0
 */

/**
 * Bundled fault plans, one per recovery path.
 *
 * @since 0.1.0
 */
export * as ChaosPlans from "../ChaosPlans.js"

/**
 * A real HTTP server that follows a fault plan.
 *
 * @since 0.1.0
 */
export * as FakeProvider from "../FakeProvider.js"

/**
 * The steps a fake provider follows.
 *
 * @since 0.1.0
 */
export * as FaultPlan from "../FaultPlan.js"
