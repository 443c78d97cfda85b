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
import { Http1Tap, requestFraming, responseFraming, type BodyFraming, type MessageHead } from './http1-tap.ts';
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
  const origin = `${upstream.protocol}//${upstream.host}`;
  const waiting: PendingRequest[] = [];
  let request: PendingRequest | undefined;
  let response: PendingResponse | undefined;
  /** Whether the last exchange leaves the connection open for another (neither side said `Connection: close`). */
  let keepAlive = true;
  /** A framing that ends only with the connection (or leaves HTTP) keeps nothing after it. */
  const keptOn = (framing: BodyFraming): BodyFraming => {
    if (framing.kind === 'until-close' || framing.kind === 'tunnel' || framing.kind === 'unknown') keepAlive = false;
    return framing;
  };
  /** When the last answer ended, and how long the target said it keeps an idle connection (its Keep-Alive hint). */
  let idleSince = 0;
  let idleHintMs: number | undefined;
  client.setNoDelay(true);
  options.sockets.add(client);

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
        if (!persists(head)) keepAlive = false;
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
      framing: (head) => keptOn(requestFraming(head.headers)),
      rewriteHeadLine: (line, index) => rewriteOwnAuthority(line, index, options.own, upstream),
      headLimit,
    },
  );

  /** The target's side: one connection at a time, opened again for a request after the target closed an idle one. */
  let target: Socket | undefined;
  let finished = false;
  const open = (): Socket => {
    const secure = upstream.protocol === 'https:';
    const port = Number(upstream.port || (secure ? 443 : 80));
    const socket = secure
      ? tlsConnect({
          host: upstream.hostname,
          port,
          ...(isIP(upstream.hostname) ? {} : { servername: upstream.hostname }),
          ...(options.ca ? { ca: options.ca } : {}),
          ALPNProtocols: ['http/1.1'],
        })
      : netConnect({ host: upstream.hostname, port, allowHalfOpen: true });
    options.sockets.add(socket);
    socket.setNoDelay(true);
    const responses = new Http1Tap(
      {
        head(head) {
          const status = statusOf(head);
          if (!persists(head)) keepAlive = false;
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
          idleHintMs = keepAliveHintMs(answered.headers);
          idleSince = Date.now();
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
        framing: (head) => keptOn(responseFraming(statusOf(head), head.headers, waiting[0]?.method)),
        headLimit,
      },
    );
    socket.on('data', (chunk: Buffer) => {
      // The tap records an exchange that completes in this chunk before the client can see it complete.
      if (!client.write(responses.push(chunk))) socket.pause();
    });
    socket.on('drain', () => client.resume());
    let ended = false;
    /** Replaced by another connection (targetFor): its close is no longer the client's business. */
    let retired = false;
    /** The target ended this connection: passed on to the client, unless it only closed an idle keep-alive connection. */
    const ends = () => {
      if (ended) return;
      ended = true;
      responses.close();
      options.sockets.delete(socket);
      if (retired) return;
      // Between exchanges of a connection both sides meant to keep, the target closing it is its idle
      // timeout, not an answer: the client keeps its connection, and its next request opens another.
      // Passing the close on would race the client's next request, which the client sends by its own
      // reckoning of that timeout (late by however long this hop took to pass the last answer on).
      if (keptIdle() && !client.destroyed && !client.readableEnded) {
        target = undefined;
        socket.end();
        return;
      }
      finish();
      if (!client.destroyed) client.end();
    };
    socket.on('end', ends);
    socket.on('close', ends);
    // A reset on one side is a reset on the other: the client sees what the target did.
    socket.on('error', () => {
      if (retired || keptIdle()) return;
      if (!client.destroyed) client.resetAndDestroy();
    });
    retire.set(socket, () => {
      retired = true;
      options.sockets.delete(socket);
      socket.end();
    });
    return socket;
  };
  const retire = new WeakMap<Socket, () => void>();
  /** An exchange ended on this connection, both sides keep it, and nothing of another has begun. */
  const keptIdle = () => keepAlive && idleSince > 0 && idle();
  /** No request of the client waits for an answer, and none has begun. */
  const idle = () => waiting.length === 0 && request === undefined && response === undefined && requests.between;
  /**
   * The connection to send the client's next bytes on. At the start of a request after an idle time
   * close to what the target said it keeps idle connections, a new one: the target may be closing the
   * old one as the request reaches it.
   */
  const targetFor = (): Socket => {
    if (target && idle() && idleHintMs !== undefined && Date.now() - idleSince >= idleHintMs - idleMarginMs) {
      retire.get(target)?.();
      target = undefined;
    }
    target ??= open();
    return target;
  };

  target = open();
  client.on('data', (chunk: Buffer) => {
    const to = targetFor();
    if (!to.write(requests.push(chunk))) client.pause();
  });
  client.on('drain', () => target?.resume());

  /** No answer can come any more: the requests still waiting are recorded unanswered. */
  const finish = () => {
    if (finished) return;
    finished = true;
    for (const pending of waiting.splice(0)) record(pending);
    options.sockets.delete(client);
  };
  // The client's end goes on to the target, whose end comes back to the client; with no connection
  // to the target open (it closed an idle one), it comes back at once.
  client.on('end', () => (target ? target.end() : client.end()));
  client.on('error', () => target?.destroy());
  client.on('close', () => {
    finish();
    target?.destroy();
  });
}

/** Closing an idle connection this long before the target's stated keep-alive time: a request never meets its close. */
const idleMarginMs = 2000;

/** Whether a message leaves its connection open (RFC 9112 §9.3): HTTP/1.1 without `close`, HTTP/1.0 with `keep-alive`. */
function persists(head: MessageHead): boolean {
  const tokens = head.headers
    .filter(([n]) => n.toLowerCase() === 'connection')
    .flatMap(([, v]) => v.split(',').map((t) => t.trim().toLowerCase()));
  if (tokens.includes('close')) return false;
  return /HTTP\/1\.1/.test(head.startLine) || tokens.includes('keep-alive');
}

/** The `timeout` of a `Keep-Alive` header, in ms. */
function keepAliveHintMs(headers: HeaderList): number | undefined {
  const value = headers.find(([n]) => n.toLowerCase() === 'keep-alive')?.[1];
  const seconds = value ? /(?:^|,)\s*timeout\s*=\s*(\d{1,6})/i.exec(value)?.[1] : undefined;
  return seconds === undefined ? undefined : Number(seconds) * 1000;
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
