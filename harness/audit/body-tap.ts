// What a recorder keeps of a body passing through it: the first bytes up to a limit, and the size of
// the whole; text only when the body is text in no content coding.
import type { HeaderList, RecordedBody } from './exchange.ts';

export const hopByHop = new Set([
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

/** Keeps the first `limit` bytes of a stream that passes through, and counts all of them. */
export class BodyTap {
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
