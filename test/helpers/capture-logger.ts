import { createLogger, type Logger } from "../../src/log.js";

/**
 * A real pino logger writing JSON lines to memory. No `secrets` are given on purpose: the
 * logger's own scrubbing must not hide a leak by the client.
 */
export function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", destination: { write: (line: string) => lines.push(line) } });
  return { logger, lines };
}
