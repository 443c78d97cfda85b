// An answer that is not the target's: a CDN or WAF block page, a proxy's own HTML error, a body in
// an encoding the suite never asked for. Judging it would blame the target for what stands in front
// of it, so it is recognised by its signature and the check reads "not measured: blocked by an
// intermediary", naming the evidence. Only signatures that a token service does not produce itself
// count: a vendor header with an error status, a block page's own wording, a proxy's HTML 5xx.
import { oneLine } from '../untrusted/neutralise.ts';

export interface AnswerHead {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** The start of the body (a few kilobytes are enough for a block page's wording). */
  bodyStart: string;
  /** The Accept-Encoding the request sent, if any. */
  acceptEncoding?: string;
}

export interface IntermediaryEvidence {
  /** Who answered, in a few words: "Cloudflare", "Amazon CloudFront", "a proxy (HTML 502)". */
  who: string;
  /** The evidence as `name: value` items (header values and wording as the target sent them). */
  items: string[];
}

const errorStatus = (s: number) => s === 403 || s === 429 || s >= 500;
const isHtml = (h: Record<string, string>, body: string) =>
  /text\/html/i.test(h['content-type'] ?? '') || /^\s*(<!doctype html|<html)/i.test(body);
const proxyServers = /\b(nginx|envoy|haproxy|awselb|apache|squid|varnish|traefik|openresty|cloudflare|akamaighost)\b/i;
const proxyPages = /<title>[^<]*(bad gateway|gateway time-?out|service unavailable|502|503|504)[^<]*<\/title>/i;

/** The signature of an intermediary in an answer, or undefined when nothing says the answer is not the target's. */
export function intermediaryEvidence(answer: AnswerHead): IntermediaryEvidence | undefined {
  const h = answer.headers;
  const has = (name: string) => h[name] !== undefined;
  const item = (name: string) => `${name}: ${h[name]}`;
  const encoding = (h['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity' && !accepts(answer.acceptEncoding, encoding))
    return {
      who: 'an intermediary (an encoding the suite did not request)',
      items: [item('content-encoding'), `accept-encoding sent: ${answer.acceptEncoding ?? '(none)'}`],
    };
  if (has('cf-mitigated')) return { who: 'Cloudflare', items: present(h, ['cf-mitigated', 'cf-ray', 'server']) };
  if (!errorStatus(answer.status)) return undefined;
  const html = isHtml(h, answer.bodyStart);
  if (has('cf-ray') && (html || /cloudflare/i.test(h.server ?? '')))
    return { who: 'Cloudflare', items: [`status: ${answer.status}`, ...present(h, ['cf-ray', 'server'])] };
  if (/error from cloudfront/i.test(h['x-cache'] ?? '') || (has('x-amz-cf-id') && html))
    return {
      who: 'Amazon CloudFront',
      items: [`status: ${answer.status}`, ...present(h, ['x-cache', 'x-amz-cf-id', 'server'])],
    };
  const akamaiReference = /Reference\s*#\s*[0-9a-f]+\.[0-9a-f.]+/i.exec(answer.bodyStart)?.[0];
  if (/akamaighost/i.test(h.server ?? '') || (html && akamaiReference))
    return {
      who: 'Akamai',
      items: [`status: ${answer.status}`, ...present(h, ['server']), ...(akamaiReference ? [akamaiReference] : [])],
    };
  const incident = /Incapsula incident ID:?\s*[0-9-]+/i.exec(answer.bodyStart)?.[0];
  if (has('x-iinfo') || /incapsula/i.test(h['x-cdn'] ?? '') || incident)
    return {
      who: 'Imperva',
      items: [`status: ${answer.status}`, ...present(h, ['x-iinfo', 'x-cdn']), ...(incident ? [incident] : [])],
    };
  if (has('x-sucuri-id') || /sucuri/i.test(h.server ?? ''))
    return { who: 'Sucuri', items: [`status: ${answer.status}`, ...present(h, ['x-sucuri-id', 'server'])] };
  if (
    (answer.status === 502 || answer.status === 503 || answer.status === 504) &&
    html &&
    (proxyServers.test(h.server ?? '') || has('via') || proxyPages.test(answer.bodyStart))
  )
    return {
      who: `a proxy (HTML ${answer.status})`,
      items: [
        `status: ${answer.status}`,
        ...present(h, ['server', 'via', 'content-type']),
        ...(proxyPages.exec(answer.bodyStart)?.[0] !== undefined ? [proxyPages.exec(answer.bodyStart)![0]] : []),
      ],
    };
  return undefined;
}

function present(h: Record<string, string>, names: string[]): string[] {
  return names.filter((n) => h[n] !== undefined).map((n) => `${n}: ${h[n]}`);
}

/** Whether an Accept-Encoding value asks for `encoding` (q=0 refuses it). */
function accepts(acceptEncoding: string | undefined, encoding: string): boolean {
  if (acceptEncoding === undefined) return false;
  return acceptEncoding.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const refused = params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p));
    return (name === encoding || name === '*') && !refused;
  });
}

/** Evidence as one line of a reason: each item escaped (no control characters, cut long). */
export function describeEvidence(e: IntermediaryEvidence): string {
  return `${e.who}: ${e.items.map(escapeEvidence).join('; ')}`;
}

/** The reason every report gives a check an intermediary answered. */
export function intermediaryReason(e: IntermediaryEvidence): string {
  return `not measured: blocked by an intermediary — ${describeEvidence(e)}`;
}

/** Target text shown in a reason: on one line through the one neutralising function, at most 200 characters. */
function escapeEvidence(text: string): string {
  const shown = oneLine(text.length > 200 ? text.slice(0, 200) : text);
  return text.length > 200 ? `${shown}…` : shown;
}
