// The fault-injecting proxy of the self-validation: a small node:https server on 127.0.0.1 in
// front of any target. It forwards every request to the upstream origin (TLS verified against the
// target's CA), buffering request and response, and lets ONE fault rewrite the request before it
// leaves, answer it itself, or rewrite the response before it returns. With no fault it is a
// transparent pass-through (self-validation/test/proxy.test.ts proves it).
//
// It serves HTTPS with its own generated certificate (EC P-256, `selfsigned`); the run's profile
// points at the proxy and trusts the proxy's CA (`caFile`). Optionally it also listens on plain
// HTTP and forwards there too (the "plain HTTP accepted" fault).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import {
  Agent as HttpsAgent,
  createServer as createHttpsServer,
  request as httpsRequest,
  type Server as HttpsServer,
} from 'node:https';
import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { hopByHop } from '../harness/audit/body-tap.ts';

export type Headers = Record<string, string | string[]>;

export interface ProxyRequest {
  method: string;
  /** The request-target exactly as received (path and query, or absolute-form, or `*`). */
  path: string;
  /** Lower-case names; repeated headers as arrays, in order. */
  headers: Headers;
  body: Buffer;
}

export interface ProxyResponse {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** What a request is, by its path: the token endpoints, the test controls, or the gateway. */
export type RequestKind =
  'token-us' | 'token-eu' | 'token-other-version' | 'clock' | 'faults' | 'principals' | 'gateway';

export const tokenPaths = { us: '/api/v1/auth/oauth2/token', eu: '/oauth2/default/v1/token' } as const;

export function requestKind(target: string): RequestKind {
  let path = target;
  try {
    path = new URL(target, 'https://proxy.invalid').pathname;
  } catch {
    path = target.split('?')[0] ?? target;
  }
  if (path === tokenPaths.us) return 'token-us';
  if (path === tokenPaths.eu) return 'token-eu';
  if (/^\/api\/v[^/]*\/auth\/oauth2\/token$/.test(path)) return 'token-other-version';
  if (path === '/__test/clock') return 'clock';
  if (path === '/__test/faults') return 'faults';
  if (path.startsWith('/__test/principals')) return 'principals';
  return 'gateway';
}

export function isTokenKind(kind: RequestKind): boolean {
  return kind === 'token-us' || kind === 'token-eu';
}

export interface FaultContext {
  kind: RequestKind;
  /** Sends a request to the upstream as the proxy would (for faults that need a token or a replay). */
  forward(req: ProxyRequest): Promise<ProxyResponse>;
  /** Per-proxy state that lives as long as the proxy (one fault run). */
  state: Map<string, unknown>;
  /** The upstream's host:port, for requests the fault makes itself. */
  upstreamHost: string;
}

export type RequestHookResult = ProxyRequest | { respond: ProxyResponse };

/** One fault, as the proxy applies it. Every member is optional: an empty object is the pass-through. */
export interface ProxyFault {
  onRequest?(req: ProxyRequest, ctx: FaultContext): RequestHookResult | Promise<RequestHookResult>;
  onResponse?(res: ProxyResponse, req: ProxyRequest, ctx: FaultContext): ProxyResponse | Promise<ProxyResponse>;
  /**
   * The target behind the proxy was restarted (its restart control, capabilities.restartControlUrl):
   * a fault that plays a target with volatile state loses it here.
   */
  onTargetRestart?(state: Map<string, unknown>): void;
  /** TLS of the proxy's HTTPS listener (e.g. TLS 1.0 allowed). */
  tls?: { minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2'; ciphers?: string };
  /** Also listen on plain HTTP and forward there. */
  plainHttp?: boolean;
}

export interface ProxyOptions {
  /** The upstream origin, e.g. https://127.0.0.1:41234. */
  upstream: string;
  /** PEM of the CA that signs the upstream's certificate. */
  upstreamCa?: string;
  fault?: ProxyFault;
  /** Where to write the proxy's CA (default: a fresh private temp directory). */
  dir?: string;
}

export interface RunningProxy {
  /** https://127.0.0.1:<port> */
  url: string;
  /** http://127.0.0.1:<port>, when the fault asked for a plain-HTTP listener. */
  plainUrl?: string;
  /** The proxy's certificate (PEM file): the caFile of a profile that points at the proxy. */
  caFile: string;
  caPem: string;
  /** Requests seen (for tests and the log). */
  requests: number;
  close(): Promise<void>;
}

/** Headers from a raw header list, repeated ones kept in order, hop-by-hop ones dropped. */
export function headersFromRaw(raw: string[]): Headers {
  const out: Headers = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    if (hopByHop.has(name)) continue;
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else out[name] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}

export function header(h: Headers, name: string): string | undefined {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

function readBody(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

export async function generateProxyCertificate(
  altNames: string[] = ['127.0.0.1', 'localhost'],
): Promise<{ key: string; cert: string }> {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: 'token-conformance self-validation proxy' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + 2 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: altNames.map((n) =>
          /^[\d.]+$|:/.test(n) ? { type: 7 as const, ip: n } : { type: 2 as const, value: n },
        ),
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

let sharedCertificate: Promise<{ key: string; cert: string }> | undefined;

/** An upstream request that failed on a reused keep-alive socket the target had closed. */
class StaleSocketError extends Error {
  constructor(readonly cause: Error) {
    super(cause.message);
  }
}

/** The proxy's certificate (one per process) and its CA file, in `options.dir` or a directory of its own. */
async function proxyCertificate(
  options: ProxyOptions,
): Promise<{ key: string; cert: string; caFile: string; removeDir: () => void }> {
  sharedCertificate ??= generateProxyCertificate();
  const { key, cert } = await sharedCertificate;
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'token-conformance-proxy-'));
  const caFile = join(dir, `proxy-ca-${randomUUID().slice(0, 8)}.pem`);
  writeFileSync(caFile, cert, { mode: 0o600 });
  return {
    key,
    cert,
    caFile,
    removeDir: () => {
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Sends a request on to the upstream and resolves with its answer. `proxyHosts`: the proxy's own
 * addresses (filled in once it listens), whose Host header becomes the upstream's.
 */
function upstreamForwarder(
  upstream: URL,
  agent: HttpAgent | HttpsAgent,
  proxyHosts: readonly string[],
): (req: ProxyRequest) => Promise<ProxyResponse> {
  const upstreamHttps = upstream.protocol === 'https:';
  const forwardOnce = (req: ProxyRequest): Promise<ProxyResponse> =>
    new Promise((resolve, reject) => {
      const headers: Headers = { ...req.headers };
      const host = header(headers, 'host');
      // Our own host (the profile's address) becomes the upstream's; a foreign or absent Host goes on as is.
      if (host !== undefined && proxyHosts.includes(host.toLowerCase())) headers.host = upstream.host;
      if (req.body.length > 0 || headers['content-length'] !== undefined)
        headers['content-length'] = String(req.body.length);
      const send = upstreamHttps ? httpsRequest : httpRequest;
      const out = send(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.path,
          agent,
          setHost: false,
        },
        (res) => {
          void readBody(res).then((body) => {
            const h = headersFromRaw(res.rawHeaders);
            delete h['content-length'];
            resolve({ status: res.statusCode ?? 502, headers: h, body });
          }, reject);
        },
      );
      out.on('error', (error: NodeJS.ErrnoException) => {
        reject(
          out.reusedSocket && (error.code === 'ECONNRESET' || error.message === 'socket hang up')
            ? new StaleSocketError(error)
            : error,
        );
      });
      for (const [name, value] of Object.entries(headers)) out.setHeader(name, value);
      out.end(req.body);
    });
  // A kept-alive upstream socket may be closed by the target (its keep-alive timeout) just as a
  // request is written on it: the request never reached the target, so it is sent again on a new
  // socket (Node's advice for `reusedSocket`). Anything else is the target's answer, or a 502.
  return async (req) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await forwardOnce(req);
      } catch (error) {
        if (!(error instanceof StaleSocketError) || attempt >= 3)
          throw error instanceof StaleSocketError ? error.cause : error;
      }
    }
  };
}

/** What the proxy applies to a request: a fault, its state, and the upstream it forwards to. */
interface Member {
  fault: ProxyFault;
  state: Map<string, unknown>;
  forward: (req: ProxyRequest) => Promise<ProxyResponse>;
  upstream: URL;
}

/**
 * One proxied exchange: the fault's request hook, the upstream (unless the hook answered), the
 * fault's response hook; a 502 when the upstream fails. `memberOf` names the fault (and upstream)
 * in force when the request arrives; `inFlight` counts exchanges not yet answered.
 */
function proxyHandler(
  memberOf: () => Promise<Member>,
  running: RunningProxy,
  inFlight: { count: number; drained: () => void },
): (inReq: IncomingMessage, inRes: ServerResponse) => void {
  const handle = async (inReq: IncomingMessage, inRes: ServerResponse) => {
    running.requests += 1;
    // The member in force when the request arrives serves it, even if a switch follows.
    const member = memberOf();
    try {
      const { fault, state, forward, upstream } = await member;
      const body = await readBody(inReq);
      let req: ProxyRequest = {
        method: inReq.method ?? 'GET',
        path: inReq.url ?? '/',
        headers: headersFromRaw(inReq.rawHeaders),
        body,
      };
      const ctx: FaultContext = { kind: requestKind(req.path), forward, state, upstreamHost: upstream.host };
      let res: ProxyResponse;
      const hooked = fault.onRequest ? await fault.onRequest(req, ctx) : req;
      if ('respond' in hooked) res = hooked.respond;
      else {
        req = hooked;
        res = await forward(req);
        if (fault.onResponse) res = await fault.onResponse(res, req, ctx);
      }
      const h: Headers = { ...res.headers };
      delete h['content-length'];
      for (const [name, value] of Object.entries(h)) inRes.setHeader(name, value);
      // A response that may carry a body says how long it is; 204/304 and HEAD answers carry none.
      if (res.status !== 204 && res.status !== 304) inRes.setHeader('content-length', String(res.body.length));
      inRes.writeHead(res.status);
      inRes.end(req.method === 'HEAD' ? undefined : res.body);
    } catch (error) {
      if (!inRes.headersSent) {
        inRes.writeHead(502, { 'content-type': 'text/plain' });
        inRes.end(`self-validation proxy: upstream failed: ${(error as Error).message}`);
      } else inRes.destroy();
    }
  };
  return (a, b) => {
    inFlight.count += 1;
    void handle(a, b).finally(() => {
      inFlight.count -= 1;
      if (inFlight.count === 0) inFlight.drained();
    });
  };
}

const listen = (server: HttpServer | HttpsServer) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });

const closeServer = (server: HttpServer | HttpsServer) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/**
 * Listens on loopback: TLS (with the fault's TLS settings), and plain HTTP too when the fault asks.
 * Sets the running proxy's addresses and adds them to `proxyHosts`.
 */
async function listenProxy(
  fault: ProxyFault,
  tls: { key: string; cert: string },
  onRequest: (inReq: IncomingMessage, inRes: ServerResponse) => void,
  running: RunningProxy,
  proxyHosts: string[],
): Promise<(HttpServer | HttpsServer)[]> {
  const tlsServer: HttpsServer = createHttpsServer(
    {
      key: tls.key,
      cert: tls.cert,
      requireHostHeader: false,
      ...(fault.tls?.minVersion ? { minVersion: fault.tls.minVersion } : {}),
      ...(fault.tls?.ciphers ? { ciphers: fault.tls.ciphers } : {}),
    },
    onRequest,
  );
  const port = await listen(tlsServer);
  running.url = `https://127.0.0.1:${port}`;
  proxyHosts.push(`127.0.0.1:${port}`, `localhost:${port}`);
  if (!fault.plainHttp) return [tlsServer];
  const plainServer = createHttpServer({ requireHostHeader: false }, onRequest);
  const plainPort = await listen(plainServer);
  running.plainUrl = `http://127.0.0.1:${plainPort}`;
  proxyHosts.push(`127.0.0.1:${plainPort}`, `localhost:${plainPort}`);
  return [tlsServer, plainServer];
}

function upstreamAgent(upstream: URL, upstreamCa: string | undefined): HttpAgent | HttpsAgent {
  return upstream.protocol === 'https:'
    ? new HttpsAgent({ keepAlive: true, maxSockets: 64, ...(upstreamCa ? { ca: upstreamCa } : {}) })
    : new HttpAgent({ keepAlive: true, maxSockets: 64 });
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  return startSwitchingProxy({
    members: [
      {
        id: 'only',
        upstream: options.upstream,
        ...(options.upstreamCa ? { upstreamCa: options.upstreamCa } : {}),
        ...(options.fault ? { fault: options.fault } : {}),
      },
    ],
    ...(options.dir ? { dir: options.dir } : {}),
  });
}

/** One fault of a switching proxy, with the upstream it forwards to while it is in force. */
export interface ProxyMember {
  id: string;
  upstream: string;
  upstreamCa?: string;
  /** An upstream still starting: the member is put in force once it is known (`upstream` is then ignored); a rejection refuses the member. */
  later?: Promise<{ upstream: string; upstreamCa?: string }>;
  fault?: ProxyFault;
}

export interface SwitchingProxy extends RunningProxy {
  /**
   * Puts a member's fault (and upstream) in force for the requests that arrive from now on, once
   * its upstream is known and every exchange already under way has been answered: no request is
   * ever served by two faults, and a member's state is its own. Rejects when the member's upstream failed.
   */
  select(id: string): Promise<void>;
  /** The member in force. */
  selected(): string;
  /** The target of the member in force was restarted: its fault hears of it (ProxyFault.onTargetRestart). */
  restarted(): Promise<void>;
}

/**
 * A proxy that serves several faults one at a time, each with its own state and upstream: one
 * Playwright worker runs the checks of many faults through it, switching before each check
 * (self-validation/fault-switch.ts). Listener settings (TLS, plain HTTP) are one per
 * proxy, so members must not ask for any: a fault that does gets a proxy of its own.
 */
export async function startSwitchingProxy(options: { members: ProxyMember[]; dir?: string }): Promise<SwitchingProxy> {
  const [first] = options.members;
  if (!first) throw new Error('a proxy needs at least one member');
  if (options.members.length > 1 && options.members.some((m) => m.fault?.tls || m.fault?.plainHttp)) {
    throw new Error('a fault with its own TLS or plain-HTTP listener needs a proxy of its own');
  }
  const certificate = await proxyCertificate({
    upstream: first.upstream,
    ...(options.dir ? { dir: options.dir } : {}),
  });
  const proxyHosts: string[] = [];
  const agents: (HttpAgent | HttpsAgent)[] = [];
  let closed = false;
  const members = new Map<string, Promise<Member>>(
    options.members.map((m) => {
      const target =
        m.later ?? Promise.resolve({ upstream: m.upstream, ...(m.upstreamCa ? { upstreamCa: m.upstreamCa } : {}) });
      const ready = target.then(({ upstream: origin, upstreamCa }) => {
        const upstream = new URL(origin);
        const agent = upstreamAgent(upstream, upstreamCa);
        agents.push(agent);
        if (closed) agent.destroy();
        return {
          fault: m.fault ?? {},
          state: new Map<string, unknown>(),
          forward: upstreamForwarder(upstream, agent, proxyHosts),
          upstream,
        };
      });
      ready.catch(() => undefined); // reported by select(); never an unhandled rejection
      return [m.id, ready];
    }),
  );
  let active = first.id;
  let waiters: (() => void)[] = [];
  const inFlight = {
    count: 0,
    drained: () => {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    },
  };
  const running: SwitchingProxy = {
    url: '',
    caFile: certificate.caFile,
    caPem: certificate.cert,
    requests: 0,
    close: () => Promise.resolve(),
    async select(id) {
      const member = members.get(id);
      if (!member) throw new Error(`no fault '${id}' on this proxy`);
      await member;
      while (inFlight.count > 0) await new Promise<void>((resolve) => waiters.push(resolve));
      active = id;
    },
    selected: () => active,
    async restarted() {
      const { fault, state } = await members.get(active)!;
      fault.onTargetRestart?.(state);
    },
  };
  const onRequest = proxyHandler(() => members.get(active)!, running, inFlight);
  const servers = await listenProxy(first.fault ?? {}, certificate, onRequest, running, proxyHosts);
  running.close = async () => {
    closed = true;
    await Promise.all(servers.map(closeServer));
    for (const agent of agents) agent.destroy();
    certificate.removeDir();
  };
  return running;
}

// ---- helpers for faults ------------------------------------------------------------------------

/** The JSON object of a body, or undefined. */
export function jsonOf(body: Buffer): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The response with a new JSON body. */
export function withJson(res: ProxyResponse, value: unknown): ProxyResponse {
  return { ...res, body: Buffer.from(JSON.stringify(value)) };
}

/** Form fields in order, duplicates kept. */
export function formOf(body: Buffer): [string, string][] {
  return [...new URLSearchParams(body.toString('utf8'))];
}

export function withForm(req: ProxyRequest, fields: [string, string][]): ProxyRequest {
  return { ...req, body: Buffer.from(new URLSearchParams(fields).toString()) };
}

export function withoutHeader(h: Headers, name: string): Headers {
  const copy = { ...h };
  delete copy[name.toLowerCase()];
  return copy;
}
