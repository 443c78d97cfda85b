// Steps 5–6 of the decision order: the version segment (000-1020) and the exposed surface
// (000-4000). The gateway exposes (method, path) pairs; a path under /v1/ that is not one of
// them, or an exposed path with another method, is "Forbidden: Invalid path". HEAD is allowed
// wherever GET is.
import { reject } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';

export const supportedVersion = 'v1';

export type ApiRoute =
  | { api: 'get-person'; identifier: string }
  | { api: 'search-people' }
  | { api: 'add-note'; identifier: string }
  | { api: 'person-history'; identifier: string };

export type ApiName = ApiRoute['api'];

/** The exposed surface, for the README and the tests. */
export const exposedApis: Readonly<Record<ApiName, { method: 'GET' | 'POST'; path: string }>> = {
  'get-person': { method: 'GET', path: '/v1/people/er/{identifier}' },
  'search-people': { method: 'GET', path: '/v1/people/search' },
  'add-note': { method: 'POST', path: '/v1/people/er/{identifier}/notes' },
  'person-history': { method: 'GET', path: '/v1/people/er/{identifier}/history' },
};

export function resolveApi(method: string, segments: readonly string[]): ApiRoute | GatewayRejection {
  const [version, ...rest] = segments;
  if (version !== supportedVersion) {
    return reject('000-1020', {
      detail: version === undefined || version === '' ? 'no version segment' : 'unsupported version segment',
    });
  }
  const route = matchRoute(rest);
  if (route === undefined) return reject('000-4000', { detail: 'path not exposed' });
  const wanted = exposedApis[route.api].method;
  const allowed = wanted === 'GET' ? method === 'GET' || method === 'HEAD' : method === wanted;
  if (!allowed) return reject('000-4000', { detail: `method ${method} not exposed on this path` });
  return route;
}

function matchRoute(rest: readonly string[]): ApiRoute | undefined {
  if (rest[0] !== 'people') return undefined;
  if (rest.length === 2 && rest[1] === 'search') return { api: 'search-people' };
  if (rest[1] !== 'er') return undefined;
  const identifier = rest[2];
  if (identifier === undefined || identifier === '') return undefined;
  if (rest.length === 3) return { api: 'get-person', identifier };
  if (rest.length === 4 && rest[3] === 'notes') return { api: 'add-note', identifier };
  if (rest.length === 4 && rest[3] === 'history') return { api: 'person-history', identifier };
  return undefined;
}
