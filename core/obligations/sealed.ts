// AES-256-GCM through node:crypto: what the state file and the run's hand-over to the Playwright
// workers are written with. Nothing that holds a live credential is written any other way.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

export interface Sealed {
  iv: string;
  tag: string;
  data: string;
}

const b64 = (b: Buffer) => b.toString('base64');

export function seal(key: Buffer, plaintext: string, aad: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv: b64(iv), tag: b64(cipher.getAuthTag()), data: b64(data) };
}

/** The plaintext, or undefined when the key is wrong or the data was altered (GCM's tag fails). */
export function open(key: Buffer, sealed: Sealed, aad: string): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export const scryptParameters = { N: 16384, r: 8, p: 1 } as const;

/** A 256-bit key from the user's secret (any string; `openssl rand -base64 32` is a good one) and the file's salt. */
export function deriveKey(secret: string, salt: Buffer): Buffer {
  return scryptSync(secret, salt, 32, scryptParameters);
}

/** A value that tells a wrong key from a damaged file without decrypting anything. */
export function keyCheck(key: Buffer): string {
  return b64(createHmac('sha256', key).update('token-conformance state key check').digest());
}

export function sameKeyCheck(key: Buffer, expected: string): boolean {
  const a = Buffer.from(keyCheck(key), 'base64');
  const b = Buffer.from(expected, 'base64');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** HMAC of principal secrets under a per-state salt: tells "the password changed" without keeping the password. */
export function fingerprint(salt: string, parts: string[]): string {
  const h = createHmac('sha256', Buffer.from(salt, 'base64'));
  for (const p of parts) h.update(`${p.length}:${p}`);
  return h.digest('base64');
}
