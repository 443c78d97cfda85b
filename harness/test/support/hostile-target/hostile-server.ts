// A hostile target for tests: a loopback server that answers the requests it picks with one of the
// answer behaviours (answer-behaviours.ts) and, given an upstream (a reference server), forwards
// every other request there untouched, streaming — so that a whole `run` can meet the behaviour on
// some addresses while its setup (reachability, preflight, tokens) still works.
import { mkdtempSync, writeFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateProxyCertificate } from '../../../../self-validation/proxy.ts';
import type { AnswerBehaviour } from './answer-behaviours.ts';

export interface HostileServerOptions {
  behaviour: AnswerBehaviour;
  /** Which requests get the behaviour (default: every one). */
  picks?: (req: IncomingMessage) => boolean;
  /**
   * With an upstream: forward every request, and answer with the behaviour in place of each error
   * answer (status 400 or more; the behaviour keeps that status) — the target's own errors, oversized.
   */
  replacesErrors?: boolean;
  /** Forward the other requests to this origin (https://127.0.0.1:port). */
  upstream?: string;
  upstreamCa?: string;
  /** Listen with TLS (a fresh certificate, written to `caFile`); plain HTTP otherwise. */
  tls?: boolean;
}

export interface HostileServer {
  url: string;
  /** The certificate to trust (with `tls`). */
  caFile?: string;
  /** Requests answered with the behaviour. */
  picked: number;
  close(): Promise<void>;
}

/**
 * The protected API (the gateway): every path but the token endpoints, the test controls and the
 * origin itself (what `run`'s reachability asks for), so that a run gets as far as its checks.
 */
export function gatewayRequest(req: IncomingMessage): boolean {
  const path = (req.url ?? '/').split('?')[0]!;
  return path !== '/' && !/\/oauth2\/(?:default\/v1\/)?token$/.test(path) && !path.startsWith('/__test/');
}

export async function startHostileServer(options: HostileServerOptions): Promise<HostileServer> {
  const picks = options.picks ?? (() => true);
  const upstream = options.upstream !== undefined ? new URL(options.upstream) : undefined;
  const running: HostileServer = { url: '', picked: 0, close: () => Promise.resolve() };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (!upstream || (!options.replacesErrors && picks(req))) {
      running.picked += 1;
      options.behaviour(req, res);
      return;
    }
    const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
    const out = send(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
        ...(options.upstreamCa ? { ca: options.upstreamCa } : {}),
      },
      (answer) => {
        const status = answer.statusCode ?? 502;
        if (options.replacesErrors && status >= 400 && picks(req)) {
          answer.resume();
          running.picked += 1;
          res.statusCode = status;
          options.behaviour(req, res);
          return;
        }
        res.writeHead(status, answer.headers);
        answer.pipe(res);
      },
    );
    out.once('error', () => res.destroy());
    req.pipe(out);
  };
  let server: Server;
  if (options.tls) {
    const certificate = await generateProxyCertificate();
    const dir = mkdtempSync(join(tmpdir(), 'hostile-target-'));
    running.caFile = join(dir, 'ca.pem');
    writeFileSync(running.caFile, certificate.cert);
    server = createHttpsServer({ key: certificate.key, cert: certificate.cert }, handler);
  } else server = createHttpServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  running.url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  running.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return running;
}
