import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const Media = Schema.Struct({ type: Schema.Literals(["image", "audio"]), data: Schema.String, mimeType: Schema.String })
const Block = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
  Media,
  Schema.Struct({ type: Schema.Literal("resource_link"), uri: Schema.String, name: Schema.optional(Schema.String) }),
  Schema.Struct({
    type: Schema.Literal("resource"),
    resource: Schema.Struct({
      uri: Schema.String,
      mimeType: Schema.optional(Schema.String),
      text: Schema.optional(Schema.String),
      blob: Schema.optional(Schema.String)
    })
  })
])
const decodeBlock = Schema.decodeUnknownOption(Block)

/** What `Client.callTool` resolves to: a CallToolResult, or the 2024-10-07 `toolResult` form. @internal */
export interface CallResult {
  readonly [key: string]: unknown
  readonly content?: unknown
  readonly structuredContent?: unknown
  readonly isError?: unknown
}

const approxBytes = (base64: string): number => Math.floor((base64.length * 3) / 4)

const renderBlock = (raw: unknown): string => {
  const decoded = decodeBlock(raw)
  if (Option.isNone(decoded)) return `[unsupported content: ${JSON.stringify(raw)?.slice(0, 200)}]`
  const block = decoded.value
  switch (block.type) {
    case "text":
      return block.text
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${approxBytes(block.data)} bytes]`
    case "resource_link":
      return `[resource link: ${block.uri}${block.name === undefined ? "" : ` (${block.name})`}]`
    case "resource": {
      const resource = block.resource
      if (resource.text !== undefined) return resource.text
      const blob = resource.blob === undefined ? "" : `, ${approxBytes(resource.blob)} bytes`
      return `[resource: ${resource.uri}${resource.mimeType === undefined ? "" : ` (${resource.mimeType})`}${blob}]`
    }
  }
}

/** The text the model sees for an MCP tool result. @internal */
export const renderCallResult = (result: CallResult): string => {
  if (Array.isArray(result.content) && result.content.length > 0) {
    return result.content.map(renderBlock).join("\n")
  }
  // Tools SHOULD mirror structured content as text; some do not.
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent) ?? ""
  if ("toolResult" in result) return JSON.stringify(result["toolResult"]) ?? ""
  return ""
}

/** @internal */
export const isErrorResult = (result: CallResult): boolean => result.isError === true

/**
 * Cuts a text to at most `maxBytes` of UTF-8, marker included, on a character
 * boundary, and says so visibly.
 * @internal
 */
export const truncate = (text: string, maxBytes: number): string => {
  const bytes = Buffer.byteLength(text, "utf8")
  if (bytes <= maxBytes) return text
  const marker = `\n[truncated: the result was ${bytes} bytes; only the first part is shown (max_tool_result_bytes = ${maxBytes})]`
  const budget = Math.max(0, maxBytes - Buffer.byteLength(marker, "utf8"))
  const encoded = Buffer.from(text, "utf8")
  let end = budget
  // Back off to the start of a character: continuation bytes are 0b10xxxxxx.
  while (end > 0 && end < encoded.length && (encoded[end]! & 0xc0) === 0x80) end--
  return `${encoded.subarray(0, end).toString("utf8")}${marker}`
}
