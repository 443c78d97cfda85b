// The recording reverse proxy of `record`: one loopback listener per address of the profile (US
// token server, EU token server, protected APIs), each relaying every connection to its address byte
// for byte (relay.ts: only a Host naming the recorder is rewritten), while keeping the first bytes of
// each body for the record. Each exchange is digested (secret-digest.ts) and appended as one JSON
// line in a single write as soon as it completes: a killed recorder loses at most the exchanges in flight.
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { recordedBodyLimit, recordingFormat, type RecordedExchange, type RecordingHeader } from './recording-format.ts';
import { relay } from './relay.ts';
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
  const append = (exchange: RecordedExchange) => {
    if (closed) return;
    const digested = digestExchange({ ...exchange, file: options.out }, options.digester, options.known);
    const line: RecordedExchange & { file?: string } = { ...digested };
    delete line.file;
    // One write per exchange: a line is whole on disk or absent.
    writeSync(fd, `${JSON.stringify(line)}\n`);
    written += 1;
  };
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const urls = {} as Record<AddressName, string>;
  for (const name of addressNames) {
    const upstream = new URL(options.upstreams[name]);
    const own = new Set<string>();
    const server = createServer({ allowHalfOpen: true }, (client) =>
      relay(client, {
        upstream,
        own,
        ...(options.ca ? { ca: options.ca } : {}),
        limit,
        sockets,
        nextIndex: () => sequence++,
        append,
      }),
    );
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    own.add(`127.0.0.1:${port}`).add(`localhost:${port}`);
    urls[name] = `http://127.0.0.1:${port}${upstream.pathname.replace(/\/+$/, '')}`;
  }

  return {
    urls,
    written: () => written,
    async close() {
      if (closed) return;
      closed = true;
      const stopped = Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      for (const socket of sockets) socket.destroy();
      await stopped;
      closeSync(fd);
    },
  };
}
