// Steps 1–3 of the decision order, on the raw request as it came off the wire:
// framing (000-1000), Host (000-1001), request-target form (000-1002).
// Node's HTTP parser already refused what it could not frame (see gatewayClientError);
// what is left here is a body on a GET/HEAD, the Host header, and the target form.
import { hostNameOf, normalizeAllowedHost } from './host-header.ts';
import { reject } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';
import type { RawRequest } from './raw-request.ts';

export interface RequestTarget {
  /** The path exactly as sent (still percent-encoded), always starting with `/`. */
  rawPath: string;
  /** The query exactly as sent, without `?`; undefined when the target has no `?`. */
  rawQuery: string | undefined;
}

const absoluteForm = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/s;

export function carriesBody(request: RawRequest): boolean {
  const length = request.header('content-length');
  if (request.header('transfer-encoding') !== undefined) return true;
  return length !== undefined && length.trim() !== '0';
}

export function checkFramingHostAndTarget(
  request: RawRequest,
  allowedHosts: readonly string[],
): RequestTarget | GatewayRejection {
  if ((request.method === 'GET' || request.method === 'HEAD') && carriesBody(request)) {
    return reject('000-1000', { detail: `${request.method} with a body` });
  }

  const hostHeaders = request.headerValues('host');
  if (hostHeaders.length !== 1) return reject('000-1001', { detail: `${hostHeaders.length} Host headers` });
  const hostHeaderName = hostNameOf(hostHeaders[0] ?? '');
  if (hostHeaderName === undefined) return reject('000-1001', { detail: 'unparseable Host header' });

  const allowed = allowedHostSet(allowedHosts);
  const target = request.target;

  if (target.startsWith('/')) {
    if (!allowed.has(hostHeaderName)) return reject('000-1001', { detail: 'Host not configured' });
    return splitTarget(target);
  }

  // RFC 9112 §3.2.2: with absolute-form the target's authority wins over the Host header.
  const absolute = absoluteForm.exec(target);
  if (absolute) {
    const scheme = (absolute[1] ?? '').toLowerCase();
    const authority = absolute[2] ?? '';
    const host = authority.includes('@') ? undefined : hostNameOf(authority);
    if ((scheme !== 'http' && scheme !== 'https') || host === undefined || !allowed.has(host)) {
      return reject('000-1002', { detail: 'absolute-form target naming a foreign host' });
    }
    const rest = absolute[3] ?? '';
    return splitTarget(rest.startsWith('/') ? rest : `/${rest}`);
  }

  return reject('000-1002', {
    detail: target === '*' ? 'asterisk-form target' : 'target in neither origin- nor absolute-form',
  });
}

/** The normalised set of each configured host list, built once (the list is fixed for the server's life). */
const allowedHostSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function allowedHostSet(allowedHosts: readonly string[]): ReadonlySet<string> {
  let set = allowedHostSets.get(allowedHosts);
  if (set === undefined) {
    set = new Set(allowedHosts.map(normalizeAllowedHost));
    allowedHostSets.set(allowedHosts, set);
  }
  return set;
}

function splitTarget(pathAndQuery: string): RequestTarget {
  const question = pathAndQuery.indexOf('?');
  return question < 0
    ? { rawPath: pathAndQuery, rawQuery: undefined }
    : { rawPath: pathAndQuery.slice(0, question), rawQuery: pathAndQuery.slice(question + 1) };
}
