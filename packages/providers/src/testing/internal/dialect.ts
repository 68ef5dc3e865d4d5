/**
 * The wire formats the fake provider speaks (Anthropic Messages, OpenAI Chat
 * Completions, OpenAI Responses), one record each: how to read
 * an incoming request, and how to write answers, errors, streams and
 * keep-alives in that format. The server picks a record by path and never
 * asks which API it is talking.
 *
 * @internal
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** What the fake needs to know about one request, in either format. */
export interface Incoming {
  readonly model: string
  readonly stream: boolean
  readonly tools: ReadonlyArray<{ readonly name: string; readonly schema: unknown }>
  /** Whether the last message carries tool results. */
  readonly afterTools: boolean
  readonly lastToolResult: string
  readonly lastUserText: string
  readonly inputTokens: number
  readonly key: string
}

/** A successful answer, before it is written in a wire format. */
export interface Answer {
  readonly text: string
  readonly toolCalls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly input: unknown }>
  readonly stop: "end_turn" | "tool_use" | "max_tokens" | "refusal" | "model_context_window_exceeded"
  readonly usage: {
    readonly input_tokens: number
    readonly output_tokens: number
    readonly cache_read_tokens?: number | undefined
  }
}

/** A complete non-streaming reply: a status and a JSON body. */
export interface JsonReply {
  readonly status: number
  readonly body: unknown
}

/** One wire format. */
export interface Dialect {
  readonly api: "anthropic" | "openai" | "openai-responses"
  /** The request path (after the base URL) this format is served on. */
  readonly path: string
  readonly view: (body: unknown, raw: string, key: string) => Incoming
  /** An answer as one JSON body. */
  readonly json: (answer: Answer, incoming: Incoming, index: number) => JsonReply
  /**
   * An answer this format cannot express as a successful reply (OpenAI has no
   * `model_context_window_exceeded` stop reason: it is a 400 there).
   */
  readonly rejects: (answer: Answer, incoming: Incoming) => Option.Option<JsonReply>
  /**
   * The opening events of a stream, up to and including `text`, in deltas of
   * `deltaChars` (default 8). `usage`, when the answer is known, is the input
   * usage an opening event reports (Anthropic's message_start).
   */
  readonly streamHead: (
    incoming: Incoming,
    index: number,
    text: string,
    options?: { readonly deltaChars?: number | undefined; readonly usage?: Answer["usage"] | undefined }
  ) => ReadonlyArray<string>
  /** The rest of a stream after `streamHead(answer.text)`: tool calls, the stop reason, usage, the terminal event. */
  readonly streamTail: (answer: Answer, incoming: Incoming, index: number) => ReadonlyArray<string>
  readonly errorBody: (type: string, message: string, code: string | undefined) => Record<string, unknown>
  /** An error event inside a 200 stream. */
  readonly streamError: (type: string, message: string, code: string | undefined) => string
  /** A keep-alive event that carries no content (Anthropic `ping`, an OpenAI chunk with an empty delta). */
  readonly ping: (incoming: Incoming, index: number) => string
  /**
   * Events that look like content but change nothing the response carries
   * (a repeated message_start, an empty block started and stopped, an empty
   * message_delta; an OpenAI chunk whose delta is empty text).
   */
  readonly emptyEvents: (incoming: Incoming, index: number) => string
  /** The end-of-stream marker that the format has apart from its stop reason (`data: [DONE]`), if any. */
  readonly doneMarker: Option.Option<string>
}

/** One server-sent event. */
export const sse = (event: string | undefined, data: unknown): string =>
  `${event !== undefined ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`

/** Splits a string into pieces of `size`, so deltas are really incremental. */
const pieces = (text: string, size: number): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

const textOfUnknown = (value: unknown): string =>
  typeof value === "string"
    ? value
    : Array.isArray(value)
      ? value
          .map((part) => (typeof part === "object" && part !== null && "text" in part ? String(part.text) : ""))
          .join("")
      : ""

const inputTokensOf = (raw: string): number => Math.max(1, Math.ceil(raw.length / 4))

// ---------------------------------------------------------------------------
// Anthropic Messages

const AnthropicRequest = Schema.Struct({
  model: Schema.optional(Schema.String),
  stream: Schema.optional(Schema.Boolean),
  tools: Schema.optional(
    Schema.Array(Schema.Struct({ name: Schema.String, input_schema: Schema.optional(Schema.Unknown) }))
  ),
  messages: Schema.optional(
    Schema.Array(
      Schema.Struct({
        role: Schema.String,
        content: Schema.Union([
          Schema.String,
          Schema.Array(
            Schema.Struct({
              type: Schema.String,
              text: Schema.optional(Schema.String),
              content: Schema.optional(Schema.Unknown)
            })
          )
        ])
      })
    )
  )
})

const anthropicUsage = (usage: Answer["usage"]) => ({
  input_tokens: usage.input_tokens,
  output_tokens: usage.output_tokens,
  ...(usage.cache_read_tokens !== undefined ? { cache_read_input_tokens: usage.cache_read_tokens } : {})
})

/** The Anthropic Messages API (`/v1/messages`). */
export const anthropic: Dialect = {
  api: "anthropic",
  path: "/messages",
  view: (body, raw, key) => {
    const request = Option.getOrElse(
      Schema.decodeUnknownOption(AnthropicRequest)(body),
      (): typeof AnthropicRequest.Type => ({})
    )
    const messages = request.messages ?? []
    const last = messages[messages.length - 1]
    const blocks = last === undefined || typeof last.content === "string" ? [] : last.content
    const results = blocks.filter((block) => block.type === "tool_result")
    const lastUser = [...messages].reverse().find((m) => m.role === "user")
    return {
      model: request.model ?? "fake-model",
      stream: request.stream === true,
      tools: (request.tools ?? []).map((tool) => ({ name: tool.name, schema: tool.input_schema })),
      afterTools: results.length > 0,
      lastToolResult: results.map((block) => textOfUnknown(block.content)).join("\n"),
      lastUserText:
        lastUser === undefined
          ? ""
          : typeof lastUser.content === "string"
            ? lastUser.content
            : lastUser.content.map((block) => block.text ?? "").join(""),
      inputTokens: inputTokensOf(raw),
      key
    }
  },
  json: (answer, incoming, index) => ({
    status: 200,
    body: {
      id: `msg_fake_${index}`,
      type: "message",
      role: "assistant",
      model: incoming.model,
      content: [
        ...(answer.text.length > 0 ? [{ type: "text", text: answer.text }] : []),
        ...answer.toolCalls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: call.input }))
      ],
      stop_reason: answer.stop,
      stop_sequence: null,
      usage: anthropicUsage(answer.usage)
    }
  }),
  rejects: () => Option.none(),
  streamHead: (incoming, index, text, options) => [
    sse("message_start", {
      type: "message_start",
      message: {
        id: `msg_fake_${index}`,
        type: "message",
        role: "assistant",
        model: incoming.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage:
          options?.usage === undefined
            ? { input_tokens: incoming.inputTokens, output_tokens: 1 }
            : { ...anthropicUsage(options.usage), output_tokens: 1 }
      }
    }),
    sse("ping", { type: "ping" }),
    ...(text.length > 0
      ? [
          sse("content_block_start", {
            type: "content_block_start",
            index: 0,
            content_block: { type: "text", text: "" }
          }),
          ...pieces(text, options?.deltaChars ?? 8).map((piece) =>
            sse("content_block_delta", {
              type: "content_block_delta",
              index: 0,
              delta: { type: "text_delta", text: piece }
            })
          )
        ]
      : [])
  ],
  streamTail: (answer) => {
    const events: Array<string> = []
    let blockIndex = 0
    if (answer.text.length > 0) {
      events.push(sse("content_block_stop", { type: "content_block_stop", index: 0 }))
      blockIndex = 1
    }
    for (const call of answer.toolCalls) {
      events.push(
        sse("content_block_start", {
          type: "content_block_start",
          index: blockIndex,
          content_block: { type: "tool_use", id: call.id, name: call.name, input: {} }
        })
      )
      for (const piece of pieces(JSON.stringify(call.input ?? {}), 5)) {
        events.push(
          sse("content_block_delta", {
            type: "content_block_delta",
            index: blockIndex,
            delta: { type: "input_json_delta", partial_json: piece }
          })
        )
      }
      events.push(sse("content_block_stop", { type: "content_block_stop", index: blockIndex }))
      blockIndex++
    }
    events.push(
      sse("message_delta", {
        type: "message_delta",
        delta: { stop_reason: answer.stop, stop_sequence: null },
        usage: anthropicUsage(answer.usage)
      }),
      sse("message_stop", { type: "message_stop" })
    )
    return events
  },
  errorBody: (type, message) => ({ type: "error", error: { type, message }, request_id: "req_fake" }),
  streamError: (type, message, code) => sse("error", anthropic.errorBody(type, message, code)),
  ping: () => sse("ping", { type: "ping" }),
  emptyEvents: (incoming, index) =>
    [
      anthropic.streamHead(incoming, index, "")[0] ?? "",
      sse("content_block_start", { type: "content_block_start", index: 90, content_block: { type: "text", text: "" } }),
      sse("content_block_stop", { type: "content_block_stop", index: 90 }),
      sse("content_block_start", {
        type: "content_block_start",
        index: 91,
        content_block: { type: "brand_new_block" }
      }),
      sse("content_block_stop", { type: "content_block_stop", index: 91 }),
      sse("message_delta", { type: "message_delta", delta: {} })
    ].join(""),
  doneMarker: Option.none()
}

// ---------------------------------------------------------------------------
// OpenAI Chat Completions

const OpenAiRequest = Schema.Struct({
  model: Schema.optional(Schema.String),
  stream: Schema.optional(Schema.Boolean),
  tools: Schema.optional(
    Schema.Array(
      Schema.Struct({
        function: Schema.Struct({ name: Schema.String, parameters: Schema.optional(Schema.Unknown) })
      })
    )
  ),
  messages: Schema.optional(
    Schema.Array(Schema.Struct({ role: Schema.String, content: Schema.optional(Schema.NullOr(Schema.Unknown)) }))
  )
})

const openAiFinish = (stop: Answer["stop"]): string => {
  switch (stop) {
    case "end_turn":
      return "stop"
    case "tool_use":
      return "tool_calls"
    case "refusal":
      return "content_filter"
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length"
  }
}

const openAiUsage = (usage: Answer["usage"]) => ({
  prompt_tokens: usage.input_tokens + (usage.cache_read_tokens ?? 0),
  completion_tokens: usage.output_tokens,
  total_tokens: usage.input_tokens + (usage.cache_read_tokens ?? 0) + usage.output_tokens,
  ...(usage.cache_read_tokens !== undefined
    ? { prompt_tokens_details: { cached_tokens: usage.cache_read_tokens } }
    : {})
})

const chunk = (incoming: Incoming, index: number, delta: unknown, finish: string | null = null) =>
  sse(undefined, {
    id: `chatcmpl-fake-${index}`,
    object: "chat.completion.chunk",
    created: 0,
    model: incoming.model,
    choices: [{ index: 0, delta, finish_reason: finish }]
  })

/** OpenAI Chat Completions (`/v1/chat/completions`). */
export const openAi: Dialect = {
  api: "openai",
  path: "/chat/completions",
  view: (body, raw, key) => {
    const request = Option.getOrElse(
      Schema.decodeUnknownOption(OpenAiRequest)(body),
      (): typeof OpenAiRequest.Type => ({})
    )
    const messages = request.messages ?? []
    const trailingTools: Array<string> = []
    for (let i = messages.length - 1; i >= 0 && messages[i]?.role === "tool"; i--) {
      trailingTools.unshift(textOfUnknown(messages[i]?.content))
    }
    const lastUser = [...messages].reverse().find((m) => m.role === "user")
    return {
      model: request.model ?? "fake-model",
      stream: request.stream === true,
      tools: (request.tools ?? []).map((tool) => ({ name: tool.function.name, schema: tool.function.parameters })),
      afterTools: trailingTools.length > 0,
      lastToolResult: trailingTools.join("\n"),
      lastUserText: textOfUnknown(lastUser?.content),
      inputTokens: inputTokensOf(raw),
      key
    }
  },
  json: (answer, incoming, index) => ({
    status: 200,
    body: {
      id: `chatcmpl-fake-${index}`,
      object: "chat.completion",
      created: 0,
      model: incoming.model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: answer.text.length > 0 ? answer.text : null,
            ...(answer.toolCalls.length > 0
              ? {
                  tool_calls: answer.toolCalls.map((call) => ({
                    id: call.id,
                    type: "function",
                    function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) }
                  }))
                }
              : {})
          },
          finish_reason: openAiFinish(answer.stop)
        }
      ],
      usage: openAiUsage(answer.usage)
    }
  }),
  rejects: (answer, incoming) =>
    answer.stop === "model_context_window_exceeded"
      ? Option.some({
          status: 400,
          body: openAi.errorBody(
            "invalid_request_error",
            `This model's maximum context length is 8192 tokens. However, your messages resulted in ${incoming.inputTokens + 8192} tokens.`,
            "context_length_exceeded"
          )
        })
      : Option.none(),
  streamHead: (incoming, index, text, options) => [
    chunk(incoming, index, { role: "assistant", content: "" }),
    ...pieces(text, options?.deltaChars ?? 8).map((piece) => chunk(incoming, index, { content: piece }))
  ],
  streamTail: (answer, incoming, index) => [
    ...answer.toolCalls.flatMap((call, i) => [
      chunk(incoming, index, {
        tool_calls: [{ index: i, id: call.id, type: "function", function: { name: call.name, arguments: "" } }]
      }),
      ...pieces(JSON.stringify(call.input ?? {}), 5).map((piece) =>
        chunk(incoming, index, { tool_calls: [{ index: i, function: { arguments: piece } }] })
      )
    ]),
    chunk(incoming, index, {}, openAiFinish(answer.stop)),
    sse(undefined, {
      id: `chatcmpl-fake-${index}`,
      object: "chat.completion.chunk",
      created: 0,
      model: incoming.model,
      choices: [],
      usage: openAiUsage(answer.usage)
    }),
    sse(undefined, "[DONE]")
  ],
  errorBody: (type, message, code) => ({ error: { message, type, param: null, code: code ?? null } }),
  streamError: (type, message, code) => sse(undefined, openAi.errorBody(type, message, code)),
  ping: (incoming, index) => chunk(incoming, index, {}),
  emptyEvents: (incoming, index) =>
    [chunk(incoming, index, { role: "assistant", content: "" }), chunk(incoming, index, { tool_calls: [] })].join(""),
  doneMarker: Option.some(sse(undefined, "[DONE]"))
}

// ---------------------------------------------------------------------------
// OpenAI Responses

const ResponsesText = Schema.Union([
  Schema.String,
  Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))
])

const ResponsesRequest = Schema.Struct({
  model: Schema.optional(Schema.String),
  stream: Schema.optional(Schema.Boolean),
  tools: Schema.optional(
    Schema.Array(Schema.Struct({ name: Schema.optional(Schema.String), parameters: Schema.optional(Schema.Unknown) }))
  ),
  input: Schema.optional(
    Schema.Union([
      Schema.String,
      Schema.Array(
        Schema.Struct({
          type: Schema.optional(Schema.String),
          role: Schema.optional(Schema.String),
          content: Schema.optional(ResponsesText),
          output: Schema.optional(Schema.Unknown)
        })
      )
    ])
  )
})

const responsesUsage = (usage: Answer["usage"]) => ({
  input_tokens: usage.input_tokens + (usage.cache_read_tokens ?? 0),
  input_tokens_details: { cached_tokens: usage.cache_read_tokens ?? 0 },
  output_tokens: usage.output_tokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: usage.input_tokens + (usage.cache_read_tokens ?? 0) + usage.output_tokens
})

/** Why a response is incomplete, if it is. */
const incompleteReason = (stop: Answer["stop"]): string | null =>
  stop === "max_tokens" ? "max_output_tokens" : stop === "refusal" ? "content_filter" : null

const messageItem = (index: number, text: string, status: string) => ({
  id: `msg_fake_${index}`,
  type: "message",
  role: "assistant",
  status,
  content: text.length === 0 ? [] : [{ type: "output_text", text, annotations: [] }]
})

const functionItem = (
  index: number,
  position: number,
  call: Answer["toolCalls"][number],
  args: string,
  status: string
) => ({
  id: `fc_fake_${index}_${position}`,
  type: "function_call",
  call_id: call.id,
  name: call.name,
  arguments: args,
  status
})

/** The Response object, complete (`answer`) or as it starts (no answer yet). */
const responseObject = (incoming: Incoming, index: number, answer: Answer | undefined) => {
  const reason = answer === undefined ? null : incompleteReason(answer.stop)
  return {
    id: `resp_fake_${index}`,
    object: "response",
    created_at: 0,
    status: answer === undefined ? "in_progress" : reason === null ? "completed" : "incomplete",
    error: null,
    incomplete_details: reason === null ? null : { reason },
    instructions: null,
    model: incoming.model,
    output:
      answer === undefined
        ? []
        : [
            ...(answer.text.length > 0 ? [messageItem(index, answer.text, "completed")] : []),
            ...answer.toolCalls.map((call, position) =>
              functionItem(index, position, call, JSON.stringify(call.input ?? {}), "completed")
            )
          ],
    metadata: {},
    temperature: null,
    top_p: null,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    ...(answer === undefined ? {} : { usage: responsesUsage(answer.usage) })
  }
}

/** A Responses stream event: named, with its `type` and `sequence_number` in the data. */
const responsesEvent = (type: string, sequence: number, fields: Record<string, unknown>) =>
  sse(type, { type, sequence_number: sequence, ...fields })

/** OpenAI Responses (`/v1/responses`), as @effect/ai-openai calls it. */
export const openAiResponses: Dialect = {
  api: "openai-responses",
  path: "/responses",
  view: (body, raw, key) => {
    const request = Option.getOrElse(
      Schema.decodeUnknownOption(ResponsesRequest)(body),
      (): typeof ResponsesRequest.Type => ({})
    )
    const items = typeof request.input === "string" ? [{ role: "user", content: request.input }] : (request.input ?? [])
    const trailing: Array<string> = []
    for (let i = items.length - 1; i >= 0 && items[i]?.type === "function_call_output"; i--) {
      trailing.unshift(textOfUnknown(items[i]?.output))
    }
    const lastUser = [...items].reverse().find((item) => item.role === "user")
    return {
      model: request.model ?? "fake-model",
      stream: request.stream === true,
      tools: (request.tools ?? []).map((tool) => ({ name: tool.name ?? "", schema: tool.parameters })),
      afterTools: trailing.length > 0,
      lastToolResult: trailing.join("\n"),
      lastUserText: textOfUnknown(lastUser?.content),
      inputTokens: inputTokensOf(raw),
      key
    }
  },
  json: (answer, incoming, index) => ({ status: 200, body: responseObject(incoming, index, answer) }),
  rejects: (answer, incoming) => openAi.rejects(answer, incoming),
  // Sequence numbers: the head's events count from 0, the tail's from 1,000, so both stay increasing.
  streamHead: (incoming, index, text, options) => [
    responsesEvent("response.created", 0, { response: responseObject(incoming, index, undefined) }),
    ...(text.length > 0
      ? [
          responsesEvent("response.output_item.added", 1, {
            output_index: 0,
            item: messageItem(index, "", "in_progress")
          }),
          ...pieces(text, options?.deltaChars ?? 8).map((piece, at) =>
            responsesEvent("response.output_text.delta", 2 + at, {
              item_id: `msg_fake_${index}`,
              output_index: 0,
              content_index: 0,
              delta: piece
            })
          )
        ]
      : [])
  ],
  streamTail: (answer, incoming, index) => {
    const events: Array<string> = []
    let sequence = 1_000
    let output = 0
    if (answer.text.length > 0) {
      events.push(
        responsesEvent("response.output_item.done", sequence++, {
          output_index: output++,
          item: messageItem(index, answer.text, "completed")
        })
      )
    }
    answer.toolCalls.forEach((call, position) => {
      const args = JSON.stringify(call.input ?? {})
      events.push(
        responsesEvent("response.output_item.added", sequence++, {
          output_index: output,
          item: functionItem(index, position, call, "", "in_progress")
        })
      )
      for (const piece of pieces(args, 5)) {
        events.push(
          responsesEvent("response.function_call_arguments.delta", sequence++, {
            item_id: `fc_fake_${index}_${position}`,
            output_index: output,
            delta: piece
          })
        )
      }
      events.push(
        responsesEvent("response.output_item.done", sequence++, {
          output_index: output++,
          item: functionItem(index, position, call, args, "completed")
        })
      )
    })
    const reason = incompleteReason(answer.stop)
    events.push(
      responsesEvent(reason === null ? "response.completed" : "response.incomplete", sequence, {
        response: responseObject(incoming, index, answer)
      })
    )
    return events
  },
  errorBody: (type, message, code) => openAi.errorBody(type, message, code),
  streamError: (type, message, code) => responsesEvent("error", 999, { code: code ?? type, message, param: null }),
  ping: (incoming, index) =>
    responsesEvent("response.in_progress", 0, { response: responseObject(incoming, index, undefined) }),
  emptyEvents: (incoming, index) =>
    responsesEvent("response.in_progress", 0, { response: responseObject(incoming, index, undefined) }),
  doneMarker: Option.none()
}

/** Every format. */
export const all: ReadonlyArray<Dialect> = [anthropic, openAi, openAiResponses]

/** The format served on a request path, if any. */
export const forPath = (path: string): Option.Option<Dialect> =>
  Option.fromNullishOr(all.find((dialect) => path.endsWith(dialect.path)))
