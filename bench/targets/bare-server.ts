// The frame of the ceiling servers: node:http on loopback, a free port, the body read in full, one
// handler, and the same `listening` line as the reference server (plus anything the target wants
// the benchmark to know, such as a token to call it with). SIGTERM closes it.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BareAnswer {
  status: number;
  body: string;
}

export type BareHandler = (request: IncomingMessage, body: Buffer) => BareAnswer | Promise<BareAnswer>;

export async function serveBare(handler: BareHandler, extra: Record<string, string> = {}): Promise<void> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      Promise.resolve()
        .then(() => handler(request, Buffer.concat(chunks)))
        .then(
          (answer) => {
            response.writeHead(answer.status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
            response.end(answer.body);
          },
          (error: unknown) => {
            response.writeHead(500, { 'content-type': 'application/json' });
            response.end(JSON.stringify({ error: 'server_error', detail: (error as Error).message }));
          },
        );
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ event: 'listening', baseUrl: `http://127.0.0.1:${port}`, ...extra })}\n`);
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
  });
}
