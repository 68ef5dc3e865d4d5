/**
 * Input read with bounds. A settings or fault-plan file is read up to 1 MiB
 * and within 5 s: `/dev/zero` would otherwise never end, and a FIFO with no
 * writer never opens. Stdin, the prompt of a one-shot run, is read up to
 * 4 MiB, more than any model's context.
 *
 * A FIFO is opened non-blocking and read through a pipe handle: a blocking
 * open would hold a libuv worker thread until a writer came, and the process
 * could not exit while it waits.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as PlatformError from "effect/PlatformError"
import * as Result from "effect/Result"
import * as fs from "node:fs"
import * as net from "node:net"
import type { Readable } from "node:stream"

/** The most a settings or fault-plan file may hold. */
export const maxFileBytes = 1024 * 1024
/** How long a settings or fault-plan file may take to read. */
export const fileTimeout = Duration.seconds(5)
/** The most stdin may hold as the input of one run. */
export const maxStdinBytes = 4 * 1024 * 1024

const mebibytes = (bytes: number) => `${bytes / (1024 * 1024)} MiB`

/** Why a read stopped: the stream passed `maxBytes`, or failed. */
type Stop = { readonly _tag: "TooLarge" } | { readonly _tag: "Failed"; readonly error: Error }

/** Reads a stream to its end, stopping (and releasing it) once it passes `maxBytes`. */
const readAll = (open: () => Readable, maxBytes: number, release: (stream: Readable) => void) =>
  Effect.callback<Buffer, Stop>((resume) => {
    let stream: Readable
    try {
      stream = open()
    } catch (error) {
      resume(Effect.fail({ _tag: "Failed", error: error instanceof Error ? error : new Error(String(error)) }))
      return
    }
    const chunks: Array<Buffer> = []
    let total = 0
    const stop = (result: Result.Result<Buffer, Stop>) => {
      stream.off("data", onData).off("end", onEnd).off("error", onError)
      release(stream)
      resume(Effect.fromResult(result))
    }
    const onData = (chunk: Buffer) => {
      total += chunk.length
      if (total > maxBytes) stop(Result.fail({ _tag: "TooLarge" }))
      else chunks.push(chunk)
    }
    const onEnd = () => stop(Result.succeed(Buffer.concat(chunks)))
    const onError = (error: Error) => stop(Result.fail({ _tag: "Failed", error }))
    stream.on("data", onData).on("end", onEnd).on("error", onError)
    return Effect.sync(() => {
      stream.off("data", onData).off("end", onEnd).off("error", onError)
      release(stream)
    })
  })

const reasonOf = (error: Error): PlatformError.SystemErrorTag => {
  const code = "code" in error ? error.code : undefined
  return code === "ENOENT"
    ? "NotFound"
    : code === "EACCES" || code === "EPERM"
      ? "PermissionDenied"
      : code === "EISDIR"
        ? "BadResource"
        : "Unknown"
}

/**
 * Reads a text file of at most `maxFileBytes` within `fileTimeout`. Works on
 * pipes too (`--settings <(echo '{}')`), which are read to their end.
 */
export const readTextFile = (path: string): Effect.Effect<string, PlatformError.PlatformError> => {
  const fail = (reason: PlatformError.SystemErrorTag, description: string) =>
    PlatformError.systemError({
      _tag: reason,
      module: "FileSystem",
      method: "readFileString",
      pathOrDescriptor: path,
      description
    })
  const open = (): Readable =>
    fs.statSync(path).isFIFO()
      ? new net.Socket({
          fd: fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK),
          readable: true,
          writable: false
        })
      : fs.createReadStream(path)
  return readAll(open, maxFileBytes, (stream) => stream.destroy()).pipe(
    Effect.map((bytes) => bytes.toString("utf8")),
    Effect.mapError((stop) =>
      stop._tag === "TooLarge"
        ? fail("InvalidData", `larger than ${mebibytes(maxFileBytes)}, the limit for this file`)
        : fail(reasonOf(stop.error), stop.error.message)
    ),
    Effect.timeoutOrElse({
      duration: fileTimeout,
      orElse: () =>
        Effect.fail(fail("TimedOut", `no end of file after ${Duration.format(fileTimeout)} (a FIFO with no writer?)`))
    })
  )
}

/**
 * The FileSystem with `readFileString` bounded as `readTextFile`, for code
 * that reads files through the service (the kernel's `Settings.readFile`).
 */
export const boundedFileSystem = (fileSystem: FileSystem.FileSystem): FileSystem.FileSystem => ({
  ...fileSystem,
  readFileString: (path) => readTextFile(path)
})

/** Reads stdin to its end, failing past `maxStdinBytes`. */
export const readStdin = (stdin: Readable): Effect.Effect<string, string> =>
  readAll(
    () => stdin,
    maxStdinBytes,
    (stream) => stream.pause()
  ).pipe(
    Effect.map((bytes) => bytes.toString("utf8")),
    Effect.mapError((stop) =>
      stop._tag === "TooLarge"
        ? `stdin is larger than ${mebibytes(maxStdinBytes)}, more than any model takes as input`
        : `cannot read stdin: ${stop.error.message}`
    )
  )
