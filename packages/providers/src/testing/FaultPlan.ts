/**
 * A fault plan: the script the fake provider server follows, one step per
 * incoming request, in order. Plans are Schemas, so they load from JSON as
 * well as being written in TypeScript.
 *
 * Steps are wire-format neutral: `{kind: "error", status: 429, error_type:
 * "rate_limit_error"}` is rendered as an Anthropic error body on
 * `/v1/messages` and as an OpenAI one on `/v1/chat/completions`. Streaming
 * steps answer in SSE when the request asked to stream, JSON otherwise.
 *
 * @example
 * ```ts
 * import { FaultPlan } from "@agent-kernel/providers/testing"
 *
 * const plan = FaultPlan.make([
 *   { kind: "error", status: 429, error_type: "rate_limit_error", message: "slow down", headers: { "retry-after": "2" } },
 *   { kind: "reply", text: "hello" }
 * ])
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const Headers = Schema.Record(Schema.String, Schema.String)

/** An HTTP status code. */
const Status = Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 599 }))

const NonNegative = Schema.Number.check(Schema.isGreaterThanOrEqualTo(0))

/** Fields every step may carry: a delay (on Effect's Clock) before answering. */
const common = {
  delay_ms: Schema.optional(NonNegative)
}

/**
 * A successful answer. With no text and no tool calls it answers "ok".
 * `stop` picks the stop reason; `refusal` renders as Anthropic
 * `stop_reason: "refusal"` and OpenAI `finish_reason: "content_filter"`;
 * `model_context_window_exceeded` is Anthropic's, and renders as a 400
 * `context_length_exceeded` for OpenAI, which has no such stop reason.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Reply = Schema.Struct({
  kind: Schema.Literal("reply"),
  ...common,
  text: Schema.optional(Schema.String),
  tool_calls: Schema.optional(
    Schema.Array(Schema.Struct({ name: Schema.String, input: Schema.Unknown, id: Schema.optional(Schema.String) }))
  ),
  stop: Schema.optional(
    Schema.Literals(["end_turn", "tool_use", "max_tokens", "refusal", "model_context_window_exceeded"])
  ),
  usage: Schema.optional(
    Schema.Struct({
      input_tokens: Schema.Number,
      output_tokens: Schema.Number,
      cache_read_tokens: Schema.optional(Schema.Number)
    })
  ),
  headers: Schema.optional(Headers),
  /** In a stream: the wait before each event after the headers (on the server's `Clock`), to play a slow model. */
  event_delay_ms: Schema.optional(NonNegative),
  /** In a stream: the characters of text per delta event. Default: 8. */
  delta_chars: Schema.optional(Schema.Int.check(Schema.isGreaterThan(0))),
  /**
   * In a stream: write this many events, then hold the rest until the test
   * calls `FakeProvider.release`, so a client can be seen reading the first
   * parts while the server still holds the others.
   */
  hold_after_events: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)))
})

/**
 * The scripted "happy" answer: a `tool_use` for the first offered tool (with
 * an input made up from its JSON Schema), then `end_turn` once tool results
 * come back; plain text when no tools are offered.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Happy = Schema.Struct({ kind: Schema.Literal("happy"), ...common })

/**
 * An error response in the provider's error shape. `code` is OpenAI's
 * `error.code`. `echo_key` appends the received API key to the message, as
 * some servers do, to prove that clients scrub it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorStep = Schema.Struct({
  kind: Schema.Literal("error"),
  ...common,
  status: Status,
  error_type: Schema.String,
  message: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String),
  headers: Schema.optional(Headers),
  echo_key: Schema.optional(Schema.Boolean)
})

/**
 * Exact bytes: any status, headers and body (malformed JSON, HTML, an SSE
 * transcript...).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Raw = Schema.Struct({
  kind: Schema.Literal("raw"),
  ...common,
  status: Status,
  headers: Schema.optional(Headers),
  body: Schema.String
})

/**
 * A 200 stream that sends `text`, then an error event (Anthropic `event:
 * error`; OpenAI a `data: {"error": ...}` chunk). With `flat`, the error is a
 * flat `event: error` whose data has `type`, `message` (and `code`) at the
 * top level, as some servers send it, in both formats.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StreamError = Schema.Struct({
  kind: Schema.Literal("stream_error"),
  ...common,
  text: Schema.optional(Schema.String),
  error_type: Schema.String,
  message: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String),
  flat: Schema.optional(Schema.Boolean)
})

/**
 * A 200 stream that sends `text` and then ends cleanly without finishing
 * the message: no Anthropic `message_stop`, no OpenAI `finish_reason`. With
 * `done` (OpenAI only), it still ends with `data: [DONE]`. Not streaming: half
 * a JSON body.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Truncate = Schema.Struct({
  kind: Schema.Literal("truncate"),
  ...common,
  text: Schema.optional(Schema.String),
  done: Schema.optional(Schema.Boolean)
})

/**
 * A 200 stream that sends `text` and then goes silent forever.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Stall = Schema.Struct({ kind: Schema.Literal("stall"), ...common, text: Schema.optional(Schema.String) })

/**
 * A 200 that keeps the connection alive and never answers: `text`, then a
 * keep-alive every `every_ms` (default 1000, on the server runtime's
 * `Clock`) forever. In a stream, `style` picks the keep-alive: `ping`
 * (default: Anthropic `event: ping`, an OpenAI chunk with an empty delta),
 * `comment` (an SSE comment line), `empty` (an event with empty data) or
 * `empty_events` (events that look like content and change nothing: an
 * Anthropic message_start again, an empty block started and stopped, an
 * empty message_delta; an OpenAI chunk of empty text). Not
 * streaming: a space, before a JSON body that never comes.
 *
 * @since 0.2.0
 * @category schemas
 */
export const KeepAlive = Schema.Struct({
  kind: Schema.Literal("keepalive"),
  ...common,
  text: Schema.optional(Schema.String),
  every_ms: Schema.optional(Schema.Number.check(Schema.isGreaterThan(0))),
  style: Schema.optional(Schema.Literals(["ping", "comment", "empty", "empty_events"]))
})

/**
 * A 200 status line and headers, then silence: not one byte of body.
 *
 * @since 0.2.0
 * @category schemas
 */
export const HeadersOnly = Schema.Struct({ kind: Schema.Literal("headers_only"), ...common })

/**
 * Accept the request and never answer.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Hang = Schema.Struct({ kind: Schema.Literal("hang"), ...common })

/**
 * Reset the connection (TCP RST): before any response, or after a 200 stream
 * has sent `text` when `text` is given.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Reset = Schema.Struct({ kind: Schema.Literal("reset"), ...common, text: Schema.optional(Schema.String) })

/**
 * A 200 JSON body of `bytes` bytes, to exercise body size limits.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Oversize = Schema.Struct({
  kind: Schema.Literal("oversize"),
  ...common,
  bytes: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1024 * 1024 * 1024 }))
})

/**
 * Any step.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Step = Schema.Union([
  Reply,
  Happy,
  ErrorStep,
  Raw,
  StreamError,
  Truncate,
  Stall,
  KeepAlive,
  HeadersOnly,
  Hang,
  Reset,
  Oversize
])

/**
 * @since 0.1.0
 * @category models
 */
export type Step = typeof Step.Type

const RequestsPerSecond = Schema.Int.check(Schema.isGreaterThan(0))

/**
 * A change of capacity: from `after_ms` milliseconds after the server
 * started (on its `Clock`), it admits `requests_per_second`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const CapacityChange = Schema.Struct({
  after_ms: NonNegative,
  requests_per_second: RequestsPerSecond
})

/**
 * A capacity limit, as a provider enforces its rate limits: a request that
 * arrives when `requests_per_second` requests were admitted in the last
 * second (a sliding window on the server's `Clock`) is answered 429
 * `rate_limit_error`, with a `retry-after-ms` (and a whole-second
 * `retry-after`) saying when the window has room again. Refused requests
 * are not admitted: they take no plan step and do not count against the
 * window. `changes` change the capacity over time (the latest one whose
 * `after_ms` has passed holds), as a provider under load lowers it.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Capacity = Schema.Struct({
  requests_per_second: RequestsPerSecond,
  changes: Schema.optional(Schema.Array(CapacityChange))
})

/**
 * @since 0.2.0
 * @category models
 */
export interface Capacity extends Schema.Schema.Type<typeof Capacity> {}

/**
 * A plan: its steps, then what to do once they run out (`happy`, the
 * default, or `repeat_last`), and an optional `capacity` in front of them.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FaultPlan = Schema.Struct({
  name: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  steps: Schema.Array(Step),
  after: Schema.optional(Schema.Literals(["happy", "repeat_last"])),
  capacity: Schema.optional(Capacity)
})

/**
 * @since 0.1.0
 * @category models
 */
export interface FaultPlan extends Schema.Schema.Type<typeof FaultPlan> {}

/**
 * A plan from steps.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  steps: ReadonlyArray<Step>,
  options?: { readonly after?: "happy" | "repeat_last" }
): FaultPlan => ({
  steps,
  ...(options?.after !== undefined ? { after: options.after } : {})
})

/**
 * A plan that answers happily, up to `requestsPerSecond` requests a second;
 * above that, 429s (see `Capacity`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const capacityLimited = (requestsPerSecond: number): FaultPlan => ({
  name: "capacity-limited",
  steps: [],
  capacity: { requests_per_second: requestsPerSecond }
})

/**
 * A capacity-limited plan whose capacity changes over time: `requestsPerSecond`
 * from the start, then each change from its `after_ms` (see `Capacity`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const capacitySchedule = (
  requestsPerSecond: number,
  changes: ReadonlyArray<typeof CapacityChange.Type>
): FaultPlan => ({
  name: "capacity-schedule",
  steps: [],
  capacity: { requests_per_second: requestsPerSecond, changes }
})

/**
 * The requests a second a capacity admits `elapsed` milliseconds after the
 * server started: that of the latest change whose `after_ms` has passed.
 *
 * @since 0.2.0
 * @category getters
 */
export const requestsPerSecondAt = (capacity: Capacity, elapsed: number): number =>
  (capacity.changes ?? []).reduce(
    (best, change) => (change.after_ms <= elapsed && change.after_ms >= best.after_ms ? change : best),
    { after_ms: -1, requests_per_second: capacity.requests_per_second }
  ).requests_per_second

/**
 * The plan that always answers happily.
 *
 * @since 0.1.0
 * @category constructors
 */
export const happy: FaultPlan = { name: "happy", steps: [] }

/**
 * Decodes a plan from parsed JSON.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (input: unknown): Effect.Effect<FaultPlan, Schema.SchemaError> =>
  Schema.decodeUnknownEffect(FaultPlan, { errors: "all", reportInput: true })(input)

/**
 * Decodes a plan from JSON text.
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromJson = (text: string): Effect.Effect<FaultPlan, Schema.SchemaError> =>
  Schema.decodeUnknownEffect(Schema.fromJsonString(FaultPlan), { errors: "all", reportInput: true })(text)

/**
 * The step that answers request number `index` (from 0).
 *
 * @since 0.1.0
 * @category getters
 */
export const stepAt = (plan: FaultPlan, index: number): Step => {
  const step = plan.steps[index]
  if (step !== undefined) return step
  const last = plan.steps[plan.steps.length - 1]
  return plan.after === "repeat_last" && last !== undefined ? last : { kind: "happy" }
}

/**
 * Forces evaluation of a plan value (for plans written in TypeScript).
 *
 * @since 0.1.0
 * @category decoding
 */
export const validate = (plan: FaultPlan): Effect.Effect<FaultPlan, Schema.SchemaError> =>
  Effect.flatMap(Schema.encodeEffect(FaultPlan)(plan), decode)
