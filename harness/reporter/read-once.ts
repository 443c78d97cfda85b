// A file another process may still be writing, read once into memory with a bound on its size.
//
// A copy that trusts the size it saw first (libuv's copyfile asks for the remaining bytes until it
// has them) never ends when the file shrinks under it. This read asks only for what is left of its
// own bound and stops at the first read that returns nothing: each pass either ends the loop or
// moves it forward by at least one byte, so it ends after at most `limit` bytes, whatever the
// writer does meanwhile. What it returns is the bytes that were there when they were read.
import fs from 'node:fs';

/** The most an attachment read by a reporter may hold (the rest of a larger file is left out). */
export const attachmentReadLimit = 32 * 1024 * 1024;

const chunkSize = 256 * 1024;

/** At most `limit` bytes of `file`, read in one pass that ends whether the file grows, shrinks or is replaced. */
export function readOnce(file: string, limit = attachmentReadLimit): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < limit) {
      const chunk = Buffer.allocUnsafe(Math.min(chunkSize, limit - total));
      const n = fs.readSync(fd, chunk, 0, chunk.length, total);
      if (n <= 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
    }
    return Buffer.concat(chunks, total);
  } finally {
    fs.closeSync(fd);
  }
}
