/**
 * OpenAI Chat Completions wire shapes, decoded with Schema.
 *
 * @internal
 */
import * as Schema from "effect/Schema"

const OptionalString = Schema.optional(Schema.NullOr(Schema.String))

export const ToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.optional(Schema.String),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})

export const Usage = Schema.Struct({
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.Number,
  prompt_tokens_details: Schema.optional(
    Schema.NullOr(Schema.Struct({ cached_tokens: Schema.optional(Schema.NullOr(Schema.Number)) }))
  )
})
export type Usage = typeof Usage.Type

export const Completion = Schema.Struct({
  model: Schema.optional(Schema.String),
  choices: Schema.NonEmptyArray(
    Schema.Struct({
      message: Schema.Struct({
        content: OptionalString,
        refusal: OptionalString,
        tool_calls: Schema.optional(Schema.NullOr(Schema.Array(ToolCall)))
      }),
      finish_reason: OptionalString
    })
  ),
  usage: Schema.optional(Schema.NullOr(Usage))
})

export const DeltaToolCall = Schema.Struct({
  index: Schema.Number,
  id: OptionalString,
  function: Schema.optional(Schema.Struct({ name: OptionalString, arguments: OptionalString }))
})

export const Chunk = Schema.Struct({
  model: Schema.optional(Schema.String),
  choices: Schema.Array(
    Schema.Struct({
      delta: Schema.optional(
        Schema.NullOr(
          Schema.Struct({
            content: OptionalString,
            refusal: OptionalString,
            tool_calls: Schema.optional(Schema.NullOr(Schema.Array(DeltaToolCall)))
          })
        )
      ),
      finish_reason: OptionalString
    })
  ),
  usage: Schema.optional(Schema.NullOr(Usage))
})
export type Chunk = typeof Chunk.Type

export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    message: OptionalString,
    type: OptionalString,
    code: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number)))
  })
})
