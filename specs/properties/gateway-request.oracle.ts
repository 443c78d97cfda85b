// Generated protected calls without a valid token, and the gateway codes the catalogue expects:
//   no Authorization, or another scheme                         000-1201 (ERR-GW-1201)
//   Bearer with no token, a second word, a character outside b64token   000-1205 (ERR-GW-1205)
//   a well-formed token that is not valid: signed by a foreign key, claims altered, signature
//   altered in one character                                     000-1202 (ERR-GW-1202, BEARER-003)
//   where the catalogue leaves the choice open (a b64token that is not a JWT, `alg: none` with an
//   empty signature, several spaces after Bearer) either of the codes that fit;
//   a version other than v1 or none: 000-1020 (ERR-GW-1020); a path under /v1/ not exposed: 000-4000.
// The spec fixes no order between the path checks and the credential checks, so a call with both
// faults may get either code. A method the route does not take: any code of the table.
// Every expected code names its requirement (ERR-GW-nnnn), and a credential the catalogue says
// must get a 401 names the BEARER requirement that says so: a wrong answer breaks exactly those.
// The real token's format decides which cases exist: the JWT cases (claims tampered, a foreign
// key, alg none) only for JWT access tokens; for opaque tokens the unknown and altered tokens
// keep the real token's length and alphabet (specs/gateway/support/token-format.ts).
import fc from 'fast-check';
import type { JWTPayload } from 'jose';
import type { TokenFormat } from '../gateway/support/token-format.ts';
import type { GatewayConditions } from '../../fixtures/gateway-codes.ts';

/** What the cases build their credentials from: the real token's format and ways to alter it. */
export interface TokenMaterial {
  format: TokenFormat;
  /** The real token with one character changed to another of its alphabet (of the signature, for a JWT). */
  alter(index: number): string;
  /** A token of the real token's format that no server issued. */
  unknown(): string;
  /** JWT only: the real token with one claim replaced, its signature kept. */
  tamper(claim: string, value: unknown): string;
  /** JWT only: the real token's claims (with overrides) signed by a key the target never saw. */
  foreign(overrides: JWTPayload, useRealKid: boolean): Promise<string>;
  /** JWT only: the real token's claims (with overrides) under `alg: none`, no signature. */
  algNone(overrides: JWTPayload): string;
}

export interface AuthorizationCase {
  label: string;
  /** Codes the catalogue allows for this credential on an exposed path. */
  codes: string[];
  /** The requirement that demands a 401 for this credential (BEARER-002 no header, BEARER-003 unknown or altered). */
  status401?: 'BEARER-002' | 'BEARER-003';
  value(material: TokenMaterial): Promise<string | undefined> | string | undefined;
}

/** The requirement of a gateway code of §7.2 (`000-1202` → `ERR-GW-1202`). */
export const codeRequirement = (code: string) => `ERR-GW-${code.slice(4)}`;

export interface GatewayInput {
  authorization: AuthorizationCase;
  method: string;
  /** `{id}` is the profile's existing identifier. */
  path: string;
  pathKind: 'exposed' | 'version' | 'unexposed';
}

const visible = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 60 });
const b64tokenChars = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/'.split('')), minLength: 1, maxLength: 300 });
const base64urlSegment = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split('')), minLength: 1, maxLength: 80 });
const bearerScheme = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'BeArEr');
const claimOverrides: fc.Arbitrary<JWTPayload> = fc.oneof(
  fc.constant({}),
  fc.record({ exp: fc.integer({ min: 2_000_000_000, max: 4_000_000_000 }) }),
  fc.record({ sub: fc.string({ maxLength: 20 }) }),
  fc.record({ client_id: fc.string({ maxLength: 20 }) }),
  fc.record({ scope: fc.constantFrom('admin', 'email openid profile company', '*') }),
  fc.record({ iss: fc.webUrl() }),
);

const C1201 = ['000-1201'];
const C1205 = ['000-1205'];
const C1202 = ['000-1202'];

/** Where OI-14 lets the target choose the code of a condition (its declaration, else the reference choice). */
export type DeclaredConditions = Pick<GatewayConditions, 'nonBearerScheme' | 'unknownToken'>;
const referenceConditions: DeclaredConditions = { nonBearerScheme: '000-1201', unknownToken: '000-1202' };

/** Cases for any token format. */
function anyFormatCases(conditions: DeclaredConditions): fc.Arbitrary<AuthorizationCase>[] {
  return [
    fc.constant<AuthorizationCase>({ label: 'no Authorization header', codes: C1201, status401: 'BEARER-002', value: () => undefined }),
    fc.tuple(fc.constantFrom('Basic', 'Token', 'Digest', 'MAC', 'Bearerx', 'JWT', 'OAuth'), visible)
      .map(([scheme, rest]): AuthorizationCase => ({ label: `scheme ${scheme}`, codes: [conditions.nonBearerScheme], value: () => `${scheme} ${rest}` })),
    bearerScheme.map((s): AuthorizationCase => ({ label: `${s} with no token`, codes: C1205, value: () => s })),
    fc.tuple(bearerScheme, b64tokenChars, b64tokenChars)
      .map(([s, a, b]): AuthorizationCase => ({ label: `${s} a b (two words, ${a.length}+${b.length} chars)`, codes: C1205, value: () => `${s} ${a} ${b}` })),
    fc.tuple(bearerScheme, b64tokenChars, fc.constantFrom('!', '"', '#', '$', '%', '&', '(', ')', '*', ',', ':', ';', '<', '>', '?', '@', '[', ']', '\\', '{', '}', '|'), fc.nat())
      .map(([s, t, c, i]): AuthorizationCase => ({ label: `${s} token with '${c}' outside b64token`, codes: C1205, value: () => { const k = i % (t.length + 1); return `${s} ${t.slice(0, k)}${c}${t.slice(k)}`; } })),
    fc.tuple(bearerScheme, b64tokenChars)
      .map(([s, t]): AuthorizationCase => ({ label: `${s} b64token that is not a JWT (${t.length} chars)`, codes: ['000-1202', '000-1205'], value: () => `${s} ${t}` })),
    fc.tuple(bearerScheme, base64urlSegment, base64urlSegment, base64urlSegment)
      .map(([s, a, b, c]): AuthorizationCase => ({ label: `${s} JWT-shaped garbage`, codes: ['000-1202', '000-1205'], value: () => `${s} ${a}.${b}.${c}` })),
    fc.tuple(bearerScheme, fc.nat())
      .map(([s, i]): AuthorizationCase => ({ label: `${s} real token with character ${i} altered`, codes: C1202, status401: 'BEARER-003', value: (m) => `${s} ${m.alter(i)}` })),
    bearerScheme.map((s): AuthorizationCase => ({ label: `${s} unknown token of the real token's format`, codes: [conditions.unknownToken], status401: 'BEARER-003', value: (m) => `${s} ${m.unknown()}` })),
    fc.integer({ min: 1000, max: 4000 })
      .map((n): AuthorizationCase => ({ label: `Bearer with a ${n}-character token`, codes: ['000-1202', '000-1205'], value: () => `Bearer ${'a'.repeat(n)}` })),
  ];
}

/** Cases that take the real token apart as a JWS: only for JWT access tokens. */
function jwtCases(): fc.Arbitrary<AuthorizationCase>[] {
  return [
    fc.tuple(bearerScheme, fc.constantFrom('exp', 'sub', 'client_id', 'scope', 'aud', 'iat'), fc.oneof(fc.integer(), fc.string({ maxLength: 20 })))
      .map(([s, claim, v]): AuthorizationCase => ({ label: `${s} real token with claim ${claim} tampered`, codes: C1202, status401: 'BEARER-003', value: (m) => `${s} ${m.tamper(claim, v)}` })),
    fc.tuple(bearerScheme, claimOverrides, fc.boolean())
      .map(([s, o, kid]): AuthorizationCase => ({ label: `${s} token signed by a foreign key (${kid ? 'the real kid' : 'its own kid'}, overrides ${JSON.stringify(o)})`, codes: C1202, status401: 'BEARER-003', value: async (m) => `${s} ${await m.foreign(o, kid)}` })),
    fc.tuple(bearerScheme, claimOverrides)
      .map(([s, o]): AuthorizationCase => ({ label: `${s} alg none (overrides ${JSON.stringify(o)})`, codes: ['000-1202', '000-1205'], value: (m) => `${s} ${m.algNone(o)}` })),
    fc.tuple(fc.integer({ min: 2, max: 4 }), claimOverrides)
      .map(([n, o]): AuthorizationCase => ({ label: `Bearer followed by ${n} spaces and a foreign-key token`, codes: ['000-1202', '000-1205'], value: async (m) => `Bearer${' '.repeat(n)}${await m.foreign(o, false)}` })),
  ];
}

/** Cases for opaque tokens: several spaces before an unknown token of the real format. */
function opaqueCases(): fc.Arbitrary<AuthorizationCase>[] {
  return [
    fc.integer({ min: 2, max: 4 })
      .map((n): AuthorizationCase => ({ label: `Bearer followed by ${n} spaces and an unknown token of the real format`, codes: ['000-1202', '000-1205'], value: (m) => `Bearer${' '.repeat(n)}${m.unknown()}` })),
  ];
}

/** The Authorization cases that are well-formed for `format` (the target's access tokens). */
export function authorizationArbitrary(format: TokenFormat, conditions: DeclaredConditions = referenceConditions): fc.Arbitrary<AuthorizationCase> {
  const [first, ...rest] = [...anyFormatCases(conditions), ...(format.kind === 'jwt' ? jwtCases() : opaqueCases())];
  return fc.oneof(first!, ...rest);
}

const unexposedSegment = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter((s) => s !== 'people');

export function requestArbitrary(authorization: fc.Arbitrary<AuthorizationCase>): fc.Arbitrary<GatewayInput> {
  const exposed = fc.constant({ path: '/v1/people/er/{id}', pathKind: 'exposed' as const });
  const version = fc.constantFrom('/v0/people/er/{id}', '/v2/people/er/{id}', '/vx/people/er/{id}', '/V1/people/er/{id}', '/people/er/{id}', '/v1.1/people/er/{id}')
    .map((path) => ({ path, pathKind: 'version' as const }));
  const unexposed = fc.tuple(unexposedSegment, fc.option(unexposedSegment)).map(([a, b]) => ({ path: `/v1/${a}${b ? `/${b}` : ''}`, pathKind: 'unexposed' as const }));
  return fc.record({
    authorization,
    method: fc.oneof({ weight: 6, arbitrary: fc.constant('GET') }, { weight: 1, arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS') }),
    where: fc.oneof({ weight: 6, arbitrary: exposed }, { weight: 1, arbitrary: version }, { weight: 1, arbitrary: unexposed }),
  }).map(({ authorization: a, method, where }) => {
    const input: GatewayInput = { authorization: a, method, ...where };
    return Object.assign(input, { [fc.toStringMethod]: () => describeGatewayInput(input) });
  });
}

/** The codes the catalogue allows; 'any-table-code' where it names none (a method the route does not take). */
export function expectedGatewayCodes(input: GatewayInput): string[] | 'any-table-code' {
  if (input.method !== 'GET') return 'any-table-code';
  if (input.pathKind === 'version') return ['000-1020', ...input.authorization.codes];
  if (input.pathKind === 'unexposed') return ['000-4000', ...input.authorization.codes];
  return input.authorization.codes;
}

/** The requirements a wrong code breaks: those of every code the catalogue allows here. */
export function expectedCodeRequirements(input: GatewayInput): string[] {
  const codes = expectedGatewayCodes(input);
  return codes === 'any-table-code' ? ['ERR-GW-GEN-001'] : [...new Set(codes.map(codeRequirement))];
}

/** The requirements a call served without a valid token breaks: its credential's code(s) and 401 rule. */
export function credentialRequirements(input: GatewayInput): string[] {
  const a = input.authorization;
  return [...new Set([...a.codes.map(codeRequirement), ...(a.status401 ? [a.status401] : [])])];
}

export function describeGatewayInput(input: GatewayInput): string {
  return `${input.method} ${input.path} with ${input.authorization.label}`;
}
