/**
 * Test helpers for the kernel and for policies built on it.
 *
 * @since 0.1.0
 */
export * as Arbitraries from "./Arbitraries.js"
export * as ScriptedModel from "./ScriptedModel.js"
export * as TestClockDriver from "./TestClockDriver.js"
export * as Simulator from "./Simulator.js"
export * as Laws from "./Laws.js"
export * as RecordedRun from "./RecordedRun.js"
export * as Capacity from "./Capacity.js"
export * as PolicyComparison from "./PolicyComparison.js"
