// The entries of a HAR 1.2 file, one at a time, without holding the file: a small streaming scanner
// over `log.entries` (strings and nesting only; each entry's own text goes to JSON.parse). A HAR of
// hundreds of megabytes is read in memory bounded by its largest entry.
import { createReadStream } from 'node:fs';

export class TrafficError extends Error {
  override readonly name = 'TrafficError';
}

interface Frame {
  array: boolean;
  key?: string;
  entries: boolean;
}

/** Yields each element of the root's `log.entries` array, parsed. */
export async function* harEntries(file: string, highWaterMark = 1 << 16): AsyncGenerator<unknown> {
  const stack: Frame[] = [];
  let inString = false;
  let escaped = false;
  let stringText = '';
  let lastString: string | undefined;
  let capture: string[] | undefined;
  let captureStart = 0;
  let captureDepth = 0;
  let sawEntries = false;
  let offset = 0;
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark });
  for await (const chunk of stream as AsyncIterable<string>) {
    const ready: unknown[] = [];
    if (capture) captureStart = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) {
          inString = false;
          if (!capture) lastString = stringText;
        } else if (!capture && stringText.length < 256) stringText += chunk[i];
        continue;
      }
      switch (c) {
        case 0x22: // "
          if (!capture && stack[stack.length - 1]?.entries)
            throw new TrafficError(
              `${file}: log.entries holds something other than objects (at character ${offset + i})`,
            );
          inString = true;
          stringText = '';
          break;
        case 0x3a: {
          // :
          const top = stack[stack.length - 1];
          if (!capture && top && !top.array) top.key = lastString;
          break;
        }
        case 0x7b: // {
        case 0x5b: {
          // [
          const parent = stack[stack.length - 1];
          if (!capture && parent?.entries) {
            if (c !== 0x7b)
              throw new TrafficError(
                `${file}: log.entries holds something other than objects (at character ${offset + i})`,
              );
            capture = [];
            captureStart = i;
            captureDepth = stack.length;
          }
          const isEntries =
            !capture && c === 0x5b && stack.length === 2 && parent?.key === 'entries' && stack[0]?.key === 'log';
          if (isEntries) sawEntries = true;
          stack.push({ array: c === 0x5b, entries: isEntries });
          break;
        }
        case 0x7d: // }
        case 0x5d: {
          // ]
          const top = stack.pop();
          if (!top || top.array !== (c === 0x5d))
            throw new TrafficError(`${file}: not valid JSON (unbalanced ${chunk[i]} at character ${offset + i})`);
          if (capture && stack.length === captureDepth) {
            capture.push(chunk.slice(captureStart, i + 1));
            const text = capture.join('');
            capture = undefined;
            try {
              ready.push(JSON.parse(text));
            } catch (error) {
              throw new TrafficError(
                `${file}: an entry of log.entries is not valid JSON (${(error as Error).message}, ending at character ${offset + i})`,
              );
            }
          }
          break;
        }
        case 0x2c: {
          // ,
          const top = stack[stack.length - 1];
          if (!capture && top && !top.array) top.key = undefined;
          break;
        }
        default:
          // A number, true, false or null directly in log.entries (whitespace aside).
          if (!capture && c > 0x20 && stack[stack.length - 1]?.entries)
            throw new TrafficError(
              `${file}: log.entries holds something other than objects (at character ${offset + i})`,
            );
      }
    }
    if (capture) capture.push(chunk.slice(captureStart));
    offset += chunk.length;
    yield* ready;
  }
  if (inString || stack.length > 0)
    throw new TrafficError(`${file}: the JSON ends early (truncated at character ${offset})`);
  if (!sawEntries) throw new TrafficError(`${file}: not a HAR file: no log.entries array`);
}
