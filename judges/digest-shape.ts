// What a judge may read of a secret in recorded traffic: `record` and `audit` replace every secret
// with a keyed digest (harness/audit/secret-digest.ts) that keeps the value's length and whether it
// was visible ASCII, the two properties of a token a requirement speaks of. A live exchange carries
// the value itself; shapeOf reads both alike.

/** `hmac-sha256:<22 base64url>:<length>[:x]` — `:x` when the value held characters outside visible ASCII. */
export const digestPattern = /hmac-sha256:[A-Za-z0-9_-]{22}:\d+(?::x)?/;
const wholeDigest = new RegExp(`^${digestPattern.source}$`);
export const isDigest = (value: string): boolean => wholeDigest.test(value);

/** What a digest keeps of its value: the length and whether every character was visible ASCII. */
export function shapeOf(value: string): { length: number; visibleAscii: boolean } {
  const m = /^hmac-sha256:[A-Za-z0-9_-]{22}:(\d+)(:x)?$/.exec(value);
  if (m) return { length: Number(m[1]), visibleAscii: m[2] === undefined };
  return { length: value.length, visibleAscii: /^[\x21-\x7e]+$/.test(value) };
}
