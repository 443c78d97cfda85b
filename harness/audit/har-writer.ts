// A recording of `record` written as a HAR 1.2 file, streamed entry by entry: for tools that read
// HAR (and to show that `audit` judges both forms of the same traffic alike).
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Exchange, HeaderList, RecordedBody } from './exchange.ts';
import { headerOf } from './exchange.ts';
import type { RecordedExchange } from './recording-format.ts';

const harHeaders = (h: HeaderList) => h.map(([name, value]) => ({ name, value }));
const query = (url: string) => {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
};

/** One HAR entry of an exchange. */
export function harEntry(e: Omit<Exchange, 'file'>): Record<string, unknown> {
  const content = (b: RecordedBody, type: string | undefined) => ({
    size: b.size,
    mimeType: type ?? '',
    ...(b.text !== undefined ? { text: b.text } : {}),
  });
  const res = e.response;
  return {
    startedDateTime: e.startedAt,
    time: e.durationMs ?? 0,
    request: {
      method: e.request.method,
      url: e.request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: harHeaders(e.request.headers),
      queryString: query(e.request.url),
      ...(e.request.body.text !== undefined
        ? { postData: { mimeType: headerOf(e.request.headers, 'content-type') ?? '', text: e.request.body.text } }
        : {}),
      headersSize: -1,
      bodySize: e.request.body.size,
      // HAR's custom-field convention (a leading underscore): why `record` left this request unjudged.
      ...(e.request.malformed !== undefined ? { _malformed: e.request.malformed } : {}),
    },
    response: res
      ? {
          status: res.status,
          statusText: '',
          httpVersion: 'HTTP/1.1',
          cookies: [],
          headers: harHeaders(res.headers),
          content: content(res.body, headerOf(res.headers, 'content-type')),
          redirectURL: '',
          headersSize: -1,
          bodySize: res.body.size,
          // The iat and exp of a JWT access token whose text the recording replaced by its digest.
          ...(res.accessTokenClaims !== undefined ? { _accessTokenClaims: res.accessTokenClaims } : {}),
        }
      : {
          status: 0,
          statusText: '',
          httpVersion: '',
          cookies: [],
          headers: [],
          content: { size: 0, mimeType: '' },
          redirectURL: '',
          headersSize: -1,
          bodySize: -1,
        },
    cache: {},
    timings: { send: 0, wait: e.durationMs ?? 0, receive: 0 },
  };
}

/** Writes `entries` as a HAR 1.2 file, one entry at a time. */
export async function writeHarEntries(
  out: string,
  entries: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>,
  creator = 'token-conformance',
): Promise<number> {
  const stream = createWriteStream(out, { mode: 0o600 });
  const write = async (text: string) => {
    if (!stream.write(text)) await once(stream, 'drain');
  };
  await write(`{"log":{"version":"1.2","creator":{"name":${JSON.stringify(creator)},"version":"1"},"entries":[`);
  let n = 0;
  for await (const entry of entries) {
    await write(`${n === 0 ? '\n' : ',\n'}${JSON.stringify(entry)}`);
    n += 1;
  }
  await write('\n]}}\n');
  stream.end();
  await once(stream, 'finish');
  return n;
}

/** A recording (JSON Lines) as a HAR file. */
export async function writeHar(recording: string, out: string): Promise<number> {
  async function* entries() {
    let line = 0;
    for await (const text of createInterface({
      input: createReadStream(recording, { encoding: 'utf8' }),
      crlfDelay: Infinity,
    })) {
      line += 1;
      if (line === 1 || text.trim() === '') continue;
      try {
        yield harEntry(JSON.parse(text) as RecordedExchange);
      } catch {
        /* a line cut short by a killed recorder */
      }
    }
  }
  return writeHarEntries(out, entries());
}
