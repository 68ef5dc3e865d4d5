/**
 * The installed version of a compared library, read from its package.json,
 * so the output names exactly what was measured.
 *
 * @since 0.1.0
 */
import { createRequire } from "node:module"
import * as Schema from "effect/Schema"

const Manifest = Schema.Struct({ version: Schema.String })

const require = createRequire(import.meta.url)

/**
 * The version of an installed package; the package must export its
 * `package.json` (`ai` and `effect` do).
 *
 * @since 0.1.0
 * @category reading
 */
export const version = (name: string): string =>
  Schema.decodeUnknownSync(Manifest)(require(`${name}/package.json`)).version
