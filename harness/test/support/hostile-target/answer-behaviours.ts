// How a hostile target answers: oversized error bodies, megabyte error fields, a byte a second, a
// gzip bomb nobody asked for, a CDN's block page. Each writes a whole answer to a request; the
// hostile server (hostile-server.ts) picks the requests it answers this way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGzip } from 'node:zlib';

export type AnswerBehaviour = (req: IncomingMessage, res: ServerResponse) => void;

const chunk = Buffer.alloc(64 * 1024, 'A');

/** The error status to answer with: the upstream's, when the hostile server replaces an error answer (else 400). */
const errorStatus = (res: ServerResponse) => (res.statusCode >= 400 ? res.statusCode : 400);

/** Writes `total` bytes of `fill` (after `head`, before `tail`) as the socket takes them: the server never holds the body. */
function streamBody(res: ServerResponse, head: string, total: number, tail: string): void {
  let left = total;
  res.write(head);
  const more = () => {
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      left -= n;
      if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
        res.once('drain', more);
        return;
      }
    }
    res.end(tail);
  };
  res.on('close', () => {
    left = 0;
  });
  more();
}

/** A JSON error whose `error_description` is `bytes` long (200 MB in the run): declared with content-length. */
export function hugeErrorBody(bytes = 200 * 1024 * 1024): AnswerBehaviour {
  return (_req, res) => {
    const head = '{"error":"invalid_request","error_description":"';
    const tail = '"}';
    res.writeHead(errorStatus(res), {
      'content-type': 'application/json',
      'content-length': String(head.length + bytes + tail.length),
    });
    streamBody(res, head, bytes, tail);
  };
}

/** A JSON error whose `error` and `error_description` are each `bytes` long (1 MB). */
export function bigErrorFields(bytes = 1024 * 1024): AnswerBehaviour {
  const body = JSON.stringify({ error: 'e'.repeat(bytes), error_description: 'd'.repeat(bytes) });
  return (_req, res) => {
    res.writeHead(errorStatus(res), {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  };
}

/**
 * A whole answer (status line, headers and body) written one byte every `intervalMs`, straight to
 * the socket: no per-read timeout ever fires, only a deadline over the whole exchange ends it.
 */
export function drip(intervalMs = 1000): AnswerBehaviour {
  const body = '{"access_token":"x","token_type":"Bearer"}';
  const answer = Buffer.from(
    `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    'latin1',
  );
  return (req, _res) => {
    const socket = req.socket;
    let i = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || i >= answer.length) {
        clearInterval(timer);
        return;
      }
      socket.write(answer.subarray(i, i + 1));
      i += 1;
    }, intervalMs);
    socket.once('close', () => clearInterval(timer));
  };
}

let bomb: Promise<Buffer> | undefined;

/** gzip of `bytes` zero bytes (200 MB → about 200 KB), made once per process. */
function gzipBomb(bytes: number): Promise<Buffer> {
  bomb ??= new Promise<Buffer>((resolve, reject) => {
    const gzip = createGzip({ level: 9 });
    const out: Buffer[] = [];
    gzip.on('data', (c: Buffer) => out.push(c));
    gzip.once('end', () => resolve(Buffer.concat(out)));
    gzip.once('error', reject);
    const zeros = Buffer.alloc(1024 * 1024);
    let left = bytes;
    const more = () => {
      while (left > 0) {
        left -= zeros.length;
        if (!gzip.write(zeros)) {
          gzip.once('drain', more);
          return;
        }
      }
      gzip.end();
    };
    more();
  });
  return bomb;
}

/** A 200 JSON answer in gzip (200 MB once expanded), whatever the request's Accept-Encoding. */
export function unrequestedGzipBomb(bytes = 200 * 1024 * 1024): AnswerBehaviour {
  return (_req, res) => {
    void gzipBomb(bytes).then((body) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': String(body.length),
      });
      res.end(body);
    });
  };
}

/** Cloudflare's managed-challenge page: an HTML 403 with cf-ray and cf-mitigated. */
export const cdnBlockPage: AnswerBehaviour = (_req, res) => {
  const body =
    '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head>' +
    '<body><h1>Sorry, you have been blocked</h1><p>Cloudflare Ray ID: 8c1f2e3d4b5a6978</p></body></html>';
  res.writeHead(403, {
    'content-type': 'text/html; charset=UTF-8',
    'cf-ray': '8c1f2e3d4b5a6978-FRA',
    'cf-mitigated': 'challenge',
    server: 'cloudflare',
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
};

/** The behaviours by name, for a test's table and a hand-run measurement. */
export const answerBehaviours = {
  'huge-error-body': hugeErrorBody(),
  'big-error-fields': bigErrorFields(),
  drip: drip(),
  'gzip-bomb': unrequestedGzipBomb(),
  'cdn-block': cdnBlockPage,
} satisfies Record<string, AnswerBehaviour>;

export type AnswerBehaviourName = keyof typeof answerBehaviours;
