/**
 * For the CLI's subprocess tests: the command as users run it, node on the
 * bundle of these sources, which `scripts/build-cli.mjs --if-stale` rebuilds
 * first when a source changed. Through tsx each start cost seconds of CPU (a
 * thousand modules through its hooks), which starved the test runner on a
 * shared machine.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "../..")

/** The bundle's path. */
export const entry = path.join(root, "examples/dist/agent.mjs")

/**
 * Rebuilds the bundle if stale. Asynchronous: a synchronous build would
 * block the test worker's event loop, and vitest fails a worker whose calls
 * to the runner time out meanwhile.
 */
export const ensureBundle = (): Promise<void> =>
  new Promise((resolve, reject) =>
    execFile(process.execPath, [path.join(root, "scripts/build-cli.mjs"), "--if-stale"], { cwd: root }, (error) =>
      error === null ? resolve() : reject(error)
    )
  )

/** How often the counter plugin (examples/plugins/counter.mjs) was invoked for each key: its `start KEY PID` lines. */
export const invocations = (file: string): Map<string, number> => {
  const counts = new Map<string, number>()
  if (!fs.existsSync(file)) return counts
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const [kind, key] = line.split(" ")
    if (kind === "start" && key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return counts
}

/** One JSON line of `--json` output. */
export type Event = Record<string, unknown> & { readonly type: string }

/** How a run of the command ended. `code` is null when it was killed by a signal. */
export interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly events: ReadonlyArray<Event>
}

/** How the command is started. */
export interface CliOptions {
  readonly input?: string | Buffer
  /** Added to the environment; the provider keys and base URLs are removed unless given here. */
  readonly env?: Record<string, string>
  /** Run through `bash -c` with this text after the arguments (for `<(...)`). */
  readonly shell?: string
  /** A real wall-clock guard: a run still going after this is killed (and shows as code null). */
  readonly killAfterMillis?: number
  /**
   * Run on a new pseudo-terminal of this size (util-linux `script`, see `requireScript`), colour on
   * (`NO_COLOR` removed): stdout is a TTY. The terminal turns each "\n" into "\r\n", turned back in
   * `stdout`; its stderr is merged into `stdout`.
   */
  readonly terminal?: { readonly columns: number; readonly rows: number }
}

/**
 * util-linux `script`, which runs a command on a new pseudo-terminal; absent on some systems. Found on the
 * PATH without running a process, so the test worker's event loop is never blocked.
 */
const scriptCommand: string | undefined = (process.env["PATH"] ?? "")
  .split(path.delimiter)
  .map((dir) => path.join(dir, "script"))
  .find((file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK)
      return true
    } catch {
      return false
    }
  })

/**
 * `script`, or a failure of the test that needs a terminal, naming the install: a terminal test never
 * passes by being skipped.
 */
const requireScript = (): string => {
  if (scriptCommand === undefined) {
    throw new Error(
      "no `script` (util-linux) on the PATH for the terminal tests: install it with `apt-get install bsdutils`"
    )
  }
  return scriptCommand
}

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

const providerVariables = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"]

/** The test's environment with no real provider configured, plus `extra`. */
export const environment = (extra: Record<string, string> = {}): Record<string, string | undefined> => {
  const env: Record<string, string | undefined> = { ...process.env, ...extra }
  for (const key of providerVariables) if (extra[key] === undefined) delete env[key]
  return env
}

/** The JSON lines of an output. */
export const eventsOf = (stdout: string): ReadonlyArray<Event> =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Event)

/** Runs the command to its end, with `args`, and collects what it wrote. */
export const cli = (args: ReadonlyArray<string>, options: CliOptions = {}): Promise<Result> =>
  new Promise((resolve, reject) => {
    const env = environment(options.env)
    const argv = [process.execPath, entry, ...args]
    const terminal = options.terminal
    if (terminal !== undefined) delete env["NO_COLOR"]
    const child =
      terminal !== undefined
        ? spawn(
            requireScript(),
            [
              "-qec",
              `stty cols ${terminal.columns} rows ${terminal.rows}; exec ${argv.map(quote).join(" ")}`,
              "/dev/null"
            ],
            { cwd: root, env }
          )
        : options.shell === undefined
          ? spawn(process.execPath, argv.slice(1), { cwd: root, env })
          : spawn("bash", ["-c", `exec ${argv.map((arg) => `'${arg}'`).join(" ")} ${options.shell}`], {
              cwd: root,
              env
            })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const guard =
      options.killAfterMillis === undefined
        ? undefined
        : setTimeout(() => child.kill("SIGKILL"), options.killAfterMillis)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(guard)
      const written = terminal === undefined ? stdout : stdout.replace(/\r\n/g, "\n")
      resolve({ code, stdout: written, stderr, events: eventsOf(written) })
    })
    // The CLI may stop reading stdin early (over its cap): the rest is not written, not an error.
    child.stdin.on("error", () => {})
    child.stdin.end(options.input ?? "")
  })

/** The events of one type. */
export const ofType = (result: Result, type: string): ReadonlyArray<Event> =>
  result.events.filter((event) => event.type === type)

/**
 * Waits until `condition` holds, polling; fails naming `what` (and showing `context()`) past
 * `ceilingMillis`, a ceiling for a stuck command, never a measurement.
 */
export const waitFor = (
  condition: () => boolean,
  what: string,
  context: () => string = () => "",
  ceilingMillis = 60_000
): Promise<void> =>
  new Promise((resolve, reject) => {
    const started = Date.now()
    const check = () => {
      if (condition()) resolve()
      else if (Date.now() - started > ceilingMillis)
        reject(new Error(`waited ${ceilingMillis} ms for ${what}; output so far:\n${context()}`))
      else setTimeout(check, 20)
    }
    check()
  })

/** A command that is running: what it wrote so far, its input, and its end. */
export interface Running {
  readonly child: ChildProcess
  /** Everything written so far (on a terminal, stdout and stderr as the terminal shows them). */
  readonly stdout: () => string
  readonly stderr: () => string
  /** Types `text` (on a terminal: keys, "\x03" is Ctrl-C, "\x04" Ctrl-D). */
  readonly write: (text: string) => void
  /** Waits until the output holds `text`, failing with the output past a ceiling or once the command ended. */
  readonly seen: (text: string | RegExp, ceilingMillis?: number) => Promise<void>
  /** Its exit code; null when a signal killed it. */
  readonly exited: Promise<number | null>
}

/**
 * Starts the command and leaves it running, its stdin open. With `terminal`, on a new pseudo-terminal of
 * 100 columns by 40 rows (util-linux `script`, stdin included: what is written is typed), its output as the
 * terminal shows it.
 */
export const start = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly terminal?: boolean } = {}
): Running => {
  const env = environment(options.env)
  const argv = [process.execPath, entry, ...args]
  const child = options.terminal
    ? spawn(requireScript(), ["-qfec", `stty cols 100 rows 40; exec ${argv.map(quote).join(" ")}`, "/dev/null"], {
        cwd: root,
        env
      })
    : spawn(process.execPath, argv.slice(1), { cwd: root, env })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (chunk) => (stdout += chunk))
  child.stderr.on("data", (chunk) => (stderr += chunk))
  child.stdin.on("error", () => {})
  let closed = false
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      closed = true
      resolve(code)
    })
  )
  const shown = () => (options.terminal ? stdout.replace(/\r\n/g, "\n") : stdout)
  const context = () => `${shown()}\n--- stderr:\n${stderr}`
  return {
    child,
    stdout: shown,
    stderr: () => stderr,
    write: (text) => void child.stdin.write(text),
    seen: async (text, ceilingMillis) => {
      const found = () => (typeof text === "string" ? shown().includes(text) : text.test(shown()))
      // A command that ended without writing it never will.
      await waitFor(() => found() || closed, `"${String(text)}"`, context, ceilingMillis)
      if (!found()) throw new Error(`the command ended without writing "${String(text)}":\n${context()}`)
    },
    exited
  }
}
