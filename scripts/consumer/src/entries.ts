/**
 * Every public entry of the packages, so that the consumer check's `tsc
 * --noEmit` reads all of their declarations under the app's strict flags,
 * not only those main.ts reaches.
 */
export * as Ai from "@agent-kernel/ai"
export * as AiToolkitProvider from "@agent-kernel/ai/ToolkitProvider"
export * as Cluster from "@agent-kernel/cluster"
export * as ClusterTesting from "@agent-kernel/cluster/testing"
export * as Durable from "@agent-kernel/durable"
export * as Kernel from "@agent-kernel/kernel"
export * as KernelTesting from "@agent-kernel/kernel/testing"
export * as Plugins from "@agent-kernel/plugins"
export * as PluginsNode from "@agent-kernel/plugins/node"
export * as Providers from "@agent-kernel/providers"
export * as ProvidersNode from "@agent-kernel/providers/node"
export * as ProvidersTesting from "@agent-kernel/providers/testing"
