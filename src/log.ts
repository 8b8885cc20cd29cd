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
  // Buffered (4 KiB) so a busy receiver makes a few large writes instead of one per line;
  // `logger.flush()` (called on shutdown) writes out what is left.
  const base: DestinationStream & { flush?: (cb?: (err?: Error) => void) => void } =
    opts.destination ?? pino.destination({ fd: 1, sync: false, minLength: 4096 });
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

/** A logger that writes nothing, for tests and tools that do not care. */
export const silentLogger: Logger = pino({ level: "silent" });

/**
 * The rejection handler of best-effort work (a reply whose response_url expired, a cleanup):
 * the failure is logged at debug, with its stack, and otherwise ignored.
 */
export function debugOnFailure(logger: Logger, what: string): (err: unknown) => void {
  return (err) => logger.debug({ err }, what);
}
