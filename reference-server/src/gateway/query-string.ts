// The query of a protected call (form-urlencoded, RFC 3986 §3.4): a query that cannot be
// parsed, or that repeats a parameter, is 000-2110. Unknown parameters are ignored.
import { reject } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';

const queryCharacters = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*$/;
const badEscape = /%(?![0-9A-Fa-f]{2})/;
// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f]/;

export function parseQuery(rawQuery: string | undefined): Map<string, string> | GatewayRejection {
  const parameters = new Map<string, string>();
  if (rawQuery === undefined || rawQuery === '') return parameters;
  if (!queryCharacters.test(rawQuery) || badEscape.test(rawQuery))
    return reject('000-2110', { detail: 'unparseable query string' });
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawName = equals < 0 ? pair : pair.slice(0, equals);
    const rawValue = equals < 0 ? '' : pair.slice(equals + 1);
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      value = decodeURIComponent(rawValue.replace(/\+/g, ' '));
    } catch {
      return reject('000-2110', { detail: 'percent-escape that is not UTF-8 in the query' });
    }
    if (controlCharacter.test(name) || controlCharacter.test(value))
      return reject('000-2110', { detail: 'control character in the query' });
    if (parameters.has(name)) return reject('000-2110', { detail: 'repeated query parameter' });
    parameters.set(name, value);
  }
  return parameters;
}
