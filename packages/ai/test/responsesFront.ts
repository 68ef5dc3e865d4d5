/**
 * A stopgap until the fake provider speaks OpenAI's Responses API: a real
 * HTTP server on 127.0.0.1 that takes @effect/ai-openai's `POST
 * /v1/responses`, forwards it as a Chat Completions request to the fake
 * provider (whose fault plan decides the answer, and which records it), and
 * answers in the Responses shape. Error responses pass through unchanged
 * (status, headers and body), since both APIs share OpenAI's error shape;
 * successful completions are rewritten as a Response object. Non-streaming
 * only, as the adapter calls `generateText`.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as NodeHttp from "node:http"

const InputItem = Schema.Union(
  Schema.Struct({ role: Schema.Literal("system", "developer"), content: Schema.String }),
  Schema.Struct({
    role: Schema.Literal("user", "assistant"),
    content: Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))
  }),
  Schema.Struct({
    type: Schema.Literal("function_call"),
    call_id: Schema.String,
    name: Schema.String,
    arguments: Schema.String
  }),
  Schema.Struct({ type: Schema.Literal("function_call_output"), call_id: Schema.String, output: Schema.String }),
  Schema.Struct({ type: Schema.Literal("reasoning") })
)

const ResponsesRequest = Schema.Struct({
  model: Schema.String,
  input: Schema.Array(InputItem),
  max_output_tokens: Schema.optional(Schema.Number),
  tools: Schema.optional(
    Schema.Array(
      Schema.Struct({
        type: Schema.Literal("function"),
        name: Schema.String,
        description: Schema.optional(Schema.NullOr(Schema.String)),
        parameters: Schema.Unknown
      })
    )
  )
})

const ChatCompletion = Schema.Struct({
  id: Schema.String,
  model: Schema.String,
  choices: Schema.Array(
    Schema.Struct({
      message: Schema.Struct({
        content: Schema.NullOr(Schema.String),
        tool_calls: Schema.optional(
          Schema.Array(
            Schema.Struct({
              id: Schema.String,
              function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
            })
          )
        )
      }),
      finish_reason: Schema.String
    })
  ),
  usage: Schema.Struct({
    prompt_tokens: Schema.Number,
    completion_tokens: Schema.Number,
    prompt_tokens_details: Schema.optional(Schema.Struct({ cached_tokens: Schema.Number }))
  })
})

type ChatMessage = Record<string, unknown>

const toChat = (request: typeof ResponsesRequest.Type) => {
  const messages: Array<ChatMessage> = []
  for (const item of request.input) {
    if ("role" in item) {
      const content =
        typeof item.content === "string" ? item.content : item.content.map((part) => part.text ?? "").join("")
      messages.push({ role: item.role === "developer" ? "system" : item.role, content })
    } else if (item.type === "function_call") {
      const call = { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } }
      const last = messages.at(-1)
      if (last?.["role"] === "assistant") {
        last["tool_calls"] = [...(Array.isArray(last["tool_calls"]) ? last["tool_calls"] : []), call]
      } else {
        messages.push({ role: "assistant", content: null, tool_calls: [call] })
      }
    } else if (item.type === "function_call_output") {
      messages.push({ role: "tool", tool_call_id: item.call_id, content: item.output })
    }
  }
  return {
    model: request.model,
    messages,
    ...(request.max_output_tokens !== undefined ? { max_tokens: request.max_output_tokens } : {}),
    ...(request.tools !== undefined && request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: "function",
            function: { name: tool.name, description: tool.description ?? "", parameters: tool.parameters }
          }))
        }
      : {})
  }
}

const toResponse = (completion: typeof ChatCompletion.Type) => {
  const choice = completion.choices[0]
  const output: Array<unknown> = []
  if (choice?.message.content != null && choice.message.content.length > 0) {
    output.push({
      id: `msg_${completion.id}`,
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: choice.message.content, annotations: [] }]
    })
  }
  for (const call of choice?.message.tool_calls ?? []) {
    output.push({
      id: `fc_${call.id}`,
      type: "function_call",
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      status: "completed"
    })
  }
  const finish = choice?.finish_reason
  const incomplete = finish === "length" ? "max_output_tokens" : finish === "content_filter" ? "content_filter" : null
  const cached = completion.usage.prompt_tokens_details?.cached_tokens ?? 0
  return {
    id: `resp_${completion.id}`,
    object: "response",
    created_at: 0,
    status: incomplete === null ? "completed" : "incomplete",
    error: null,
    incomplete_details: incomplete === null ? null : { reason: incomplete },
    instructions: null,
    model: completion.model,
    output,
    metadata: {},
    temperature: null,
    top_p: null,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: {
      input_tokens: completion.usage.prompt_tokens,
      input_tokens_details: { cached_tokens: cached },
      output_tokens: completion.usage.completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: completion.usage.prompt_tokens + completion.usage.completion_tokens
    }
  }
}

const passedHeaders = ["content-type", "retry-after", "retry-after-ms", "x-should-retry"]

const forward = async (target: string, raw: string, authorization: string, res: NodeHttp.ServerResponse) => {
  const request = Schema.decodeUnknownSync(ResponsesRequest)(JSON.parse(raw))
  const upstream = await fetch(`${target}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization },
    body: JSON.stringify(toChat(request))
  })
  const text = await upstream.text()
  if (!upstream.ok) {
    const headers: Record<string, string> = {}
    for (const name of passedHeaders) {
      const value = upstream.headers.get(name)
      if (value !== null) headers[name] = value
    }
    res.writeHead(upstream.status, headers).end(text)
    return
  }
  const completion = Schema.decodeUnknownSync(ChatCompletion)(JSON.parse(text))
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(toResponse(completion)))
}

/** Starts the front for the fake provider at `target` (its OpenAI base URL); returns its own base URL. */
export const make = (target: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<NodeHttp.Server>((resume) => {
      const server = NodeHttp.createServer((req, res) => {
        const parts: Array<Buffer> = []
        req.on("data", (part: Buffer) => parts.push(part))
        req.on("end", () => {
          forward(target, Buffer.concat(parts).toString("utf8"), req.headers.authorization ?? "", res).catch(() => {
            // The fake server reset the connection (or answered nonsense): pass the reset on.
            req.socket.destroy()
          })
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(
    Effect.map((server) => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      return `http://127.0.0.1:${port}/v1`
    })
  )
