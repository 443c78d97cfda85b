// The oracle of the token-endpoint input property: a pure function from a generated request (a
// valid base request of one grant, plus faults and harmless noise) to the answer the catalogue
// expects, read through the target's declared interpretations, together with the requirement(s)
// that answer comes from (a wrong answer breaks exactly those). Several faults in one request:
// RFC 6749 fixes no precedence, so any of their codes is right (never a code of no fault), and a
// wrong answer breaks the requirement of each. The error-sample helper of the token-error checks
// (specs/token-errors/error-conditions.helper.ts) asks this oracle too: one answer per request.
import type { InterpretationValues, Region } from '../../fixtures/index.ts';

export type Grant = 'client_credentials' | 'password' | 'refresh_token';

/** Something wrong with a token request, each tied to the catalogue requirement that decides its error. */
export type Fault =
  | { kind: 'grant-type-absent' }                                     // TOKEN-REQ-009 invalid_request
  | { kind: 'grant-type-empty' }                                      // TOKEN-REQ-006 invalid_request
  | { kind: 'grant-type-unsupported'; value: string }                 // ERR-TOK-004 (OI-1)
  | { kind: 'repeated'; field: 'grant_type' | 'client_id' | 'refresh_token' } // TOKEN-REQ-005 invalid_request
  | { kind: 'client-secret-absent' }                                  // AUTH-CLI-007 (OI-13)
  | { kind: 'client-credentials-absent' }                             // AUTH-CLI-007 (OI-13)
  | { kind: 'client-unknown' }                                        // AUTH-CLI-005 invalid_client (OI-2; 401 by Basic, AUTH-CLI-003)
  | { kind: 'basic-and-form-secret' }                                 // AUTH-CLI-006 invalid_request
  | { kind: 'username-absent' } | { kind: 'password-absent' }         // GRANT-PW-004 invalid_request
  | { kind: 'username-without-tenant'; name: string }                 // GRANT-PW-007 (OI-10)
  | { kind: 'user-unknown'; tenant: string; name: string; password: string } // GRANT-PW-006 invalid_grant
  | { kind: 'refresh-token-absent' }                                  // GRANT-RT-007 invalid_request
  | { kind: 'refresh-token-unknown' }                                 // GRANT-RT-008 invalid_grant (implied by a refresh_token request)
  | { kind: 'eu-other-grant' }                                        // GRANT-PW-010 / GRANT-RT-011 (OI-9)
  // Envelope faults: the request is refused before its fields mean anything.
  | { kind: 'method'; method: 'GET' | 'PUT' | 'DELETE' | 'PATCH' }   // TOKEN-REQ-001 (OI-12)
  | { kind: 'non-form-body'; contentType: 'application/json' | 'text/plain' | 'multipart/form-data' | null } // TOKEN-REQ-003 (OI-5)
  | { kind: 'malformed-escape' } | { kind: 'invalid-utf8'; raw: boolean }; // TOKEN-REQ-013 (OI-30): invalid_request, or read leniently

/** What may be added to a request without making it invalid. */
export interface Noise {
  /** Extra parameters with names the spec does not use (TOKEN-REQ-007: ignored). */
  extra: [string, string][];
  /** client_id written with %XX escapes for ordinary characters (TOKEN-REQ-012). */
  escapeClientId: boolean;
  /** `;charset=UTF-8` on the form media type (TOKEN-REQ-002). */
  charset: boolean;
  /** Client authentication by HTTP Basic instead of form fields (AUTH-CLI-002; only when the target declares it). */
  basic: boolean;
}

export interface TokenInput {
  region: Region;
  grant: Grant;
  /** For refresh_token: a value nobody issued (GRANT-RT-008 invalid_grant), unless refresh-token-absent. */
  refreshToken: string;
  faults: Fault[];
  noise: Noise;
}

/** The target's declared choices the oracle needs (target.interpretation(key)). */
export type OracleInterpretations = Pick<InterpretationValues, 'unsupportedGrantError' | 'invalidClientStatus' | 'nonFormTokenRequest'
  | 'usernameWithoutTenantError' | 'nonPostTokenRequest' | 'missingClientCredentialsError' | 'euOtherGrants' | 'malformedFormBody'>;

/** The answer the catalogue expects, and the requirement(s) it comes from (never empty). */
export type Expected = { requirements: string[] } & (
  | { kind: 'token' }
  | { kind: 'token-error'; codes: string[]; statuses: number[] }
  | { kind: 'not-post'; answer: '405' | '404' }
  | { kind: 'gateway-415' });

/** The body faults OI-30 decides: refused as not a form, or read as WHATWG form parsing does. */
const malformedBody = new Set<Fault['kind']>(['malformed-escape', 'invalid-utf8']);
const envelope = new Set<Fault['kind']>(['method', 'non-form-body', 'malformed-escape', 'invalid-utf8']);
export const isEnvelopeFault = (f: Fault) => envelope.has(f.kind);

/** The requirement that decides the answer to one fault. */
export function faultRequirement(f: Fault, grant: Grant): string {
  switch (f.kind) {
    case 'grant-type-absent': return 'TOKEN-REQ-009';
    case 'grant-type-empty': return 'TOKEN-REQ-006';
    case 'grant-type-unsupported': return 'ERR-TOK-004';
    case 'repeated': return 'TOKEN-REQ-005';
    case 'client-secret-absent':
    case 'client-credentials-absent': return 'AUTH-CLI-007';
    case 'client-unknown': return 'AUTH-CLI-005';
    case 'basic-and-form-secret': return 'AUTH-CLI-006';
    case 'username-absent':
    case 'password-absent': return 'GRANT-PW-004';
    case 'username-without-tenant': return 'GRANT-PW-007';
    case 'user-unknown': return 'GRANT-PW-006';
    case 'refresh-token-absent': return 'GRANT-RT-007';
    case 'refresh-token-unknown': return 'GRANT-RT-008';
    case 'eu-other-grant': return grant === 'refresh_token' ? 'GRANT-RT-011' : 'GRANT-PW-010';
    case 'method': return 'TOKEN-REQ-001';
    case 'non-form-body': return 'TOKEN-REQ-003';
    case 'malformed-escape':
    case 'invalid-utf8': return 'TOKEN-REQ-013';
  }
}

/** The requirements a request's harmless noise relies on (a valid request without noise: none of this property's). */
export function noiseRequirements(input: TokenInput): string[] {
  const n = input.noise;
  return [
    ...(n.extra.length > 0 ? ['TOKEN-REQ-007'] : []),
    ...(n.escapeClientId && !n.basic ? ['TOKEN-REQ-012'] : []),
    ...(n.charset ? ['TOKEN-REQ-002'] : []),
    ...(n.basic ? ['AUTH-CLI-002'] : []),
  ];
}

/** The faults a request carries, including the one implied by its grant (an unknown refresh token). */
export function allFaults(input: TokenInput): Fault[] {
  const implied: Fault[] = [];
  const grantSent = !input.faults.some((f) => f.kind === 'grant-type-absent' || f.kind === 'grant-type-empty' || f.kind === 'grant-type-unsupported');
  if (input.grant === 'refresh_token' && grantSent && !input.faults.some((f) => f.kind === 'refresh-token-absent')) {
    implied.push({ kind: 'refresh-token-unknown' });
  }
  return [...input.faults, ...implied];
}

export function expectedAnswer(input: TokenInput, oi: OracleInterpretations): Expected {
  const lenient = oi.malformedFormBody === 'lenient';
  const env = input.faults.find((f) => isEnvelopeFault(f) && !(lenient && malformedBody.has(f.kind)));
  const requirements = env ? [faultRequirement(env, input.grant)] : [];
  if (env?.kind === 'method') {
    if (oi.nonPostTokenRequest === 'invalid_request') return { kind: 'token-error', codes: ['invalid_request'], statuses: [400], requirements };
    return { kind: 'not-post', answer: oi.nonPostTokenRequest, requirements };
  }
  if (env?.kind === 'non-form-body') {
    return oi.nonFormTokenRequest === 'invalid_request' ? { kind: 'token-error', codes: ['invalid_request'], statuses: [400], requirements } : { kind: 'gateway-415', requirements };
  }
  if (env) return { kind: 'token-error', codes: ['invalid_request'], statuses: [400], requirements };

  // OI-30 lenient: the malformed parameter is one the spec does not use, so the rest of the request decides.
  const leniency = input.faults.filter((f) => malformedBody.has(f.kind)).map((f) => faultRequirement(f, input.grant));
  const faults = allFaults(input).filter((f) => !malformedBody.has(f.kind));
  // With a malformed body read leniently, the rest of the request decides the answer: a wrong one is
  // the leniency's (TOKEN-REQ-013) or the other faults' — fault isolation (fault-isolation.ts) asks each
  // alone and blames the one that reproduces it.
  if (faults.length === 0) return { kind: 'token', requirements: leniency.length > 0 ? leniency : noiseRequirements(input) };
  const codes = new Set<string>();
  const statuses = new Set<number>();
  // invalid_client takes the declared status (OI-2; 401 for HTTP Basic), except for missing
  // credentials, which AUTH-CLI-007 refuses with 400 whatever the error (the same as its own check).
  const add = (code: string, status?: number) => {
    codes.add(code);
    if (status !== undefined) statuses.add(status);
    else if (code === 'invalid_client') statuses.add(input.noise.basic ? 401 : oi.invalidClientStatus);
    else statuses.add(400);
  };
  for (const f of faults) {
    switch (f.kind) {
      case 'grant-type-absent':
      case 'grant-type-empty':
      case 'repeated':
      case 'basic-and-form-secret':
      case 'username-absent':
      case 'password-absent':
      case 'refresh-token-absent':
        add('invalid_request');
        break;
      case 'grant-type-unsupported':
        add(oi.unsupportedGrantError);
        break;
      case 'client-secret-absent':
      case 'client-credentials-absent':
        add(oi.missingClientCredentialsError, 400);
        break;
      case 'client-unknown':
        add('invalid_client');
        break;
      case 'username-without-tenant':
        add(oi.usernameWithoutTenantError);
        break;
      case 'user-unknown':
      case 'refresh-token-unknown':
        add('invalid_grant');
        break;
      case 'eu-other-grant':
        add(oi.euOtherGrants === 'supported' ? 'invalid_request' : oi.euOtherGrants);
        break;
      default:
        break;
    }
  }
  const faultRequirements = [...new Set([...leniency, ...faults.map((f) => faultRequirement(f, input.grant))])];
  return { kind: 'token-error', codes: [...codes].sort(), statuses: [...statuses].sort(), requirements: faultRequirements };
}

/** The expected answer in words (the first half of a finding). */
export function describeExpected(e: Expected): string {
  switch (e.kind) {
    case 'token': return 'a token (200)';
    case 'token-error': return `${e.statuses.join('|')} ${e.codes.join('|')}`;
    case 'not-post': return e.answer === '405' ? '405 with Allow: POST' : e.answer;
    case 'gateway-415': return '415 with 000-1005';
  }
}

/** A short, secret-free description of a generated request (what a shrunk counterexample shows). */
export function describeInput(input: TokenInput): string {
  const faults = input.faults.map((f) => {
    switch (f.kind) {
      case 'grant-type-unsupported': return `grant_type=${JSON.stringify(f.value)}`;
      case 'repeated': return `repeated ${f.field}`;
      case 'username-without-tenant': return `username without tenant ${JSON.stringify(f.name)}`;
      case 'user-unknown': return `unknown user ${JSON.stringify(`${f.tenant}\\${f.name}`)}`;
      case 'method': return `method ${f.method}`;
      case 'non-form-body': return `body ${f.contentType ?? '(no content-type)'}`;
      case 'invalid-utf8': return `invalid UTF-8 (${f.raw ? 'raw bytes' : '%XX escapes'})`;
      default: return f.kind;
    }
  });
  const n = input.noise;
  const noise = [
    ...n.extra.map(([k, v]) => `${JSON.stringify(k)}=${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…(${v.length})` : v)}`),
    ...(n.escapeClientId ? ['client_id %-escaped'] : []), ...(n.charset ? [';charset=UTF-8'] : []), ...(n.basic ? ['HTTP Basic'] : []),
  ];
  const rt = input.grant === 'refresh_token' ? ` refresh_token=${JSON.stringify(input.refreshToken.slice(0, 40))}` : '';
  return `${input.grant} at ${input.region.toUpperCase()}${rt}; faults [${faults.join(', ')}]; noise [${noise.join(', ')}]`;
}
