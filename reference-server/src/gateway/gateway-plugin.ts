// The gateway as a Fastify plugin. Fastify only delivers requests here; every decision is made
// by GatewayPipeline on the raw request (see gateway-pipeline.ts for the order). The gateway
// takes every path except the app builder's (token endpoints, JWKS, clock control):
//   - a catch-all route for every method Fastify routes, and the not-found handler for the
//     methods it does not, inside an encapsulated context whose only body parser reads raw
//     bytes (bounded), so that JSON errors are the gateway's own codes;
//   - gatewayFrameworkError for URLs the router refuses to decode (Fastify `frameworkErrors`);
//   - gatewayClientError for messages Node cannot frame (Fastify `clientErrorHandler`).
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { gatewayErrors } from '../../../schemas/gateway-error-codes.ts';
import { FaultSwitch, isFaultName } from './faults.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { GatewayPipeline } from './gateway-pipeline.ts';
import type { GatewayDecision } from './gateway-pipeline.ts';
import { reject, rejectionBody, rejectionStatus } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';
import { PeopleBackend } from './people-backend.ts';
import { FixedWindowRateLimiter } from './rate-limiter.ts';
import { collectRawBody, rawRequestFrom } from './raw-request.ts';
import type { RawBody } from './raw-request.ts';
import { registerTestControls } from './test-controls.ts';
import { CachingAccessTokenVerifier } from './verified-token-cache.ts';

/** The gateway of each app, for the framework hooks that only get the request. */
const pipelines = new WeakMap<object, GatewayPipeline>();

export interface RegisteredGateway {
  faults: FaultSwitch;
  rateLimiter: FixedWindowRateLimiter;
  backend: PeopleBackend;
}

export async function registerGateway(app: FastifyInstance, deps: GatewayDeps): Promise<RegisteredGateway> {
  const faults = new FaultSwitch();
  const rateLimiter = new FixedWindowRateLimiter(deps.rateLimits, deps.clock);
  const backend = new PeopleBackend(deps.store, deps.clock, deps.peopleSearch);
  // Verified tokens are cached; expiry and revocation are still decided on every request.
  const verifier = new CachingAccessTokenVerifier(deps.verifier, deps.clock);
  const pipeline = new GatewayPipeline({ ...deps, verifier }, faults, rateLimiter, backend);
  pipelines.set(app, pipeline);

  await app.register((gateway, _options, done) => {
    gateway.removeAllContentTypeParsers();
    gateway.addContentTypeParser('*', (_request: FastifyRequest, payload: FastifyRequest['raw']) =>
      collectRawBody(payload),
    );

    const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const raw = rawRequestFrom(request.raw, request.body as RawBody | undefined);
      let decision: GatewayDecision;
      try {
        decision = await pipeline.decide(raw);
      } catch (error) {
        request.log.error({ err: error }, 'gateway failed unexpectedly');
        decision = { kind: 'rejected', rejection: reject('000-1004', { detail: 'unexpected gateway error' }) };
      }
      return sendDecision(request, reply, decision);
    };

    // Only Fastify's body handling gets here (`handle` catches its own errors). A client error
    // before the body was read (a Content-Type Fastify cannot parse: `application/`, `;`, `a, b`;
    // a Content-Length that does not match) is the client's: the request is decided without a
    // body, in the usual order (so an unauthenticated caller still gets 000-1201, a note 000-1005).
    // A client that went away mid-body (a timeout, a reset) is not a server failure; anything else
    // is 000-1004. Either way the answer is the gateway's JSON, never Fastify's default body.
    gateway.setErrorHandler(async (error, request, reply) => {
      const status = (error as { statusCode?: unknown }).statusCode;
      const aborted = errorCode(error) === 'ECONNRESET' || request.raw.destroyed;
      if (!aborted && typeof status === 'number' && status >= 400 && status < 500) {
        return handle(request, reply);
      }
      if (!aborted) request.log.error({ err: error }, 'gateway failed unexpectedly');
      const rejection = aborted
        ? reject('000-1000', { detail: 'the client aborted the request' })
        : reject('000-1004', { detail: 'unexpected gateway error' });
      return sendDecision(request, reply, { kind: 'rejected', rejection });
    });
    gateway.all('*', handle);
    gateway.setNotFoundHandler(handle);
    const shared = deps.sharedFault;
    if (deps.testControls && shared) {
      gateway.addHook('onRequest', async () => {
        const name = await shared.read();
        faults.set(isFaultName(name) ? name : null);
      });
    }
    if (deps.testControls) registerTestControls(gateway, faults, deps.store, shared);
    done();
  });
  return { faults, rateLimiter, backend };
}

/** Fastify `frameworkErrors`: the router could not decode the URL (or a parameter was too long). */
export function gatewayFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  const pipeline = pipelines.get(request.server);
  const routed = pipeline?.route(rawRequestFrom(request.raw, undefined));
  const rejection =
    routed !== undefined && 'code' in routed
      ? routed
      : reject('000-1010', { detail: `router refused the URL (${errorCode(error)})` });
  void sendDecision(request, reply, { kind: 'rejected', rejection });
}

/** Fastify `clientErrorHandler`: Node's HTTP parser could not frame the message. */
export function gatewayClientError(error: Error, socket: Duplex): void {
  writeClientError(error, socket, '');
}

/**
 * `gatewayClientError` with extra response headers (e.g. Strict-Transport-Security over HTTPS):
 * this answer is written to the socket directly, so no Fastify hook sees it.
 */
export function gatewayClientErrorWith(
  headers: Readonly<Record<string, string>>,
): (error: Error, socket: Duplex) => void {
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (error, socket) => writeClientError(error, socket, extra);
}

function writeClientError(error: Error, socket: Duplex, extraHeaders: string): void {
  const code = errorCode(error);
  if (code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const gatewayCode = code === 'HPE_INVALID_URL' ? '000-1010' : '000-1000';
    const { status, message } = gatewayErrors[gatewayCode];
    const body = JSON.stringify({ code: gatewayCode, message });
    socket.write(
      `HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : 'Error'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n${extraHeaders}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * The JSON of answers whose body cannot change — a frozen object of plain values (the view of a
 * person the store keeps, people-backend.ts) — serialized once, not on every request for it.
 */
const unchangeableBodies = new WeakMap<object, string>();

function answerJson(body: unknown): string {
  if (typeof body !== 'object' || body === null || !Object.isFrozen(body)) return JSON.stringify(body);
  let json = unchangeableBodies.get(body);
  if (json === undefined) {
    json = JSON.stringify(body);
    if (Object.values(body).every((value) => typeof value !== 'object' || value === null))
      unchangeableBodies.set(body, json);
  }
  return json;
}

function sendDecision(request: FastifyRequest, reply: FastifyReply, decision: GatewayDecision): FastifyReply {
  reply.header('content-type', 'application/json').header('cache-control', 'no-store');
  switch (decision.kind) {
    case 'answered':
      return reply.code(decision.status).send(answerJson(decision.body));
    case 'not-gateway':
      return reply.code(404).send(JSON.stringify({ error: 'not_found', message: 'Not Found' }));
    case 'rejected':
      return sendRejection(request, reply, decision.rejection);
  }
}

function sendRejection(request: FastifyRequest, reply: FastifyReply, rejection: GatewayRejection): FastifyReply {
  request.log.info({ gatewayCode: rejection.code, reason: rejection.detail }, 'gateway refused the request');
  for (const [name, value] of Object.entries(rejection.headers)) reply.header(name, value);
  return reply.code(rejectionStatus(rejection)).send(JSON.stringify(rejectionBody(rejection)));
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown';
}
