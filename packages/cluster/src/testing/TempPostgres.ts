/**
 * A throwaway PostgreSQL cluster for tests and local runs: `initdb -A trust`
 * into a fresh temporary directory, `pg_ctl start` on a free port bound to
 * 127.0.0.1 (the socket directory is the temporary one too, so nothing is
 * shared with a system server), and, when its scope closes, an immediate
 * stop and the directory removed. A test can stop the server meanwhile, as
 * in a crash (`stop`), and start it again on the same port (`start`).
 *
 * initdb refuses to run as root, so as root every program runs as the
 * `postgres` user (`runuser -u postgres --`) in a directory that user owns;
 * otherwise they run as the current user.
 *
 * @example
 * ```ts
 * import { TempPostgres } from "@agent-kernel/cluster/testing"
 * import * as Effect from "effect/Effect"
 *
 * const program = Effect.scoped(
 *   Effect.gen(function* () {
 *     const postgres = yield* TempPostgres.start()
 *     console.log(postgres.url) // postgres://agent@127.0.0.1:PORT/postgres
 *   })
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Ports from "./Ports.js"

/**
 * A running throwaway cluster.
 *
 * @since 0.1.0
 * @category models
 */
export interface TempPostgres {
  /** `postgres://agent@127.0.0.1:PORT/postgres`; the role `agent` is the superuser, with no password. */
  readonly url: string
  readonly port: number
  /** The temporary directory: `data/` (the cluster), `postgres.log`, and the server's socket. */
  readonly directory: string
  /**
   * Stops the server at once (`pg_ctl -m immediate stop`), as in a crash:
   * every connection is cut, and the server is down until `start`.
   */
  readonly stop: Effect.Effect<void, PostgresStartError>
  /** Starts the stopped server again, on the same port and data; waits until it takes connections. */
  readonly start: Effect.Effect<void, PostgresStartError>
}

/**
 * The PostgreSQL programs are not installed where they were looked for.
 *
 * @since 0.1.0
 * @category errors
 */
export class PostgresNotInstalled extends Data.TaggedError("PostgresNotInstalled")<{ readonly bin: string }> {
  override get message(): string {
    return `PostgreSQL 15 is not installed (no initdb in ${this.bin}): apt-get install postgresql`
  }
}

/**
 * A program of the cluster's start failed; `output` is what it printed.
 *
 * @since 0.1.0
 * @category errors
 */
export class PostgresStartError extends Data.TaggedError("PostgresStartError")<{
  readonly step: string
  readonly output: string
}> {
  override get message(): string {
    return `could not start a throwaway PostgreSQL (${this.step}): ${this.output}`
  }
}

/**
 * Options of `start`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Where `initdb` and `pg_ctl` are. Default: `$AGENT_KERNEL_PG_BIN`, else `/usr/lib/postgresql/15/bin`. */
  readonly bin?: string | undefined
}

/**
 * The default directory of the PostgreSQL programs.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBin = "/usr/lib/postgresql/15/bin"

const isRoot = (): boolean => typeof process.getuid === "function" && process.getuid() === 0

/** Runs a program (as `postgres` when we are root) and fails with its output if it does not exit 0. */
const exec = (step: string, file: string, args: ReadonlyArray<string>): Effect.Effect<void, PostgresStartError> =>
  Effect.callback<void, PostgresStartError>((resume) => {
    const [command, argv] = isRoot() ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, [...args]]
    const child = ChildProcess.execFile(command, argv, { timeout: 120_000 }, (error, stdout, stderr) => {
      if (error === null) resume(Effect.void)
      else resume(Effect.fail(new PostgresStartError({ step, output: `${error.message}\n${stdout}${stderr}`.trim() })))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** A temporary directory the server's user owns. */
const makeDirectory: Effect.Effect<string, PostgresStartError> = Effect.try({
  try: () => {
    const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "agent-kernel-pg-"))
    if (isRoot()) {
      const uid = Number(ChildProcess.execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
      const gid = Number(ChildProcess.execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
      Fs.chownSync(directory, uid, gid)
    }
    return directory
  },
  catch: (error) => new PostgresStartError({ step: "temporary directory", output: String(error) })
})

/**
 * Starts a throwaway cluster; it is stopped (immediate shutdown) and its
 * directory removed when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (
  options?: Options
): Effect.Effect<TempPostgres, PostgresNotInstalled | PostgresStartError, Scope.Scope> =>
  Effect.gen(function* () {
    const bin = options?.bin ?? process.env["AGENT_KERNEL_PG_BIN"] ?? defaultBin
    const initdb = Path.join(bin, "initdb")
    const pgCtl = Path.join(bin, "pg_ctl")
    if (!Fs.existsSync(initdb) || !Fs.existsSync(pgCtl)) return yield* new PostgresNotInstalled({ bin })
    const directory = yield* Effect.acquireRelease(makeDirectory, (directory) =>
      Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true }))
    )
    const data = Path.join(directory, "data")
    yield* exec("initdb", initdb, ["-D", data, "-A", "trust", "-U", "agent", "-E", "UTF8", "--no-sync"])
    const port = yield* Ports.free.pipe(
      Effect.mapError((error) => new PostgresStartError({ step: "port", output: error.message }))
    )
    // Durability is pointless for a throwaway cluster: fsync off keeps it fast on a busy disk.
    const serverOptions = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`
    const log = Path.join(directory, "postgres.log")
    const startServer = exec("pg_ctl start", pgCtl, ["-D", data, "-o", serverOptions, "-l", log, "-w", "start"]).pipe(
      Effect.catchTag("PostgresStartError", (error) =>
        Effect.fail(
          new PostgresStartError({
            step: error.step,
            output: `${error.output}\n${Fs.existsSync(log) ? Fs.readFileSync(log, "utf8") : ""}`.trim()
          })
        )
      )
    )
    const stopServer = exec("pg_ctl stop", pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"])
    yield* Effect.acquireRelease(startServer, () => Effect.ignore(stopServer))
    return { url: `postgres://agent@127.0.0.1:${port}/postgres`, port, directory, stop: stopServer, start: startServer }
  })
