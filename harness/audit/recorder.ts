// The recording reverse proxy of `record`: one loopback listener per address of the profile (US
// token server, EU token server, protected APIs), each forwarding every request to its address
// untouched and streaming both bodies through, while keeping the first bytes of each body for the
// record. Each exchange is digested (secret-digest.ts) and appended as one JSON line in a single
// write as soon as it completes: a killed recorder loses at most the exchanges in flight.
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  Agent as HttpAgent,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { HeaderList, RecordedBody } from './exchange.ts';
import { recordedBodyLimit, recordingFormat, type RecordedExchange, type RecordingHeader } from './recording-format.ts';
import { digestExchange, type Digester } from './secret-digest.ts';

export type AddressName = 'authUrlUs' | 'authUrlEu' | 'baseUrl';
export const addressNames: readonly AddressName[] = ['authUrlUs', 'authUrlEu', 'baseUrl'];

export interface RecorderOptions {
  upstreams: Record<AddressName, string>;
  /** PEM of the CA that signs the target's certificate (the profile's caFile). */
  ca?: string;
  out: string;
  digester: Digester;
  /** Secrets known beforehand (the profile's), digested wherever they appear. */
  known?: readonly string[];
  target?: string;
  bodyLimit?: number;
}

export interface RunningRecorder {
  /** The recorder's origin for each address (http://127.0.0.1:<port> plus the address's path). */
  urls: Record<AddressName, string>;
  /** Exchanges written so far. */
  written(): number;
  close(): Promise<void>;
}

export class RecordingFileError extends Error {
  override readonly name = 'RecordingFileError';
}

const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-authenticate',
  'proxy-authorization',
]);
const textual = (type: string | undefined) =>
  type === undefined || /json|text|xml|x-www-form-urlencoded|javascript/i.test(type);

/** Pairs of a raw header list. */
const pairs = (raw: string[]): HeaderList => {
  const out: HeaderList = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
};

/** Keeps the first `limit` bytes of a stream that passes through, and counts all of them. */
class BodyTap {
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  size = 0;
  constructor(private readonly limit: number) {}
  take(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.#kept >= this.limit) return;
    const part = chunk.subarray(0, this.limit - this.#kept);
    this.#chunks.push(Buffer.from(part));
    this.#kept += part.length;
  }
  body(headers: HeaderList): RecordedBody {
    if (this.size === 0) return { size: 0 };
    const type = headers.find(([n]) => n.toLowerCase() === 'content-type')?.[1];
    const encoding = headers.find(([n]) => n.toLowerCase() === 'content-encoding')?.[1];
    if (!textual(type) || (encoding !== undefined && encoding.toLowerCase() !== 'identity'))
      return { size: this.size, binary: true };
    return {
      text: Buffer.concat(this.#chunks).toString('utf8'),
      size: this.size,
      ...(this.size > this.#kept ? { truncated: true as const } : {}),
    };
  }
}

/** Opens the recording for appending; writes the header line to a new or empty file, refuses a file that is not a recording. */
function openRecording(file: string, header: RecordingHeader): number {
  const fd = openSync(file, 'a+', 0o600);
  const size = fstatSync(fd).size;
  if (size === 0) {
    writeSync(fd, `${JSON.stringify(header)}\n`);
    return fd;
  }
  const head = Buffer.alloc(64);
  readSync(fd, head, 0, head.length, 0);
  if (!head.toString('utf8').startsWith(`{"format":"${recordingFormat}`)) {
    closeSync(fd);
    throw new RecordingFileError(`${file} exists and is not a recording of token-conformance record: give a new file`);
  }
  return fd;
}

export async function startRecorder(options: RecorderOptions): Promise<RunningRecorder> {
  const limit = options.bodyLimit ?? recordedBodyLimit;
  const fd = openRecording(options.out, {
    format: recordingFormat,
    startedAt: new Date().toISOString(),
    key: options.digester.keySource,
    ...(options.target ? { target: options.target } : {}),
  });
  let sequence = 0;
  let closed = false;
  let written = 0;
  const agents = {
    http: new HttpAgent({ keepAlive: true }),
    https: new HttpsAgent({ keepAlive: true, ...(options.ca ? { ca: options.ca } : {}) }),
  };
  const append = (exchange: RecordedExchange) => {
    const digested = digestExchange({ ...exchange, file: options.out }, options.digester, options.known);
    const line: RecordedExchange & { file?: string } = { ...digested };
    delete line.file;
    // One write per exchange: a line is whole on disk or absent.
    writeSync(fd, `${JSON.stringify(line)}\n`);
    written += 1;
  };
  const servers: Server[] = [];
  const urls = {} as Record<AddressName, string>;
  for (const name of addressNames) {
    const upstream = new URL(options.upstreams[name]);
    const secure = upstream.protocol === 'https:';
    const server = createServer((req, res) => forward(req, res, upstream, secure));
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    urls[name] = `http://127.0.0.1:${port}${upstream.pathname.replace(/\/+$/, '')}`;
  }

  function forward(req: IncomingMessage, res: ServerResponse, upstream: URL, secure: boolean): void {
    const index = sequence++;
    const started = Date.now();
    const requestHeaders = pairs(req.rawHeaders).filter(([n]) => !hopByHop.has(n.toLowerCase()));
    const sent = requestHeaders.map(([n, v]): [string, string] =>
      n.toLowerCase() === 'host' ? [n, upstream.host] : [n, v],
    );
    const requestTap = new BodyTap(limit);
    const url = `${upstream.protocol}//${upstream.host}${req.url ?? '/'}`;
    const record = (response?: { status: number; headers: HeaderList; body: RecordedBody }) =>
      append({
        index,
        startedAt: new Date(started).toISOString(),
        durationMs: Date.now() - started,
        request: { method: req.method ?? 'GET', url, headers: sent, body: requestTap.body(requestHeaders) },
        ...(response ? { response } : {}),
      });
    const out = (secure ? httpsRequest : httpRequest)(
      {
        host: upstream.hostname,
        port: upstream.port || (secure ? 443 : 80),
        method: req.method,
        path: req.url,
        agent: secure ? agents.https : agents.http,
        setHost: false,
        headers: sent.flat(),
      },
      (upstreamRes) => {
        const responseHeaders = pairs(upstreamRes.rawHeaders).filter(([n]) => !hopByHop.has(n.toLowerCase()));
        const responseTap = new BodyTap(limit);
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, responseHeaders.flat());
        // Streamed through with backpressure, one chunk held back: the exchange is on disk before
        // the client can see its answer complete, so a client never holds an answer the file lacks.
        let held: Buffer | undefined;
        upstreamRes.on('data', (chunk: Buffer) => {
          responseTap.take(chunk);
          if (held !== undefined && !res.write(held)) upstreamRes.pause();
          held = chunk;
        });
        res.on('drain', () => upstreamRes.resume());
        upstreamRes.on('end', () => {
          record({
            status: upstreamRes.statusCode ?? 502,
            headers: responseHeaders,
            body: responseTap.body(responseHeaders),
          });
          res.end(held);
        });
        upstreamRes.on('error', () => {
          res.destroy();
          record();
        });
      },
    );
    out.on('error', (error) => {
      record();
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`token-conformance record: the target did not answer (${error.message})\n`);
      } else res.destroy();
    });
    req.on('data', (chunk: Buffer) => requestTap.take(chunk));
    req.pipe(out);
  }

  return {
    urls,
    written: () => written,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
      agents.http.destroy();
      agents.https.destroy();
      closeSync(fd);
    },
  };
}
