/**
 * The Console the command line writes its help and usage errors through.
 * @effect/cli prints them with ANSI colour, and under every text or flag
 * option a generic "A user-defined piece of text." (or "A true or false
 * value.") ahead of the option's own description. This Console drops that
 * line, and the colour codes when NO_COLOR is set or the stream is not a
 * terminal.
 */
import type * as Console from "effect/Console"

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export const colorEnabled = (
  stream: { readonly isTTY?: boolean | undefined },
  env: Readonly<Record<string, string | undefined>>
): boolean => stream.isTTY === true && (env["NO_COLOR"] ?? "") === ""

// Select Graphic Rendition sequences: all that @effect/printer-ansi writes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is what starts each of them.
const ansi = /\x1b\[[0-9;]*m/g
const genericHelp = /^ *(A user-defined piece of text|A true or false value)\.\n\n/gm

/** The text as shown: the generic line gone, and the colour too when `color` is false. */
export const clean = (text: string, color: boolean): string => {
  const filtered = text.replace(genericHelp, "")
  return color ? filtered : filtered.replace(ansi, "")
}

const cleanArgs = (args: ReadonlyArray<unknown>, color: boolean): ReadonlyArray<unknown> =>
  args.map((arg) => (typeof arg === "string" ? clean(arg, color) : arg))

/** A Console over `base` whose `log` (stdout) and `error` (stderr) are cleaned. */
export const make = (base: Console.Console, color: { readonly stdout: boolean; readonly stderr: boolean }) =>
  ({
    ...base,
    log: (...args) => base.log(...cleanArgs(args, color.stdout)),
    error: (...args) => base.error(...cleanArgs(args, color.stderr)),
    unsafe: {
      ...base.unsafe,
      log: (...args) => base.unsafe.log(...cleanArgs(args, color.stdout)),
      error: (...args) => base.unsafe.error(...cleanArgs(args, color.stderr))
    }
  }) satisfies Console.Console
