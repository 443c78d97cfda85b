// Step 14 of the decision order: the syntax of the call itself, per API, producing the typed
// request the backend takes.
//   query (every API): unparseable or repeated parameter 000-2110
//   search:            `lastName` missing or empty 000-2111; `limit` not an integer 1..100, or
//                      `lastName` longer than 100 characters 000-2112
//   add-note body:     no Content-Type 000-2101; a media type other than application/json
//                      (charset, if given, utf-8) 000-1005; not a UTF-8 JSON object or over
//                      64 KiB 000-2120; no `text` 000-2121; `text` not a string of 1..2000
//                      characters 000-2122
import type { ApiRoute } from './api-routes.ts';
import { reject } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';
import { parseQuery } from './query-string.ts';
import type { RawRequest } from './raw-request.ts';

export type ApiRequest =
  | { api: 'get-person'; identifier: string }
  | { api: 'search-people'; lastName: string; limit: number }
  | { api: 'add-note'; identifier: string; text: string }
  | { api: 'person-history'; identifier: string };

export const searchLimits = { defaultLimit: 20, maxLimit: 100, maxLastNameLength: 100 } as const;
export const noteLimits = { maxTextLength: 2000 } as const;

export function checkRequestSyntax(
  route: ApiRoute,
  rawQuery: string | undefined,
  request: RawRequest,
): ApiRequest | GatewayRejection {
  const query = parseQuery(rawQuery);
  if (!(query instanceof Map)) return query;
  switch (route.api) {
    case 'get-person':
    case 'person-history':
      return route;
    case 'search-people':
      return checkSearch(query);
    case 'add-note':
      return checkNoteBody(route.identifier, request);
  }
}

function checkSearch(query: Map<string, string>): ApiRequest | GatewayRejection {
  const lastName = query.get('lastName');
  if (lastName === undefined || lastName === '') return reject('000-2111', { detail: 'lastName missing' });
  if (lastName.length > searchLimits.maxLastNameLength) return reject('000-2112', { detail: 'lastName too long' });
  const rawLimit = query.get('limit');
  if (rawLimit === undefined) return { api: 'search-people', lastName, limit: searchLimits.defaultLimit };
  const limit = /^[0-9]{1,3}$/.test(rawLimit) ? Number(rawLimit) : Number.NaN;
  if (!(limit >= 1 && limit <= searchLimits.maxLimit))
    return reject('000-2112', { detail: 'limit not an integer from 1 to 100' });
  return { api: 'search-people', lastName, limit };
}

function checkNoteBody(identifier: string, request: RawRequest): ApiRequest | GatewayRejection {
  const contentType = request.header('content-type');
  if (contentType === undefined || contentType.trim() === '')
    return reject('000-2101', { detail: 'Content-Type missing' });
  if (!isJsonMediaType(contentType)) return reject('000-1005', { detail: 'Content-Type is not application/json' });
  const body = request.body;
  if (body === undefined || body.tooLarge)
    return reject('000-2120', { detail: body === undefined ? 'no body' : 'body too large' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body.bytes));
  } catch {
    return reject('000-2120', { detail: 'body is not UTF-8 JSON' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return reject('000-2120', { detail: 'body is not a JSON object' });
  if (!Object.hasOwn(parsed, 'text')) return reject('000-2121', { detail: 'text missing' });
  const text: unknown = (parsed as Record<string, unknown>)['text'];
  if (typeof text !== 'string' || text.length < 1 || text.length > noteLimits.maxTextLength) {
    return reject('000-2122', { detail: 'text not a string of 1 to 2000 characters' });
  }
  return { api: 'add-note', identifier, text };
}

function isJsonMediaType(contentType: string): boolean {
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== 'application/json') return false;
  return parameters.every((p) => !p.startsWith('charset=') || p.replace(/"/g, '') === 'charset=utf-8');
}
