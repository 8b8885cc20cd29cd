import { connect } from "node:net";

export interface RawExchange {
  /** The status line's code, or 0 when the connection ended without an answer. */
  status: number;
  /** Body bytes this client had written when the answer (or the close) came. */
  bodyBytesWritten: number;
  closed: boolean;
  head: string;
}

/**
 * Sends a POST over a bare socket: the headers, then the body in chunks while the server
 * lets it, stopping as soon as an answer or a close arrives. Shows whether the server decided
 * before reading the body whole.
 */
export function rawPost(o: {
  port: number;
  path: string;
  headers: Record<string, string>;
  /** Total body bytes to offer. */
  bodyBytes: number;
  chunkBytes?: number;
  /** Pause between chunks, so the server's answer can arrive in between. */
  chunkPauseMs?: number;
  timeoutMs?: number;
}): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(o.port, "127.0.0.1");
    let written = 0;
    let answer = "";
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(answer);
      resolve({
        status: m ? Number(m[1]) : 0,
        bodyBytesWritten: written,
        closed,
        head: answer.split("\r\n\r\n")[0] ?? "",
      });
      socket.destroy();
    };
    const timer = setTimeout(() => finish(false), o.timeoutMs ?? 10_000);
    socket.on("data", (d: Buffer) => {
      answer += d.toString("latin1");
      if (answer.includes("\r\n\r\n")) setTimeout(() => finish(socket.destroyed), 50);
    });
    socket.on("close", () => finish(true));
    socket.on("error", () => finish(true));
    socket.on("connect", () => {
      const head = [
        `POST ${o.path} HTTP/1.1`,
        "Host: 127.0.0.1",
        ...Object.entries(o.headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${head.join("\r\n")}\r\n\r\n`);
      const chunk = Buffer.alloc(o.chunkBytes ?? 64 * 1024, 0x61);
      const chunked = o.headers["transfer-encoding"] === "chunked";
      const pump = () => {
        if (done || socket.destroyed) return;
        if (written >= o.bodyBytes) {
          if (chunked) socket.write("0\r\n\r\n");
          return;
        }
        const part = chunk.subarray(0, Math.min(chunk.length, o.bodyBytes - written));
        const ok = chunked
          ? socket.write(`${part.length.toString(16)}\r\n`) && socket.write(part) && socket.write("\r\n")
          : socket.write(part);
        written += part.length;
        if (ok) setTimeout(pump, o.chunkPauseMs ?? 1);
        else socket.once("drain", () => setTimeout(pump, o.chunkPauseMs ?? 1));
      };
      setTimeout(pump, 20);
    });
  });
}
