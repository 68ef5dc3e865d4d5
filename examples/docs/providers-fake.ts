import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"

// { url, openAiBaseUrl, requests, awaitRequests }, closed with the scope.
export const server = FakeProvider.make(
  FaultPlan.make([
    { kind: "error", status: 429, error_type: "rate_limit_error", headers: { "retry-after": "2" } },
    { kind: "stream_error", text: "partial", error_type: "overloaded_error" },
    { kind: "reply", text: "done" }
  ])
)
