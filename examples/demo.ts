/**
 * A tour of the kernel's recovery paths against a scripted model, in real
 * time. Each scenario prints the kernel's own events as they happen.
 *
 * Run: npx -y pnpm@12.4.2 demo
 */
import { Content, EventBus, type KernelEvent, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as Effect from "effect/Effect"

const describe = (event: KernelEvent.KernelEvent): string | undefined => {
  switch (event.type) {
    case "turn_started":
      return `turn ${event.turn}`
    case "model_request":
      return `  → ${event.model} (attempt ${event.attempt}, ~${event.estimated_tokens} tokens)`
    case "retry_scheduled":
      return `  ↻ ${event.category}: retry ${event.attempt} in ${Math.round(event.delay_ms)} ms${
        event.source === "retry_after" ? " (server's retry-after)" : ""
      }, session retries used ${event.session_retries_used}`
    case "fallback":
      return `  ⇢ fallback ${event.from} → ${event.to} after ${event.category}`
    case "context_reduced":
      return `  ✂ context reduced ${event.before} → ${event.after} tokens (target ${event.target})`
    case "content_filtered":
      return `  ⚠ content filtered; partial text kept: "${event.partial_text}"`
    case "tool_call_started":
      return `  ⚙ ${event.name} …`
    case "tool_result":
      return `  ${event.is_error ? "✗" : "✓"} ${event.name} (${event.duration_ms} ms): ${event.preview.replace(/\s+/g, " ").slice(0, 80)}`
    case "run_ended":
      return `⇒ ${event.status}: ${event.turns} turns, retries max/call ${event.retries.max_per_call}, session ${
        event.retries.session_total
      }, ${event.wall_ms} ms${event.error ? ` — ${event.error.category}: ${event.error.message}` : ""}`
    default:
      return undefined
  }
}

const printer: EventBus.Observer = {
  onEvent: (event) => {
    const line = describe(event)
    return line === undefined ? Effect.void : Effect.sync(() => console.log(line))
  }
}

const tools: Toolbox.Toolbox["Type"] = {
  definitions: Effect.succeed([{ name: "read_file", description: "Read a file", input_schema: { type: "object" } }]),
  invoke: (call) =>
    Effect.succeed(
      (call.input as { path?: string }).path === "crash"
        ? Content.toolResult(call.id, 'Tool provider "files" crashed (signal SIGKILL). stderr: out of memory', true)
        : Content.toolResult(call.id, "# agent-kernel\nThe turn loop of an LLM agent.")
    )
}

const settings: Settings.Settings = { ...Settings.defaults, base_delay_ms: 200, max_session_retries: 6 }

const scenario = (
  title: string,
  script: ReadonlyArray<ScriptedModel.Step>,
  overrides: Partial<Settings.Settings> = {}
) =>
  Effect.gen(function* () {
    console.log(`\n━━ ${title}`)
    const model = yield* ScriptedModel.make(script)
    const bus = yield* EventBus.make([printer])
    const history = Array.from({ length: 6 }, (_, i) => Content.userText(`earlier message ${i} ${"·".repeat(400)}`))
    const session = yield* Session.make({
      model: "demo-model",
      settings: { ...settings, ...overrides },
      history
    }).pipe(
      Effect.provide(model.layer),
      Effect.provideService(EventBus.EventBus, bus),
      Effect.provideService(Toolbox.Toolbox, tools)
    )
    yield* session.run("Summarise README.md")
  })

const program = Effect.gen(function* () {
  yield* scenario("rate limited, with the server's retry-after honoured", [
    ScriptedModel.rateLimited({ retryAfterMs: 1_000 }),
    ScriptedModel.toolCalls({ id: "t1", name: "read_file", input: { path: "README.md" } }),
    ScriptedModel.text("It is the turn loop of an LLM agent.")
  ])
  yield* scenario(
    "an overload storm exhausts the session's retry budget before any call's own cap",
    Array.from({ length: 12 }, () => ScriptedModel.error("overloaded", { status: 529 })),
    { max_session_retries: 3 }
  )
  yield* scenario(
    "overloaded, then fallback to the next model in the chain",
    [
      ScriptedModel.error("overloaded"),
      ScriptedModel.error("overloaded"),
      ScriptedModel.error("overloaded"),
      ScriptedModel.text("Answered by the fallback model.")
    ],
    { max_retries: 2, fallback_models: ["demo-fallback"] }
  )
  yield* scenario("context overflow is reduced, never re-sent", [
    ScriptedModel.contextOverflow(210_000, 200_000),
    ScriptedModel.text("Fits after reduction.")
  ])
  yield* scenario("an auth error ends the run at once: no retry, no fallback", [ScriptedModel.error("auth_error")], {
    fallback_models: ["demo-fallback"]
  })
  yield* scenario("a refusal is surfaced as its own event", [ScriptedModel.refusal("I can describe the file, but")])
  // A scripted tool failure here; @agent-kernel/plugins produces the same result from a real crashed process.
  yield* scenario("a failed tool call becomes an error tool_result and the run goes on", [
    ScriptedModel.toolCalls({ id: "t1", name: "read_file", input: { path: "crash" } }),
    ScriptedModel.text("The plugin crashed; here is what I know without it.")
  ])
})

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
