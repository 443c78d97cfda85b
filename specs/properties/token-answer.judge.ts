// Judges one token-endpoint answer against the oracle's expected answer, per requirement: each
// part of the answer is tied to the rule it comes from, so a wrong code breaks the fault's
// requirement, a body that is not a JSON token error breaks ERR-TOK-001, a status other than 400
// for an error other than invalid_client ERR-TOK-002, a token inside an error ERR-TOK-005.
import type { TokenResponse } from '../../fixtures/index.ts';
import { tokenIssuedResult } from '../../fixtures/matchers.ts';
import { describeExpected, type Expected, type TokenInput } from './token-request.oracle.ts';
import type { Finding } from './attributed-property.ts';

/** Findings merged per requirement (one per requirement and input, its problems joined). */
export class Findings {
  private readonly byRequirement = new Map<string, { expected: string; problems: string[] }>();

  add(requirements: readonly string[], expected: string, problem: string): void {
    for (const id of requirements) {
      const f = this.byRequirement.get(id) ?? { expected, problems: [] };
      if (!f.problems.includes(problem)) f.problems.push(problem);
      this.byRequirement.set(id, f);
    }
  }

  list(actual: string): Finding[] {
    return [...this.byRequirement].map(([requirement, f]) => ({ requirement, expected: f.expected, actual: `${f.problems.join('; ')} (${actual})` }));
  }
}

/** A short, secret-free summary of a token-endpoint answer (no body: it may hold a token). */
export function briefTokenAnswer(res: TokenResponse): string {
  const parts = [`HTTP ${res.status}`, res.mediaType ?? '(no content-type)'];
  if (res.error !== undefined) parts.push(`error=${res.error}`);
  if (res.accessToken !== undefined) parts.push('with access_token');
  if (res.refreshToken !== undefined) parts.push('with refresh_token');
  return parts.join(' ');
}

/**
 * The findings of one answer. A valid request without noise names no requirement of this
 * property (the grant's own checks judge it); whether noise or faults broke an answer is
 * sorted out afterwards (noise-isolation.ts).
 */
export function judgeTokenAnswer(input: TokenInput, expected: Expected, res: TokenResponse): Finding[] {
  const findings = new Findings();
  const want = describeExpected(expected);
  const own = expected.requirements;
  if (res.status >= 500) findings.add(own, want, `a ${res.status}`);
  switch (expected.kind) {
    case 'token': {
      // A token was the answer this rule asks for; the response's format is the format checks' (TOKEN-RESP-*, GRANT-*-001).
      const r = tokenIssuedResult(res);
      if (r.pass) break;
      findings.add(own, want, r.message().split('\n')[0]!.replace(/^expected a token: /, ''));
      break;
    }
    case 'token-error': {
      const issued = res.accessToken !== undefined || res.refreshToken !== undefined;
      if (res.status < 400) findings.add(own, want, `status ${res.status}${issued ? ' with a token' : ''}: the request was not refused`);
      else if (issued) findings.add(['ERR-TOK-005'], 'no access_token or refresh_token in an error response', 'an error response carrying a token');
      if (res.status >= 400) {
        const error = res.error;
        if (res.mediaType !== 'application/json' || error === undefined || res.schemaErrors.length > 0) {
          const what = res.mediaType !== 'application/json' ? `Content-Type ${res.header('content-type') ?? '(none)'}` : error === undefined ? 'no string `error` member' : `token-error schema: ${res.schemaErrors.join('; ')}`;
          findings.add(['ERR-TOK-001'], 'a JSON token error with a catalogue error code', what);
        }
        if (error !== undefined && !expected.codes.includes(error)) findings.add(own, want, `error "${error}"`);
        if (!expected.statuses.includes(res.status) && res.status < 500) {
          findings.add(own, want, `status ${res.status}`);
          if (error !== undefined && error !== 'invalid_client' && res.status !== 400) findings.add(['ERR-TOK-002'], `status 400 for ${error}`, `status ${res.status}`);
        }
        if (res.status === 401 && input.noise.basic && !/^\s*basic\b/i.test(res.header('www-authenticate') ?? '')) findings.add(own, want, 'a 401 for HTTP Basic without a Basic challenge');
      }
      break;
    }
    case 'not-post': {
      if (String(res.status) !== expected.answer) findings.add(own, want, `status ${res.status} (declared nonPostTokenRequest)`);
      if (expected.answer === '405' && res.status === 405 && !(res.header('allow') ?? '').toUpperCase().split(',').map((m) => m.trim()).includes('POST')) findings.add(own, want, `405 without Allow: POST (Allow: ${res.header('allow') ?? '(none)'})`);
      if (res.accessToken !== undefined) findings.add(own, want, 'a token');
      break;
    }
    case 'gateway-415':
      if (res.status !== 415 || !res.text.includes('000-1005')) findings.add(own, want, `status ${res.status} (declared nonFormTokenRequest)`);
      break;
  }
  return findings.list(briefTokenAnswer(res));
}

/** Whether the answer is the expected one in every part (a control request: any finding at all, under any rule). */
export function answerIsRight(input: TokenInput, expected: Expected, res: TokenResponse): boolean {
  return judgeTokenAnswer(input, { ...expected, requirements: ['(control)'] }, res).length === 0;
}
