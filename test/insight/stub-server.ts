import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
}

/**
 * A tiny real HTTP server for answers the emulator cannot give (bodies that are not JSON,
 * wrong shapes, a body that never ends). Each test sets `handle`; every request is recorded.
 */
export interface StubServer {
  baseUrl: string;
  seen: SeenRequest[];
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  close: () => Promise<void>;
}

export async function startStubServer(): Promise<StubServer> {
  const stub: StubServer = {
    baseUrl: "",
    seen: [],
    handle: (_req, res) => res.writeHead(500).end(),
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    stub.seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    stub.handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  stub.baseUrl = `http://127.0.0.1:${port}`;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

export const json = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
