import { pino, type Logger, type DestinationStream } from "pino";
import type { LogLevel } from "./config.js";

export type { Logger };

/**
 * Structured JSON logs. Known secret-bearing fields are redacted by path; `secrets` are also
 * scrubbed from every line's text, so a secret that slips into an error message never lands.
 */
export function createLogger(opts: {
  level: LogLevel;
  secrets?: string[];
  destination?: DestinationStream;
  name?: string;
}): Logger {
  const secrets = (opts.secrets ?? []).filter((s) => s.length >= 4);
  const scrub = (line: string) => secrets.reduce((acc, s) => acc.split(s).join("[redacted]"), line);
  const base: FlushableDestination = opts.destination ?? bufferedDestination({ fd: 1 });
  const destination = secrets.length
    ? {
        write: (line: string) => base.write(scrub(line)),
        flush: (cb?: () => void) => (base.flush ? base.flush(cb) : cb?.()),
      }
    : base;
  return pino(
    {
      name: opts.name ?? "insight-relay",
      level: opts.level,
      redact: {
        paths: [
          "apiKey",
          "*.apiKey",
          "token",
          "*.token",
          "headers['x-api-key']",
          "*.headers['x-api-key']",
          "headers.authorization",
          "*.headers.authorization",
          "secret",
          "*.secret",
        ],
        censor: "[redacted]",
      },
    },
    destination,
  );
}

type FlushableDestination = DestinationStream & { flush?: (cb?: (err?: Error) => void) => void };

/** How long a logged line may wait in the buffer before it is written. */
export const LOG_FLUSH_WITHIN_MS = 1_000;

/**
 * What one write of the logs carries at most: whole lines up to PIPE_BUF, which a pipe takes
 * whole, so the lines of a process's two threads (start-process.ts), each with its own buffer
 * on the same stdout, never interleave within a line. Only a single longer line is written past it.
 */
const WHOLE_LINES_BYTES = 4096;

/**
 * The logs' destination: buffered (about 4 KiB) so a busy receiver makes a few large writes instead of
 * one per line, and written out at most `flushWithinMs` after a line arrives, so a quiet process
 * does not hold its last lines until 4 KiB more come (or its end). The flush is a one-off timer
 * started by a line, not a standing interval: a process with nothing to log is never woken.
 * `logger.flush()` (called on shutdown) writes out what is left.
 */
export function bufferedDestination(opts: {
  fd?: number;
  dest?: string;
  flushWithinMs?: number;
}): FlushableDestination {
  const boom = pino.destination({
    fd: opts.fd,
    dest: opts.dest,
    sync: false,
    minLength: WHOLE_LINES_BYTES - 512,
    maxWrite: WHOLE_LINES_BYTES,
  });
  const within = opts.flushWithinMs ?? LOG_FLUSH_WITHIN_MS;
  let timer: NodeJS.Timeout | undefined;
  return {
    write: (line: string) => {
      boom.write(line);
      timer ??= setTimeout(() => {
        timer = undefined;
        // No callback: with one, sonic-boom also fsyncs, which a pipe refuses. A stream that is
        // still opening or already ended writes its buffer when it opens or not at all.
        try {
          boom.flush();
        } catch {
          /* nowhere left to say it */
        }
      }, within).unref();
    },
    flush: (cb) => boom.flush(cb),
  };
}

/** A logger that writes nothing, for tests and tools that do not care. */
export const silentLogger: Logger = pino({ level: "silent" });

/**
 * The rejection handler of best-effort work (a reply whose response_url expired, a cleanup):
 * the failure is logged at debug, with its stack, and otherwise ignored.
 */
export function debugOnFailure(logger: Logger, what: string): (err: unknown) => void {
  return (err) => logger.debug({ err }, what);
}
