// One client connection of `record`, relayed to the target on a connection of its own: every byte the
// client sends reaches the target as sent, and every byte the target answers reaches the client as
// answered, so that what the suite sees through the recorder is what it would see without it. The
// one change is the Host header (and an absolute request target) naming the recorder's own address:
// that is rewritten to the target's, as a reverse proxy must for the target to know itself; a Host
// that names anything else, or none, passes untouched. The recorder never answers a request itself:
// a target it cannot reach gets the client's connection closed, as a refused connection would.
// Both directions are read passively (http1-tap.ts) to cut the stream into exchanges for the record.
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { BodyTap, hopByHop } from './body-tap.ts';
import type { HeaderList } from './exchange.ts';
import { Http1Tap, requestFraming, responseFraming, type MessageHead } from './http1-tap.ts';
import type { RecordedExchange } from './recording-format.ts';

export interface RelayOptions {
  upstream: URL;
  /** The recorder's own authorities for this address (`127.0.0.1:PORT`), the Host values rewritten. */
  own: ReadonlySet<string>;
  ca?: string;
  /** Bytes kept of each body. */
  limit: number;
  /** Every open socket, so that the recorder can close them. */
  sockets: Set<Socket>;
  nextIndex(): number;
  append(exchange: RecordedExchange): void;
}

/** A head larger than Node's own default (16 KiB) by far: a target may still accept it. */
const headLimit = 256 * 1024;

interface PendingRequest {
  index: number;
  started: number;
  method: string;
  url: string;
  headers: HeaderList;
  tap: BodyTap;
  /** Why this request is not an ordinary HTTP/1.1 request, or why the rest of its connection was not read. */
  malformed?: string;
}

interface PendingResponse {
  status: number;
  headers: HeaderList;
  tap: BodyTap;
  interim: boolean;
}

const recordedHeaders = (headers: HeaderList): HeaderList => headers.filter(([n]) => !hopByHop.has(n.toLowerCase()));

export function relay(client: Socket, options: RelayOptions): void {
  const { upstream } = options;
  const secure = upstream.protocol === 'https:';
  const port = Number(upstream.port || (secure ? 443 : 80));
  const target = secure
    ? tlsConnect({
        host: upstream.hostname,
        port,
        ...(isIP(upstream.hostname) ? {} : { servername: upstream.hostname }),
        ...(options.ca ? { ca: options.ca } : {}),
        ALPNProtocols: ['http/1.1'],
      })
    : netConnect({ host: upstream.hostname, port, allowHalfOpen: true });
  options.sockets.add(client).add(target);
  client.setNoDelay(true);
  target.setNoDelay(true);

  const origin = `${upstream.protocol}//${upstream.host}`;
  const waiting: PendingRequest[] = [];
  let request: PendingRequest | undefined;
  let response: PendingResponse | undefined;

  const record = (pending: PendingRequest, answer?: PendingResponse) =>
    options.append({
      index: pending.index,
      startedAt: new Date(pending.started).toISOString(),
      durationMs: Date.now() - pending.started,
      request: {
        method: pending.method,
        url: pending.url,
        headers: recordedHeaders(pending.headers),
        body: pending.tap.body(pending.headers),
        ...(pending.malformed ? { malformed: pending.malformed } : {}),
      },
      ...(answer
        ? {
            response: {
              status: answer.status,
              headers: recordedHeaders(answer.headers),
              body: answer.tap.body(answer.headers),
            },
          }
        : {}),
    });

  const requests = new Http1Tap(
    {
      head(head) {
        request = pendingRequest(head, origin, options);
        waiting.push(request);
      },
      body: (chunk) => request?.tap.take(chunk),
      end: () => {
        request = undefined;
      },
      unread(reason) {
        const last = waiting[waiting.length - 1];
        if (last) last.malformed ??= `the recorder passed the rest of the connection on unread: ${reason}`;
      },
    },
    {
      framing: (head) => requestFraming(head.headers),
      rewriteHeadLine: (line, index) => rewriteOwnAuthority(line, index, options.own, upstream),
      headLimit,
    },
  );
  const responses = new Http1Tap(
    {
      head(head) {
        const status = statusOf(head);
        response = {
          status,
          headers: head.headers,
          tap: new BodyTap(options.limit),
          interim: status >= 100 && status < 200 && status !== 101,
        };
      },
      body: (chunk) => response?.tap.take(chunk),
      end() {
        const answered = response;
        response = undefined;
        if (!answered || answered.interim) return;
        const pending = waiting.shift();
        record(
          pending ?? {
            index: options.nextIndex(),
            started: Date.now(),
            method: '',
            url: `${origin}/`,
            headers: [],
            tap: new BodyTap(0),
            malformed: 'an answer to a request the recorder could not read',
          },
          answered,
        );
      },
      unread() {
        // The answers that follow are not read: the requests still waiting are recorded unanswered at the close.
      },
    },
    {
      framing: (head) => responseFraming(statusOf(head), head.headers, waiting[0]?.method),
      headLimit,
    },
  );

  client.on('data', (chunk: Buffer) => {
    if (!target.write(requests.push(chunk))) client.pause();
  });
  target.on('drain', () => client.resume());
  target.on('data', (chunk: Buffer) => {
    // The tap records an exchange that completes in this chunk before the client can see it complete.
    if (!client.write(responses.push(chunk))) target.pause();
  });
  client.on('drain', () => target.resume());

  let finished = false;
  /** No answer can come any more: the requests still waiting are recorded unanswered. */
  const finish = () => {
    if (finished) return;
    finished = true;
    responses.close();
    for (const pending of waiting.splice(0)) record(pending);
    options.sockets.delete(client);
    options.sockets.delete(target);
  };
  client.on('end', () => target.end());
  target.on('end', () => {
    finish();
    client.end();
  });
  // A reset on one side is a reset on the other: the client sees what the target did.
  client.on('error', () => target.destroy());
  target.on('error', () => (client.destroyed ? undefined : client.resetAndDestroy()));
  client.on('close', () => {
    finish();
    target.destroy();
  });
  target.on('close', () => {
    finish();
    if (!client.destroyed) client.end();
  });
}

function statusOf(head: MessageHead): number {
  const match = /^HTTP\/\d(?:\.\d)? (\d{3})(?: |$)/.exec(head.startLine);
  return match ? Number(match[1]) : 0;
}

function pendingRequest(head: MessageHead, origin: string, options: RelayOptions): PendingRequest {
  const line = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/1\.[01]$/.exec(head.startLine);
  const requestTarget = line?.[2] ?? head.startLine.split(' ')[1] ?? '';
  return {
    index: options.nextIndex(),
    started: Date.now(),
    method: line?.[1] ?? head.startLine.split(' ')[0] ?? '',
    url: urlOf(requestTarget, origin),
    headers: head.headers,
    tap: new BodyTap(options.limit),
    ...(line ? {} : { malformed: `the request line '${head.startLine.slice(0, 200)}' is not HTTP/1.1's` }),
  };
}

/** The recorded URL of a request target: origin-form below the target's origin, absolute-form as sent. */
function urlOf(requestTarget: string, origin: string): string {
  const candidate = requestTarget.startsWith('/') ? `${origin}${requestTarget}` : requestTarget;
  return URL.canParse(candidate) ? candidate : `${origin}/`;
}

/** The Host header, or an absolute request target, naming the recorder's own address names the target's instead. */
function rewriteOwnAuthority(line: string, index: number, own: ReadonlySet<string>, upstream: URL): string {
  if (index === 0) {
    const absolute = /^(\S+) http:\/\/([^/\s]+)(\S*)( HTTP\/\S+)$/i.exec(line);
    return absolute && own.has(absolute[2]!.toLowerCase())
      ? `${absolute[1]} ${upstream.protocol}//${upstream.host}${absolute[3] || '/'}${absolute[4]}`
      : line;
  }
  const host = /^(host)[ \t]*:[ \t]*(.*?)[ \t]*$/i.exec(line);
  return host && own.has(host[2]!.toLowerCase()) ? `${host[1]}: ${upstream.host}` : line;
}
