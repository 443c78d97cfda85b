// Step 7 of the decision order: header syntax. Two Authorization lines are an invalid value
// (000-2102, RFC 9110 §5.3: the field is not a list); an Accept that is not a media-range list
// is unparseable (000-2100); an Accept under which application/json is not acceptable is an
// invalid value (000-2102): every protected API answers JSON only.
import { reject } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';
import type { RawRequest } from './raw-request.ts';

const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const quotedString = '"(?:[^"\\\\]|\\\\.)*"';
const parameter = new RegExp(`^(${token})=(${token}|${quotedString})$`);
const mediaRange = new RegExp(`^(${token})/(${token})$`);
const qvalue = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

interface AcceptRange {
  type: string;
  subtype: string;
  q: number;
}

export function checkHeaderSyntax(request: RawRequest): GatewayRejection | undefined {
  if (request.headerValues('authorization').length > 1)
    return reject('000-2102', { detail: 'two Authorization headers' });
  const accept = request.header('accept');
  if (accept === undefined || accept.trim() === '') return undefined;
  // The values nearly every client sends: a single range that admits JSON at q=1.
  if (accept === 'application/json' || accept === '*/*') return undefined;
  const ranges = parseAccept(accept);
  if (ranges === undefined) return reject('000-2100', { detail: 'Accept is not a media-range list' });
  if (ranges.length > 0 && jsonQuality(ranges) === 0)
    return reject('000-2102', { detail: 'Accept excludes application/json' });
  return undefined;
}

/** RFC 9110 §12.5.1; undefined when the value does not parse. */
export function parseAccept(value: string): AcceptRange[] | undefined {
  const ranges: AcceptRange[] = [];
  for (const element of splitOutsideQuotes(value, ',')) {
    const trimmed = element.trim();
    if (trimmed === '') continue;
    const [range = '', ...parameters] = splitOutsideQuotes(trimmed, ';').map((part) => part.trim());
    const match = mediaRange.exec(range);
    if (!match) return undefined;
    const type = (match[1] ?? '').toLowerCase();
    const subtype = (match[2] ?? '').toLowerCase();
    if (type === '*' && subtype !== '*') return undefined;
    let q = 1;
    for (const p of parameters) {
      const param = parameter.exec(p);
      if (!param) return undefined;
      if ((param[1] ?? '').toLowerCase() === 'q') {
        if (!qvalue.test(param[2] ?? '')) return undefined;
        q = Number(param[2]);
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The quality the most specific matching range gives application/json (0 when none matches). */
function jsonQuality(ranges: AcceptRange[]): number {
  const exact = ranges.filter((r) => r.type === 'application' && r.subtype === 'json');
  const family = ranges.filter((r) => r.type === 'application' && r.subtype === '*');
  const any = ranges.filter((r) => r.type === '*');
  const best = exact.length > 0 ? exact : family.length > 0 ? family : any;
  return best.length === 0 ? 0 : Math.max(...best.map((r) => r.q));
}

function splitOutsideQuotes(value: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i += 1) {
    const c = value[i] ?? '';
    if (quoted && c === '\\') {
      current += c + (value[i + 1] ?? '');
      i += 1;
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === separator && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}
