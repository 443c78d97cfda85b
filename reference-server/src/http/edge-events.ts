// What reaches Node's HTTP server without going through Fastify's routing, answered in the
// server's own JSON formats instead of Node's bare defaults:
//   - `Expect: 100-continue` (`checkContinue`): 100 Continue only for a body the server would
//     read; a declared Content-Length over the body limit gets its refusal at once, no 100.
//   - any other expectation (`checkExpectation`): Node would answer a bare 417 (no body, no
//     no-store, no HSTS). RFC 9110 §10.1.1 lets a server ignore an expectation it does not know
//     (417 is a MAY): the request is served as if the field were absent, so the token endpoint
//     and the gateway decide it (their JSON, their headers).
//   - `CONNECT` (`connect`): Node would close the socket without a word; the gateway answers
//     400 `000-1002` (an authority-form target) and closes the connection.
//   - a client that half-closes after its request: answered, then the connection ends (Node would
//     abort the request in flight).
// And what is left of a body after the answer (`limitBodyAfterAnswer`): a refused body is never
// read to its end. The server keeps discarding at most `lingerBytes` more (so a client still
// sending a moderately oversized body reads the answer instead of a reset) and then closes the
// connection; Node would otherwise read the rest, however large, to keep the connection.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { gatewayErrors } from '../../../schemas/gateway-error-codes.ts';

/** How much of a refused body is still read (and thrown away) after the answer, bytes. */
export const DEFAULT_LINGER_BYTES = 256 * 1024;

export interface EdgeOptions {
  bodyLimit: number;
  /** Headers every answer written here carries besides the JSON ones (HSTS over HTTPS). */
  extraHeaders: Readonly<Record<string, string>>;
  lingerBytes?: number;
}

export function handleEdgeEvents(app: FastifyInstance, options: EdgeOptions): void {
  const server: Server & { httpAllowHalfOpen?: boolean } = app.server;
  // A client may half-close its side once the request is sent (shutdown(SHUT_WR)); Node would then
  // abort the request in flight and close without an answer. Half-open, the answer still goes out
  // and the connection ends after it.
  server.httpAllowHalfOpen = true;
  const serve = (request: IncomingMessage, response: ServerResponse): void => {
    server.emit('request', request, response);
  };
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    const declared = Number(request.headers['content-length'] ?? '0');
    const chunked = request.headers['transfer-encoding'] !== undefined;
    // 100 only for a body the server would read: none over the limit (a well-behaved client then
    // never sends the body it would waste), none without a body at all (an interim answer to a
    // bodiless HEAD confuses the answer after it).
    if ((chunked || declared > 0) && !(declared > options.bodyLimit)) response.writeContinue();
    serve(request, response);
  });
  server.on('checkExpectation', serve);
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    writeGatewayAnswerAndClose(socket, '000-1002', options.extraHeaders);
  });
  limitBodyAfterAnswer(app, options.lingerBytes ?? DEFAULT_LINGER_BYTES);
}

/**
 * Once the answer is sent, a request body that was not read to its end (refused for its size,
 * its media type, its credentials) is discarded up to `lingerBytes` more; then the connection
 * is closed. Registered on the root instance before any route, so every route inherits it.
 */
export function limitBodyAfterAnswer(app: FastifyInstance, lingerBytes: number): void {
  app.addHook('onResponse', (request, _reply, done) => {
    const raw = request.raw;
    if (!raw.complete && !raw.destroyed) {
      let discarded = 0;
      raw.on('data', (chunk: Buffer) => {
        discarded += chunk.length;
        if (discarded > lingerBytes) raw.socket.destroy();
      });
      raw.resume();
    }
    done();
  });
}

/** A gateway refusal written to a socket Fastify never saw, then the connection closed. */
export function writeGatewayAnswerAndClose(
  socket: Duplex,
  code: keyof typeof gatewayErrors,
  extraHeaders: Readonly<Record<string, string>>,
): void {
  if (socket.destroyed) return;
  const { status, message } = gatewayErrors[code];
  const body = JSON.stringify({ code, message });
  const extra = Object.entries(extraHeaders)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : 'Error'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}
