/**
 * A tool's parameters as a model writes them: JSON, where a number is a
 * finite number and an optional field is left out (never `null`).
 *
 * Schema v4's JSON codec carries every value of a schema, so `Schema.Number`
 * also takes `"NaN"`/`"Infinity"` strings (and its description and checks stay
 * on the side a model never sees), and `Schema.optional` takes `null`. A model
 * sends neither on purpose: the schema is rewritten so that Effect's own JSON
 * codec and JSON Schema describe what it does send, with descriptions and bounds
 * kept, and what it may send differently is rejected with a message naming it.
 *
 * @internal
 */
import * as Arr from "effect/Array"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"

/** The schema a model's arguments are decoded with and described by. @internal */
export const forModel = <A, I>(schema: Schema.Codec<A, I>): Schema.Codec<A, I> =>
  Schema.make<Schema.Codec<A, I>>(rewrite(schema.ast))

const finite = Schema.isFinite()
const rewritten = new WeakMap<SchemaAST.AST, SchemaAST.AST>()

const rewrite = (ast: SchemaAST.AST): SchemaAST.AST => {
  const known = rewritten.get(ast)
  if (known !== undefined) return known
  const out = ast.encoding === undefined ? rewriteNode(ast) : rewriteEncoded(ast, ast.encoding)
  rewritten.set(ast, out)
  return out
}

// A transformation's wire side is the last link's target; the decoded side is not JSON.
const rewriteEncoded = (ast: SchemaAST.AST, encoding: SchemaAST.Encoding): SchemaAST.AST => {
  const last = Arr.lastNonEmpty(encoding)
  const to = rewrite(last.to)
  return to === last.to ? ast : copy(ast, { encoding: relinked(encoding, to) })
}

const rewriteNode = (ast: SchemaAST.AST): SchemaAST.AST => {
  switch (ast._tag) {
    case "Number":
      // A JSON number is finite: with the check the JSON codec keeps the number itself, its description and bounds.
      return new SchemaAST.Number(ast.annotations, Arr.append(ast.checks ?? [], finite), undefined, ast.context)
    case "Declaration":
      return declarationAsJson(ast)
    case "Objects": {
      const properties = SchemaAST.mapOrSame(ast.propertySignatures, (property) => {
        const type = rewrite(leftOutWhenOptional(property.type))
        return type === property.type ? property : new SchemaAST.PropertySignature(property.name, type)
      })
      const indexes = SchemaAST.mapOrSame(ast.indexSignatures, (index) => {
        const type = rewrite(index.type)
        return type === index.type ? index : new SchemaAST.IndexSignature(index.parameter, type)
      })
      return properties === ast.propertySignatures && indexes === ast.indexSignatures
        ? ast
        : new SchemaAST.Objects(
            properties,
            indexes,
            ast.annotations,
            ast.checks,
            undefined,
            ast.context,
            ast.encodingChecks
          )
    }
    case "Arrays": {
      const elements = SchemaAST.mapOrSame(ast.elements, rewrite)
      const rest = SchemaAST.mapOrSame(ast.rest, rewrite)
      return elements === ast.elements && rest === ast.rest
        ? ast
        : new SchemaAST.Arrays(
            ast.isMutable,
            elements,
            rest,
            ast.annotations,
            ast.checks,
            undefined,
            ast.context,
            ast.encodingChecks
          )
    }
    case "Union": {
      const types = SchemaAST.mapOrSame(ast.types, rewrite)
      return types === ast.types
        ? ast
        : new SchemaAST.Union(
            types,
            ast.options,
            ast.annotations,
            ast.checks,
            undefined,
            ast.context,
            ast.encodingChecks
          )
    }
    case "Suspend":
      return new SchemaAST.Suspend(() => rewrite(ast.thunk()), ast.annotations, ast.checks, undefined, ast.context)
    default:
      return ast
  }
}

// An optional field's `undefined` would be `null` in JSON; a model leaves the key out instead.
const leftOutWhenOptional = (ast: SchemaAST.AST): SchemaAST.AST => {
  if (!SchemaAST.isOptional(ast) || !SchemaAST.isUnion(ast) || ast.encoding !== undefined) return ast
  const types = ast.types.filter((type) => !SchemaAST.isUndefined(type))
  const [member, ...others] = types
  if (member === undefined || others.length + 1 === ast.types.length) return ast
  if (others.length > 0) {
    return new SchemaAST.Union(
      types,
      ast.options,
      ast.annotations,
      ast.checks,
      undefined,
      ast.context,
      ast.encodingChecks
    )
  }
  const annotated =
    ast.annotations === undefined ? member : Schema.make<Schema.Top>(member).annotate(ast.annotations).ast
  return copy(annotated, { context: ast.context })
}

// A Date and the like reach JSON through their own link; what describes them goes with it.
const declarationAsJson = (ast: SchemaAST.Declaration): SchemaAST.AST => {
  const json = Schema.toCodecJson(Schema.make<Schema.Top>(ast)).ast
  const described = describing(ast.annotations)
  if (json.encoding === undefined || described === undefined) return json
  const to = Schema.make<Schema.Top>(Arr.lastNonEmpty(json.encoding).to).annotate(described).ast
  return copy(json, { encoding: relinked(json.encoding, to) })
}

// The same encoding, its wire side replaced.
const relinked = (encoding: SchemaAST.Encoding, to: SchemaAST.AST): SchemaAST.Encoding =>
  Arr.append(Arr.initNonEmpty(encoding), new SchemaAST.Link(to, Arr.lastNonEmpty(encoding).transformation))

const describing = (
  annotations: Schema.Annotations.Annotations | undefined
): Schema.Annotations.Annotations | undefined => {
  if (annotations === undefined) return undefined
  const { description, title } = annotations
  if (description === undefined && title === undefined) return undefined
  return { ...(title === undefined ? {} : { title }), ...(description === undefined ? {} : { description }) }
}

// SchemaAST's nodes are immutable; one with another encoding or context is a copy on the same prototype, as SchemaAST makes it.
const copy = <A extends SchemaAST.AST>(
  ast: A,
  changes: { readonly encoding?: SchemaAST.Encoding; readonly context?: SchemaAST.Context | undefined }
): A => Object.assign(Object.create(Object.getPrototypeOf(ast)), ast, changes)
