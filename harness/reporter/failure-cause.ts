// What a failed check's reason says went wrong in the target's answer, reduced to one cause: a key
// that failures of other checks share when the same part of the answer has the same defect, and a
// plain sentence for it. Read from the words the suite's matchers and the response summary write
// (fixtures/matchers.ts, fixtures/clients/responses.ts): `status 403, expected 400`,
// `Content-Type (none), expected application/json`, `HTTP 403 (no content-type)`, `no Pragma header`.
// A recognised cause's sentence is the suite's own words around values it parsed (a status, a media
// type, a header name, an error code), each bounded by a strict pattern, so no other byte of the
// target reaches it; an unrecognised reason is its own sentence, as the report shows it already.
// The answer's text inside a reason can only move a requirement between findings, never its verdict.

export interface FailureCause {
  /** Equal for failures with the same observed defect; a reason with no recognised defect keys on its own text. */
  key: string;
  /** The defect in plain words. */
  sentence: string;
}

/** The key prefix of a reason with no recognised defect. */
export const unrecognisedPrefix = 'reason=';

// `status 403, expected 400` (the matchers), `expected 400 …, got status 403` (the property judges).
const statusPattern = /\bstatus (\d{3}), expected\b|\bexpected \d{3}\b[^;]*?\bgot status (\d{3})\b/i;
const noContentTypePattern =
  /Content-Type \(none\)|\(no content-type\)|\bno content-type\b|without (?:a )?content-type/i;
const contentTypePattern = /Content-Type ([a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64})[^,]{0,200}, expected\b/i;
const errorCodePattern = /\berror "([a-z_]{1,40})", expected\b/;
const emptyBodyPattern = /\b(?:no|empty) (?:response )?body\b|\bbody (?:is )?empty\b/i;
const missingHeaderPattern =
  /\b(?:no |without (?:a |an |the )?|missing (?:a |an |the )?)([A-Za-z][A-Za-z0-9-]{1,40}) header\b|\bgot ([A-Za-z][A-Za-z0-9-]{1,40}): \(none\)|\bcarries (?:a |an )?([A-Z][A-Za-z0-9-]{1,40})\b(?=.*\bReceived: undefined\b)/;

/** The observed status of an answer the reason says was not the expected one; undefined when it names none. */
function observedStatus(reason: string): string | undefined {
  const m = statusPattern.exec(reason);
  return m ? (m[1] ?? m[2]) : undefined;
}

/**
 * A check's failure reason (its first line) → the cause it shows. `requirement` keys a reason with
 * no recognised defect: two requirements failing for reasons the classifier cannot tell apart stay
 * two findings. A success where a refusal was expected (a 2xx status) is no shared defect of the
 * answer either: each such requirement names its own condition the target did not enforce.
 */
export function classifyFailure(reason: string, requirement = ''): FailureCause {
  const text = reason
    .split('\n')[0]!
    .trim()
    .replace(/^Error:\s*/, '');
  const seen = observedStatus(text);
  const status = seen !== undefined && !seen.startsWith('2') ? seen : undefined;
  // A defect of the body's media type or of the body is the same whatever status carried it.
  const emptyBody = emptyBodyPattern.test(text);
  if (noContentTypePattern.test(text))
    return {
      key: `content-type=none${emptyBody ? ';body=empty' : ''}`,
      sentence: `the answer has no Content-Type${emptyBody ? ' and an empty body' : ''} where a JSON body was expected`,
    };
  const mediaType = contentTypePattern.exec(text)?.[1]?.toLowerCase();
  if (mediaType !== undefined && mediaType !== 'application/json')
    return {
      key: `content-type=${mediaType}`,
      sentence: `the answer is ${mediaType} where application/json was expected`,
    };
  if (emptyBody) return { key: 'body=empty', sentence: 'the answer has an empty body where a body was expected' };
  const headerMatch = missingHeaderPattern.exec(text);
  const header = headerMatch?.[1] ?? headerMatch?.[2] ?? headerMatch?.[3];
  if (header !== undefined && !/^(?:a|an|the|such)$/i.test(header))
    return { key: `header-missing=${header.toLowerCase()}`, sentence: `the answer has no ${header} header` };
  const errorCode = errorCodePattern.exec(text)?.[1];
  if (errorCode !== undefined)
    return {
      key: `error=${errorCode}`,
      sentence: `the answer's error is ${errorCode} where another was expected`,
    };
  if (status !== undefined)
    return { key: `status=${status}`, sentence: `the answer's status is ${status} where another was expected` };
  // No recognised defect: the reason speaks for itself, and only the same reason shares its cause.
  return { key: `${unrecognisedPrefix}${requirement}: ${text.replace(/\s+/g, ' ')}`, sentence: text };
}
