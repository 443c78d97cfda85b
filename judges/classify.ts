// What an exchange is, by the profile's addresses and the spec's paths (§4, §9): a token request at
// the US or EU endpoint (and its grant), a token request at another version's path, a protected
// call, the target's clock control, or traffic the audit does not judge.
import type { TargetProfile } from '../core/profile/profile.schema.ts';
import { formOf, headerOf, type Exchange } from './exchange.ts';
import { tokenPaths } from '../schemas/token-paths.ts';
import { isDigest } from './digest-shape.ts';

export type ExchangeKind = 'token-us' | 'token-eu' | 'token-other-version' | 'protected' | 'clock' | 'other';

export interface Addresses {
  authUrlUs?: string;
  authUrlEu?: string;
  baseUrl?: string;
  clockControlUrl?: string;
  /** The target's plain-HTTP address: the token paths and the API spoken to in plain HTTP there. */
  plainHttpUrl?: string;
}

export const addressesOf = (profile: TargetProfile | undefined): Addresses =>
  profile
    ? {
        authUrlUs: profile.authUrlUs,
        authUrlEu: profile.authUrlEu,
        baseUrl: profile.baseUrl,
        ...(profile.capabilities.clockControlUrl ? { clockControlUrl: profile.capabilities.clockControlUrl } : {}),
        ...(profile.plainHttpUrl ? { plainHttpUrl: profile.plainHttpUrl } : {}),
      }
    : {};

export interface Classified {
  exchange: Exchange;
  kind: ExchangeKind;
  url: URL | undefined;
  /** The form fields of a token request (repeated ones kept). */
  form: [string, string][] | undefined;
  grant: string | undefined;
  /** The client that authenticated (Basic or form), when named. */
  clientId: string | undefined;
  /** The form's own client_id, whichever client authenticated. */
  bodyClientId: string | undefined;
  auth: { basic: boolean; formSecret: boolean };
  /** The bearer credential of a protected call (a digest). */
  bearer: string | undefined;
}

/** Same scheme, host and port, and the path at or below the address's own path. */
function under(url: URL, address: string | undefined): boolean {
  if (!address) return true;
  try {
    const a = new URL(address);
    const base = a.pathname.replace(/\/+$/, '');
    // The same host spoken to in plain HTTP is still that address (what SEC-TLS-002 judges).
    const sameOrigin =
      url.origin === a.origin || (url.protocol === 'http:' && a.protocol === 'https:' && url.hostname === a.hostname);
    return sameOrigin && (base === '' || url.pathname === base || url.pathname.startsWith(`${base}/`));
  } catch {
    return false;
  }
}

/** The path below an address's own path (a profile may put the service under a prefix). */
function pathBelow(url: URL, address: string | undefined): string {
  if (!address) return url.pathname;
  const base = new URL(address).pathname.replace(/\/+$/, '');
  return url.pathname.slice(base.length) || '/';
}

/**
 * `as`: the kind the sender knows the exchange to be, whatever its request line says (a live check
 * that wrote `OPTIONS *` to the gateway's socket knows it called the gateway; the addresses alone
 * would call it other traffic).
 */
export function classify(exchange: Exchange, addresses: Addresses, as?: ExchangeKind): Classified {
  let url: URL | undefined;
  try {
    url = new URL(exchange.request.url);
  } catch {
    /* kind other */
  }
  const kindOf = (): ExchangeKind => {
    // A request `record` could not read as ordinary HTTP/1.1 (its line, its framing) is a probe of the
    // target's parser, not a token request or a protected call of the kind the judges know.
    if (!url || exchange.request.malformed !== undefined) return 'other';
    if (
      addresses.clockControlUrl &&
      `${url.origin}${url.pathname}` === addresses.clockControlUrl.replace(/[?#].*$/, '')
    )
      return 'clock';
    if (under(url, addresses.authUrlUs) && pathBelow(url, addresses.authUrlUs) === tokenPaths.us) return 'token-us';
    if (under(url, addresses.authUrlEu) && pathBelow(url, addresses.authUrlEu) === tokenPaths.eu) return 'token-eu';
    if (
      under(url, addresses.authUrlUs) &&
      /^\/api\/v[^/]*\/auth\/oauth2\/token$/.test(pathBelow(url, addresses.authUrlUs))
    )
      return 'token-other-version';
    // A protected call's path begins with a version segment (§9: /v1/…; v0, v2, vx are calls with a
    // wrong version). Other paths at the same origin (a JWKS, health, a portal) are not the API's.
    if (under(url, addresses.baseUrl) && /^\/v[^/]*(?:\/|$)/i.test(pathBelow(url, addresses.baseUrl)))
      return 'protected';
    // The plain-HTTP address may be a host of its own: what is sent there is the service's traffic too.
    if (addresses.plainHttpUrl && under(url, addresses.plainHttpUrl)) {
      const path = pathBelow(url, addresses.plainHttpUrl);
      if (path === tokenPaths.us) return 'token-us';
      if (path === tokenPaths.eu) return 'token-eu';
      if (/^\/v[^/]*(?:\/|$)/i.test(path)) return 'protected';
    }
    return 'other';
  };
  const kind = as ?? kindOf();
  const token = kind === 'token-us' || kind === 'token-eu' || kind === 'token-other-version';
  const form = token ? formOf(exchange.request) : undefined;
  const field = (name: string) => form?.find(([k]) => k === name)?.[1];
  const authz = headerOf(exchange.request.headers, 'authorization');
  const basic = authz !== undefined && /^\s*basic\s+/i.test(authz);
  let clientId = field('client_id');
  if (basic) {
    const decoded = Buffer.from(authz.replace(/^\s*basic\s+/i, '').trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) clientId = safeDecode(decoded.slice(0, colon));
  }
  const bearerMatch = kind === 'protected' && authz !== undefined ? /^\s*bearer\s+(\S+)\s*$/i.exec(authz) : null;
  const bearer = bearerMatch && isDigest(bearerMatch[1]!) ? bearerMatch[1] : bearerMatch?.[1];
  return {
    exchange,
    kind,
    url,
    form,
    grant: field('grant_type'),
    clientId,
    bodyClientId: field('client_id'),
    auth: { basic, formSecret: field('client_secret') !== undefined },
    bearer,
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}
