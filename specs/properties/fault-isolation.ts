// Which fault of a request with several broke the answer. The oracle accepts any fault's code for
// a request with several faults (RFC 6749 fixes no precedence), and a wrong answer names the
// requirements of every fault. When that happens the same request is sent again with each fault
// alone (without the noise, as noise-isolation.ts sends it), and only the faults whose request
// alone is answered wrongly too are blamed; if none is, the combination is (and the message says so).
// At the EU endpoint a password or refresh_token request is first of all the grant the region
// declares (OI-9 euOtherGrants: GRANT-PW-010 / GRANT-RT-011): every request alone keeps it, and when
// the grant alone (with a plain refresh token) is answered wrongly, the wrong answer is the grant's.
// Control requests are sent only after a wrong answer, at most one per fault plus one for the grant.
import type { Finding } from './attributed-property.ts';
import { bareNoise, type AnswersRight } from './noise-isolation.ts';
import { allFaults, describeInput, faultRequirement, type Fault, type TokenInput } from './token-request.oracle.ts';

/** A well-formed refresh token nobody issued: the request with one fault does not carry the input's odd value. */
export const plainRefreshToken = 'never-issued-refresh-token-0123456789abcdef';

/** Faults that come with the grant at the region (never sent without it). */
const isGrantAtRegion = (f: Fault) => f.kind === 'eu-other-grant';

const blame = (requirements: string[], like: Finding, note: string): Finding[] =>
  requirements.map((requirement) => ({ requirement, expected: like.expected, actual: `${like.actual}; ${note}` }));

/**
 * The findings of `input` with the fault to blame sorted out. `own` are the requirements of the
 * expected answer (one per fault); findings of other rules (ERR-TOK-001, -002, -005) stay as they are.
 */
export async function isolateFaults(input: TokenInput, own: readonly string[], findings: Finding[], answersRight: AnswersRight): Promise<Finding[]> {
  const mine = findings.filter((f) => own.includes(f.requirement));
  if (mine.length === 0 || own.length <= 1) return findings;
  const others = findings.filter((f) => !own.includes(f.requirement));
  const first = mine[0]!;
  const noise = bareNoise(input);
  const grantAtRegion = input.faults.filter(isGrantAtRegion);
  const plain = (faults: Fault[], refreshToken = plainRefreshToken): TokenInput => ({ ...input, faults, noise, refreshToken });

  if (grantAtRegion.length > 0) {
    const grantAlone = plain(grantAtRegion);
    if (!(await answersRight(grantAlone))) {
      const ids = [...new Set(grantAtRegion.map((f) => faultRequirement(f, input.grant)))];
      return [...others, ...blame(ids, first, `the grant alone at ${input.region.toUpperCase()} (${describeInput(grantAlone)}) is answered wrongly too`)];
    }
  }

  // One request per fault, each with the grant at the region; the unknown refresh token that a
  // refresh_token request implies is tried alone with the input's own value (where it can be).
  const alone: { fault: Fault; request: TokenInput }[] = input.faults.filter((f) => !isGrantAtRegion(f)).map((fault) => ({ fault, request: plain([...grantAtRegion, fault]) }));
  const implied = allFaults(input).find((f) => f.kind === 'refresh-token-unknown');
  if (implied && grantAtRegion.length === 0) alone.push({ fault: implied, request: plain([], input.refreshToken) });

  const blamed: string[] = [];
  for (const { fault, request } of alone) {
    const id = faultRequirement(fault, input.grant);
    if (blamed.includes(id) || !own.includes(id)) continue;
    if (!(await answersRight(request))) blamed.push(id);
  }
  if (blamed.length > 0) return [...others, ...blame(blamed, first, 'the same request with that fault alone is answered wrongly too')];
  return [...others, ...mine.map((f) => ({ ...f, actual: `${f.actual}; no fault alone is answered wrongly: the combination is` }))];
}
