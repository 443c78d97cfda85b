// Randomness and digests from node:crypto, behind the domain's ports.
import { createHash, randomBytes } from 'node:crypto';
import type { RandomSource, TokenDigest } from '../domain/ports.ts';

/**
 * Random bytes are drawn from the CSPRNG 4 KiB at a time and handed out once each, in order (one
 * call into OpenSSL per pool instead of one per token, so randomBytes' fixed cost is shared by many
 * access-token ids). No byte is ever handed out twice.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomSlice(byteLength: number): Buffer {
  if (byteLength > POOL_BYTES / 4) return randomBytes(byteLength);
  if (poolOffset + byteLength > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const slice = pool.subarray(poolOffset, poolOffset + byteLength);
  poolOffset += byteLength;
  return slice;
}

export const nodeRandom: RandomSource = {
  token: (byteLength) => randomSlice(byteLength).toString('base64url'),
};

export const sha256Digest: TokenDigest = {
  digest: (value) => createHash('sha256').update(value, 'utf8').digest('base64url'),
};
