// A passive reader of one direction of an HTTP/1.1 connection, for a recorder that must forward the
// bytes exactly as they came: it never answers, never rejects and never reframes. It splits the
// byte stream into messages (start line, headers, body framed as RFC 9112 §6 says) only to know
// what to record, and hands every byte on. Where the framing cannot be known — conflicting
// Content-Length values, a head larger than the limit, a protocol switch — it says why once and
// passes the rest of the connection through unread: the peer decides what those bytes mean, and the
// record says they were not read.
import type { HeaderList } from './exchange.ts';

export interface MessageHead {
  /** The first line, without its line ending. */
  startLine: string;
  headers: HeaderList;
}

export interface TapEvents {
  /** A message's head was read. For a request, return the framing of its body. */
  head(head: MessageHead): void;
  body(chunk: Buffer): void;
  /** The message ended (its body framing says so, or the connection closed a close-delimited body). */
  end(): void;
  /** The rest of the connection passes through unread, for this reason. */
  unread(reason: string): void;
}

/** How a message's body is delimited (RFC 9112 §6.3). */
export type BodyFraming =
  | { kind: 'none' }
  | { kind: 'length'; length: number }
  | { kind: 'chunked' }
  | { kind: 'until-close' }
  /** The bytes after the head are no longer HTTP/1.1 messages (a 101, a CONNECT tunnel). */
  | { kind: 'tunnel' }
  | { kind: 'unknown'; reason: string };

type State =
  | { at: 'start' }
  | { at: 'head'; startLine: string; headers: HeaderList }
  | { at: 'length'; remaining: number }
  | { at: 'chunk-size' }
  | { at: 'chunk-data'; remaining: number }
  | { at: 'chunk-data-end' }
  | { at: 'trailers' }
  | { at: 'until-close' }
  | { at: 'unread' };

/** The Content-Length a message declares: absent, one valid value (repeats that agree included), or why not. */
export function contentLengthOf(headers: HeaderList): number | undefined | { invalid: string } {
  const values = headers
    .filter(([n]) => n.toLowerCase() === 'content-length')
    .flatMap(([, v]) => v.split(','))
    .map((v) => v.trim());
  if (values.length === 0) return undefined;
  if (!values.every((v) => /^\d{1,15}$/.test(v))) return { invalid: `Content-Length '${values.join(', ')}'` };
  const distinct = new Set(values.map(Number));
  if (distinct.size > 1) return { invalid: `conflicting Content-Length values (${[...distinct].join(', ')})` };
  return [...distinct][0];
}

/** The transfer codings a message declares, lower case, in order. */
function transferCodingsOf(headers: HeaderList): string[] {
  return headers
    .filter(([n]) => n.toLowerCase() === 'transfer-encoding')
    .flatMap(([, v]) => v.split(','))
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
}

/** A request's body framing (RFC 9112 §6.3 items 3, 4, 6 and 7). */
export function requestFraming(headers: HeaderList): BodyFraming {
  const codings = transferCodingsOf(headers);
  if (codings.length > 0)
    return codings[codings.length - 1] === 'chunked'
      ? { kind: 'chunked' }
      : { kind: 'unknown', reason: `Transfer-Encoding '${codings.join(', ')}' does not end in chunked` };
  const length = contentLengthOf(headers);
  if (typeof length === 'object') return { kind: 'unknown', reason: length.invalid };
  return length === undefined || length === 0 ? { kind: 'none' } : { kind: 'length', length };
}

/** A response's body framing, given the request it answers (RFC 9112 §6.3 items 1–8). */
export function responseFraming(status: number, headers: HeaderList, requestMethod: string | undefined): BodyFraming {
  const method = requestMethod?.toUpperCase();
  if (status === 101 || (method === 'CONNECT' && status >= 200 && status < 300)) return { kind: 'tunnel' };
  if (method === 'HEAD' || (status >= 100 && status < 200) || status === 204 || status === 304) return { kind: 'none' };
  const codings = transferCodingsOf(headers);
  if (codings.length > 0)
    return codings[codings.length - 1] === 'chunked' ? { kind: 'chunked' } : { kind: 'until-close' };
  const length = contentLengthOf(headers);
  if (typeof length === 'object') return { kind: 'unknown', reason: length.invalid };
  if (length === undefined) return { kind: 'until-close' };
  return length === 0 ? { kind: 'none' } : { kind: 'length', length };
}

export interface Http1TapOptions {
  /** The framing of a message's body, from its head (requestFraming, or responseFraming with its request). */
  framing(head: MessageHead): BodyFraming;
  /** Rewrites one line of a head before it is passed on (the recorder's Host); identity when absent. */
  rewriteHeadLine?(line: string, index: number): string;
  /** The largest head (or chunk-size line) read; past it the rest passes through unread. */
  headLimit: number;
}

/** Reads one direction of a connection; `push` returns the bytes to pass on (the same, unless a head line is rewritten). */
export class Http1Tap {
  #state: State = { at: 'start' };
  /** An incomplete line of a head or of the chunked framing, held until its line ending arrives. */
  #partial: Buffer = Buffer.alloc(0);
  #headLines = 0;

  constructor(
    private readonly events: TapEvents,
    private readonly options: Http1TapOptions,
  ) {}

  get reading(): boolean {
    return this.#state.at !== 'unread';
  }

  /** Between messages: the last one ended and no byte of another has come. */
  get between(): boolean {
    return this.#state.at === 'start' && this.#partial.length === 0;
  }

  push(chunk: Buffer): Buffer {
    const out: Buffer[] = [];
    let at = 0;
    while (at < chunk.length) {
      const state = this.#state;
      if (state.at === 'unread') {
        out.push(chunk.subarray(at));
        break;
      }
      if (state.at === 'until-close') {
        this.events.body(chunk.subarray(at));
        out.push(chunk.subarray(at));
        break;
      }
      if (state.at === 'length' || state.at === 'chunk-data') {
        const take = Math.min(state.remaining, chunk.length - at);
        const part = chunk.subarray(at, at + take);
        this.events.body(part);
        out.push(part);
        at += take;
        state.remaining -= take;
        if (state.remaining === 0) {
          if (state.at === 'length') this.#messageEnded();
          else this.#state = { at: 'chunk-data-end' };
        }
        continue;
      }
      // Line-oriented states: the start line, header lines, chunk sizes, chunk ends and trailers.
      const newline = chunk.indexOf(0x0a, at);
      if (newline === -1) {
        const rest = chunk.subarray(at);
        if (this.#partial.length + rest.length > this.options.headLimit) {
          out.push(this.#partial, rest);
          this.#partial = Buffer.alloc(0);
          this.#giveUp(`a line longer than ${this.options.headLimit} bytes`);
          break;
        }
        this.#partial = Buffer.concat([this.#partial, rest]);
        break;
      }
      const raw = Buffer.concat([this.#partial, chunk.subarray(at, newline + 1)]);
      this.#partial = Buffer.alloc(0);
      at = newline + 1;
      out.push(this.#line(raw));
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  }

  /** The connection closed: a close-delimited body ends here. */
  close(): void {
    if (this.#state.at === 'until-close') {
      this.events.end();
      this.#state = { at: 'start' };
    }
  }

  /** One complete line (with its line ending) of a line-oriented state; returns what to pass on. */
  #line(raw: Buffer): Buffer {
    const text = raw.toString('latin1').replace(/\r?\n$/, '');
    const state = this.#state;
    switch (state.at) {
      case 'start': {
        // RFC 9112 §2.2: empty lines before a request line are ignored.
        if (text === '') return raw;
        this.#headLines = 0;
        const line = this.#rewrite(text, raw);
        this.#state = { at: 'head', startLine: line.text, headers: [] };
        return line.raw;
      }
      case 'head': {
        if (text === '') {
          this.#headEnded(state.startLine, state.headers);
          return raw;
        }
        const line = this.#rewrite(text, raw);
        if (/^[ \t]/.test(line.text) && state.headers.length > 0) {
          // An obsolete line folding: the peer decides whether it is acceptable; the record joins it.
          const last = state.headers[state.headers.length - 1]!;
          last[1] = `${last[1]} ${line.text.trim()}`;
        } else {
          const colon = line.text.indexOf(':');
          state.headers.push(
            colon === -1 ? [line.text, ''] : [line.text.slice(0, colon), line.text.slice(colon + 1).trim()],
          );
        }
        if (this.#headLines > 1000) this.#giveUp('a head of more than 1000 lines');
        return line.raw;
      }
      case 'chunk-size': {
        const size = /^([0-9a-fA-F]{1,12})[ \t]*(;.*)?$/.exec(text);
        if (!size) {
          this.#giveUp(`a chunk size line '${text.slice(0, 40)}' that is not hexadecimal`);
          return raw;
        }
        const length = parseInt(size[1]!, 16);
        this.#state = length === 0 ? { at: 'trailers' } : { at: 'chunk-data', remaining: length };
        return raw;
      }
      case 'chunk-data-end':
        if (text !== '') this.#giveUp('chunk data not followed by its line ending');
        else this.#state = { at: 'chunk-size' };
        return raw;
      case 'trailers':
        if (text === '') this.#messageEnded();
        return raw;
      default:
        return raw;
    }
  }

  #rewrite(text: string, raw: Buffer): { text: string; raw: Buffer } {
    const index = this.#headLines++;
    const rewritten = this.options.rewriteHeadLine?.(text, index) ?? text;
    if (rewritten === text) return { text, raw };
    const ending = raw.subarray(raw.length - (raw.length >= 2 && raw[raw.length - 2] === 0x0d ? 2 : 1));
    return { text: rewritten, raw: Buffer.concat([Buffer.from(rewritten, 'latin1'), ending]) };
  }

  #headEnded(startLine: string, headers: HeaderList): void {
    const head = { startLine, headers };
    this.events.head(head);
    const framing = this.options.framing(head);
    switch (framing.kind) {
      case 'none':
        this.#messageEnded();
        return;
      case 'length':
        this.#state = { at: 'length', remaining: framing.length };
        return;
      case 'chunked':
        this.#state = { at: 'chunk-size' };
        return;
      case 'until-close':
        this.#state = { at: 'until-close' };
        return;
      case 'tunnel':
        this.events.end();
        this.#giveUp('the connection switched protocols');
        return;
      case 'unknown':
        this.events.end();
        this.#giveUp(framing.reason);
    }
  }

  #messageEnded(): void {
    this.#state = { at: 'start' };
    this.events.end();
  }

  #giveUp(reason: string): void {
    if (this.#state.at === 'unread') return;
    this.#state = { at: 'unread' };
    this.events.unread(reason);
  }
}
