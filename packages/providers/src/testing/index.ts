/**
 * Test helpers for code that talks to model providers: a fake provider
 * server on 127.0.0.1 that speaks both wire formats and follows a fault plan,
 * the plan schema, and bundled chaos plans. Not part of the production entry
 * point.
 *
 * @since 0.2.0
 */
export * as ChaosPlans from "./ChaosPlans.js"
export * as FakeProvider from "./FakeProvider.js"
export * as FaultPlan from "./FaultPlan.js"
