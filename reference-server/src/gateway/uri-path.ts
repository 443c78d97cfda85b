// Step 4 of the decision order: the path must be a well-formed URI path (RFC 3986 §3.3),
// else 000-1010. Decoding is done here, once, segment by segment, so that an encoded `/`
// stays inside its segment and an encoded dot-segment cannot slip past the check.
import { reject } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';

/** pchar / "/" of RFC 3986, plus `%` (escapes are checked separately). */
const pathCharacters = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
const badEscape = /%(?![0-9A-Fa-f]{2})/;
// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f]/;

/** The decoded path segments after the leading `/`, or 000-1010. */
export function decodePath(rawPath: string): string[] | GatewayRejection {
  if (!pathCharacters.test(rawPath)) return reject('000-1010', { detail: 'character not allowed in a URI path' });
  if (badEscape.test(rawPath)) return reject('000-1010', { detail: 'bad percent-escape' });
  const segments: string[] = [];
  for (const raw of rawPath.slice(1).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return reject('000-1010', { detail: 'percent-escape that is not UTF-8' });
    }
    if (controlCharacter.test(segment)) return reject('000-1010', { detail: 'control character (or NUL) in the path' });
    if (segment === '.' || segment === '..') return reject('000-1010', { detail: 'dot-segment in the path' });
    segments.push(segment);
  }
  return segments;
}
