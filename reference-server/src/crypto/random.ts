// Randomness and digests from node:crypto, behind the domain's ports.
import { createHash, randomBytes } from 'node:crypto';
import type { RandomSource, TokenDigest } from '../domain/ports.ts';

export const nodeRandom: RandomSource = {
  token: (byteLength) => randomBytes(byteLength).toString('base64url'),
};

export const sha256Digest: TokenDigest = {
  digest: (value) => createHash('sha256').update(value, 'utf8').digest('base64url'),
};
