// Recorded traffic holds live credentials. Before an exchange is written (`record`) or judged
// (`audit` of a HAR from elsewhere), every client secret, password, access and refresh token in it
// is replaced by a keyed digest: HMAC-SHA256 under a key from the environment. The same value
// always gives the same digest under one key, so reuse across exchanges (a refresh token redeemed
// twice, a token presented by another client) stays visible, while nothing in the file can be
// replayed or guessed back without the key. The digest keeps the value's length and whether it was
// visible ASCII, the two properties of a token that checks read (TOKEN-RESP-002, TOKEN-RESP-009).
import { createHmac, randomBytes } from 'node:crypto';
import { encodedForms, secretFieldNames } from '../../core/redaction/redact.ts';
import { isDigest, shapeOf } from '../../judges/digest-shape.ts';
import { lifetimeClaimsOf } from '../../judges/jwt-lifetime.ts';
import type { Exchange, HeaderList, RecordedBody } from '../../judges/exchange.ts';
import { headerOf, jsonObjectOf, mediaTypeOf } from '../../judges/exchange.ts';

export { digestPattern, isDigest, shapeOf } from '../../judges/digest-shape.ts';

export const defaultKeyEnv = 'CONFORMANCE_RECORD_KEY';

/** Free text (URLs, bodies, header values) is searched for secrets at least this long; shorter ones are replaced where they travel by name. */
const freeTextMinimum = 6;

export class Digester {
  readonly #key: Buffer;
  /** `env:NAME` or `ephemeral` (a random key for this process: digests agree within one audit only). */
  readonly keySource: string;

  constructor(key: Buffer, keySource: string) {
    this.#key = key;
    this.keySource = keySource;
  }

  static fromEnv(name: string, env: NodeJS.ProcessEnv = process.env): Digester | undefined {
    const value = env[name];
    return value ? new Digester(Buffer.from(value, 'utf8'), `env:${name}`) : undefined;
  }

  static ephemeral(): Digester {
    return new Digester(randomBytes(32), 'ephemeral');
  }

  digest(value: string): string {
    if (isDigest(value)) return value;
    const mac = createHmac('sha256', this.#key).update(value, 'utf8').digest('base64url').slice(0, 22);
    const { length, visibleAscii } = shapeOf(value);
    return `hmac-sha256:${mac}:${length}${visibleAscii ? '' : ':x'}`;
  }
}

const secretNames = new Set<string>(secretFieldNames);

/** The secrets an exchange carries in the places credentials travel by name. */
function secretsOf(exchange: Exchange): string[] {
  const found: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.length > 0 && !isDigest(v)) found.push(v);
  };
  const { request, response } = exchange;
  try {
    for (const [k, v] of new URL(request.url).searchParams) if (secretNames.has(k)) add(v);
  } catch {
    /* an unparseable URL carries no parameters we can name */
  }
  if (request.body.text !== undefined) {
    const type = mediaTypeOf(headerOf(request.headers, 'content-type'));
    const fields =
      type === 'application/json'
        ? Object.entries(jsonObjectOf(request.body) ?? {})
        : [...new URLSearchParams(request.body.text)];
    for (const [k, v] of fields) if (secretNames.has(k)) add(v);
  }
  for (const [name, value] of request.headers) {
    if (name.toLowerCase() !== 'authorization' && name.toLowerCase() !== 'proxy-authorization') continue;
    const m = /^\s*(\S+)\s+(.+?)\s*$/.exec(value);
    if (!m) {
      // A scheme alone (`Bearer`, `Basic`) carries no credential; a lone long word may be a raw token.
      if (!bareScheme(value)) add(value.trim());
      continue;
    }
    if (m[1]!.toLowerCase() === 'basic') {
      const decoded = Buffer.from(m[2]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0) add(safeDecode(decoded.slice(colon + 1)));
      add(m[2]);
    } else add(m[2]);
  }
  const body = jsonObjectOf(response?.body);
  if (body) for (const [k, v] of Object.entries(body)) if (secretNames.has(k)) add(v);
  return found;
}

/** An Authorization value that is only a scheme name: no credential in it. */
const bareScheme = (value: string): boolean => /^\s*[A-Za-z][A-Za-z-]{0,15}\s*$/.test(value);

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

/**
 * The exchange with every secret replaced by its digest: the places credentials travel by name
 * (form and query fields, Authorization, token response members), and every further occurrence of
 * those values, in any of their encodings, anywhere in its text (an error echoing a secret).
 * `known`: secrets known beforehand (the profile's client secrets and passwords).
 */
export function digestExchange(exchange: Exchange, digester: Digester, known: readonly string[] = []): Exchange {
  const secrets = [...new Set([...secretsOf(exchange), ...known])].sort((a, b) => b.length - a.length);
  const replacements: [string, string][] = [];
  for (const s of secrets) {
    const d = digester.digest(s);
    for (const form of encodedForms(s)) replacements.push([form, d]);
  }
  const free = (text: string): string => {
    let out = text;
    for (const [from, to] of replacements)
      if (from.length >= freeTextMinimum && out.includes(from)) out = out.split(from).join(to);
    return out;
  };
  const byName = (name: string, value: string): string =>
    secretNames.has(name) && value.length > 0 ? digester.digest(value) : value;
  const url = (() => {
    try {
      const u = new URL(exchange.request.url);
      if (![...u.searchParams.keys()].some((k) => secretNames.has(k))) return free(exchange.request.url);
      u.search = new URLSearchParams(
        [...u.searchParams].map(([k, v]): [string, string] => [k, byName(k, v)]),
      ).toString();
      return free(u.toString());
    } catch {
      return free(exchange.request.url);
    }
  })();
  const requestBody = (): RecordedBody => {
    const body = exchange.request.body;
    if (body.text === undefined) return body;
    const type = mediaTypeOf(headerOf(exchange.request.headers, 'content-type'));
    if (type === 'application/x-www-form-urlencoded' && !body.truncated) {
      const fields = [...new URLSearchParams(body.text)];
      if (fields.some(([k]) => secretNames.has(k)))
        return {
          ...body,
          text: free(new URLSearchParams(fields.map(([k, v]): [string, string] => [k, byName(k, v)])).toString()),
        };
    }
    return { ...body, text: free(body.text) };
  };
  const responseBody = (b: RecordedBody): RecordedBody => {
    const json = jsonObjectOf(b);
    if (json && Object.keys(json).some((k) => secretNames.has(k))) {
      // In place, so that the rest of the body stays as the target wrote it (3600.0 is not 3600);
      // re-serialised only when a value is not found as written (an escape inside it).
      let text = b.text!;
      const inPlace = Object.entries(json).every(([k, v]) => {
        if (!secretNames.has(k) || typeof v !== 'string' || v.length === 0) return true;
        const quoted = JSON.stringify(v);
        if (!text.includes(quoted)) return false;
        text = text.split(quoted).join(JSON.stringify(byName(k, v)));
        return true;
      });
      if (inPlace) return { ...b, text: free(text) };
      const rewritten = Object.fromEntries(
        Object.entries(json).map(([k, v]) => [k, typeof v === 'string' ? byName(k, v) : v]),
      );
      return { ...b, text: free(JSON.stringify(rewritten)) };
    }
    return b.text === undefined ? b : { ...b, text: free(b.text) };
  };
  const headers = (list: HeaderList): HeaderList => list.map(([n, v]) => [n, authorization(n, v, digester, free)]);
  // A JWT access token states its lifetime (TOKEN-RESP-010): its two numbers stay beside its digest.
  const issued = exchange.response ? jsonObjectOf(exchange.response.body)?.access_token : undefined;
  const claims = typeof issued === 'string' && !isDigest(issued) ? lifetimeClaimsOf(issued) : undefined;
  return {
    ...exchange,
    request: { ...exchange.request, url, headers: headers(exchange.request.headers), body: requestBody() },
    ...(exchange.response
      ? {
          response: {
            ...exchange.response,
            headers: headers(exchange.response.headers),
            body: responseBody(exchange.response.body),
            ...(claims ? { accessTokenClaims: claims } : {}),
          },
        }
      : {}),
  };
}

/** An Authorization value with its credential digested: Basic keeps the client_id readable (it is not a secret). */
function authorization(name: string, value: string, digester: Digester, free: (t: string) => string): string {
  const lower = name.toLowerCase();
  if (lower !== 'authorization' && lower !== 'proxy-authorization') return free(value);
  const m = /^(\s*)(\S+)(\s+)(.+?)(\s*)$/.exec(value);
  if (!m) return value.trim() === '' || bareScheme(value) ? value : digester.digest(value);
  const [, lead, scheme, gap, credential, tail] = m;
  if (scheme!.toLowerCase() === 'basic' && !isDigest(credential!)) {
    const decoded = Buffer.from(credential!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const clear =
      colon >= 0
        ? `${decoded.slice(0, colon)}:${digester.digest(safeDecode(decoded.slice(colon + 1)))}`
        : digester.digest(decoded);
    return `${lead!}${scheme!}${gap!}${Buffer.from(clear, 'utf8').toString('base64')}${tail!}`;
  }
  return `${lead!}${scheme!}${gap!}${digester.digest(credential!)}${tail!}`;
}
