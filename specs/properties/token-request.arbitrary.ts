// Generated token requests (the input of the token-endpoint property) and how they are sent.
//
// A request is a valid base request of one grant (the profile's own client and user) plus faults
// and noise (token-request.oracle.ts). Values that would count as failed logins of a real
// principal (a wrong secret for a real client, a wrong password for a real user) are never sent:
// every failing credential names a made-up client or user, unique per request, so that no
// lockout (LIMIT-RATE-003) ever touches the profile's principals or the checks running beside.
import fc from 'fast-check';
import type { InterpretationKey, InterpretationValues, RawHttp, Region, TokenClient } from '../../fixtures/index.ts';
import type { HeaderList } from '../../fixtures/http/exchange.ts';
import { describeInput, type Fault, type Grant, type Noise, type OracleInterpretations, type TokenInput } from './token-request.oracle.ts';

const knownGrants = new Set(['client_credentials', 'password', 'refresh_token']);
/** Parameter names the spec or RFC 6749 give a meaning: never used as "extra" noise. */
const meaningful = new Set(['grant_type', 'client_id', 'client_secret', 'username', 'password', 'refresh_token', 'scope', 'code', 'redirect_uri', 'code_verifier', 'assertion', 'client_assertion', 'client_assertion_type', 'device_code']);

/** Strings of every kind: ASCII, unicode graphemes, lone surrogates, very long. */
const anyText = (maxLength = 60) => fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) },
  { weight: 1, arbitrary: fc.constantFrom('+', '%', '%2', '&', '=', ' ', 'a+b c', '\u0000', '\r\n', 'é', '\u{1F600}') },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 8000 }).map((n) => 'x'.repeat(n)) },
);

const unsupportedGrant = fc.oneof(
  fc.constantFrom('authorization_code', 'urn:example:unknown', 'Client_Credentials', 'PASSWORD', 'implicit', 'client_credentials ', ' password', 'refresh-token', 'urn:ietf:params:oauth:grant-type:jwt-bearer'),
  fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !knownGrants.has(s)),
);

const extraField = fc.tuple(anyText(20), anyText()).map(([k, v]): [string, string] => [`x_${k}`, v]).filter(([k]) => !meaningful.has(k));

function noiseArbitrary(basicAllowed: boolean): fc.Arbitrary<Noise> {
  return fc.record({
    extra: fc.array(extraField, { maxLength: 3 }),
    escapeClientId: fc.boolean(),
    charset: fc.boolean(),
    basic: basicAllowed ? fc.boolean() : fc.constant(false),
  });
}

const envelopeFault: fc.Arbitrary<Fault> = fc.oneof(
  fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH').map((method): Fault => ({ kind: 'method', method })),
  fc.constantFrom('application/json', 'text/plain', 'multipart/form-data', null).map((contentType): Fault => ({ kind: 'non-form-body', contentType })),
  fc.constant<Fault>({ kind: 'malformed-escape' }),
  fc.boolean().map((raw): Fault => ({ kind: 'invalid-utf8', raw })),
);

const grantFault: fc.Arbitrary<Fault> = fc.oneof(
  fc.constant<Fault>({ kind: 'grant-type-absent' }),
  fc.constant<Fault>({ kind: 'grant-type-empty' }),
  unsupportedGrant.map((value): Fault => ({ kind: 'grant-type-unsupported', value })),
);

const tenantName = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/);
const fieldFault = (grant: Grant): fc.Arbitrary<Fault> | undefined => {
  if (grant === 'password') {
    return fc.oneof(
      fc.constant<Fault>({ kind: 'username-absent' }),
      fc.constant<Fault>({ kind: 'password-absent' }),
      anyText(30).filter((n) => !n.includes('\\')).map((name): Fault => ({ kind: 'username-without-tenant', name })),
      fc.record({ tenant: tenantName, name: anyText(30), password: anyText(30) }).map((u): Fault => ({ kind: 'user-unknown', ...u })),
    );
  }
  if (grant === 'refresh_token') return fc.constant<Fault>({ kind: 'refresh-token-absent' });
  return undefined;
};

/** Requests at one region: grants the region serves (EU password/refresh only as the declared OI-9 fault). */
export function tokenInputArbitrary(region: Region, oi: OracleInterpretations, basicAllowed: boolean): fc.Arbitrary<TokenInput> {
  const grants: Grant[] = region === 'us' || oi.euOtherGrants !== 'supported'
    ? ['client_credentials', 'password', 'refresh_token'] : ['client_credentials'];
  return fc.record({
    grant: fc.constantFrom(...grants),
    refreshToken: fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), anyText(), fc.stringMatching(/^[A-Za-z0-9_-]{20,80}$/)),
    noise: noiseArbitrary(basicAllowed),
    shape: fc.oneof(
      { weight: 1, arbitrary: fc.constant('valid' as const) },
      { weight: 2, arbitrary: fc.constant('envelope' as const) },
      { weight: 6, arbitrary: fc.constant('fields' as const) },
    ),
    envelope: envelopeFault,
    grantFault: fc.option(grantFault, { freq: 2 }),
    clientFault: fc.option(fc.boolean(), { freq: 2 }),
    clientFaultPick: fc.nat(),
    fieldFault: fc.option(fc.constant(true), { freq: 2 }),
    fieldFaultSeed: fc.record({ cc: fc.constant(undefined), pw: fieldFault('password')!, rt: fieldFault('refresh_token')! }),
    repeated: fc.option(fc.constantFrom<'grant_type' | 'client_id' | 'refresh_token'>('grant_type', 'client_id', 'refresh_token'), { freq: 4 }),
  }).map((g): TokenInput => {
    const faults: Fault[] = [];
    if (region === 'eu' && g.grant !== 'client_credentials') faults.push({ kind: 'eu-other-grant' });
    if (g.shape === 'envelope') faults.push(g.envelope);
    if (g.shape === 'fields') {
      if (g.grantFault) faults.push(g.grantFault);
      if (g.clientFault !== null) {
        const options = g.noise.basic ? ['client-unknown', 'basic-and-form-secret'] as const : ['client-secret-absent', 'client-credentials-absent', 'client-unknown'] as const;
        faults.push({ kind: options[g.clientFaultPick % options.length]! });
      }
      if (g.fieldFault && !g.grantFault) {
        const f = g.grant === 'password' ? g.fieldFaultSeed.pw : g.grant === 'refresh_token' ? g.fieldFaultSeed.rt : undefined;
        if (f) faults.push(f);
      }
      const clientInForm = !g.noise.basic && !faults.some((f) => f.kind === 'client-credentials-absent');
      const ok = g.repeated === 'grant_type' ? !g.grantFault || g.grantFault.kind !== 'grant-type-absent'
        : g.repeated === 'client_id' ? clientInForm
          : g.repeated === 'refresh_token' ? g.grant === 'refresh_token' && !faults.some((f) => f.kind === 'refresh-token-absent') : false;
      if (g.repeated && ok) faults.push({ kind: 'repeated', field: g.repeated });
    }
    const input: TokenInput = { region, grant: g.grant, refreshToken: g.refreshToken, faults, noise: g.noise };
    return Object.assign(input, { [fc.toStringMethod]: () => describeInput(input) });
  });
}

/** The `malformed-escape` fault: a parameter the spec does not use, with escapes that decode to nothing (OI-30). */
export const malformedEscapeParameter = 'x_fuzz=%ZZ%4';

/** Form encoding of one name or value (space as `+`, like a browser). */
const enc = (s: string) => new URLSearchParams([['', s]]).toString().slice(1);
/** Every byte of the UTF-8 form as %XX: ordinary characters escaped (TOKEN-REQ-012). */
const escapeAll = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

export interface SentRequest {
  method: string;
  url: string;
  headers: HeaderList;
  body?: string | Buffer;
}

/** Builds the HTTP request of a generated input. `unique` makes made-up principals unique per request. */
export function buildRequest(input: TokenInput, deps: { tokenClient: TokenClient; rawHttp: RawHttp }, unique: string): SentRequest {
  const has = (k: Fault['kind']) => input.faults.some((f) => f.kind === k);
  const find = <K extends Fault['kind']>(k: K) => input.faults.find((f) => f.kind === k) as Extract<Fault, { kind: K }> | undefined;
  const real = deps.tokenClient.credentials(input.region === 'eu' ? 'euClient' : input.grant === 'client_credentials' ? 'usClient' : 'usPasswordClient');
  const client = has('client-unknown') ? { clientId: `fuzz-client-${unique}`, clientSecret: `fuzz-secret-${unique}` } : real;
  const pairs: [string, string, boolean?][] = []; // [name, value, written with %XX for every byte]

  const unsupported = find('grant-type-unsupported');
  if (!has('grant-type-absent')) {
    const value = has('grant-type-empty') ? '' : unsupported ? unsupported.value : input.grant;
    pairs.push(['grant_type', value]);
    if (find('repeated')?.field === 'grant_type') pairs.push(['grant_type', value]);
  }
  const headers: HeaderList = [];
  if (input.noise.basic && !has('client-credentials-absent')) {
    headers.push(['authorization', deps.rawHttp.basic(client.clientId, client.clientSecret)]);
    if (has('basic-and-form-secret')) pairs.push(['client_secret', client.clientSecret]);
  } else if (!has('client-credentials-absent')) {
    pairs.push(['client_id', client.clientId, input.noise.escapeClientId]);
    if (find('repeated')?.field === 'client_id') pairs.push(['client_id', client.clientId]);
    if (!has('client-secret-absent')) pairs.push(['client_secret', client.clientSecret]);
  }
  if (input.grant === 'password' && !unsupported) {
    const user = deps.tokenClient.userCredentials('user');
    const unknown = find('user-unknown');
    const noTenant = find('username-without-tenant');
    // A failing username is made up and unique: no real user's failure count moves.
    const username = unknown ? `fuzz-${unknown.tenant}\\${unknown.name}~${unique}` : noTenant ? `${noTenant.name}~${unique}` : has('password-absent') ? `fuzz\\nobody~${unique}` : user.username;
    const password = unknown ? unknown.password : noTenant ? `fuzz-${unique}` : user.password;
    if (!has('username-absent')) pairs.push(['username', username]);
    if (!has('password-absent')) pairs.push(['password', has('username-absent') ? `fuzz-${unique}` : password]);
  }
  if (input.grant === 'refresh_token' && !unsupported && !has('refresh-token-absent')) {
    pairs.push(['refresh_token', input.refreshToken]);
    if (find('repeated')?.field === 'refresh_token') pairs.push(['refresh_token', input.refreshToken]);
  }
  for (const [k, v] of input.noise.extra) pairs.push([k, v]);

  let form = pairs.map(([k, v, all]) => `${enc(k)}=${all ? escapeAll(v) : enc(v)}`).join('&');
  if (has('malformed-escape')) form += `&${malformedEscapeParameter}`;
  const utf8 = find('invalid-utf8');
  let body: string | Buffer = form;
  if (utf8 && !utf8.raw) body = `${form}&x_fuzz=%FF%FEabc%C3`;
  if (utf8?.raw) body = Buffer.concat([Buffer.from(`${form}&x_fuzz=`), Buffer.from([0xff, 0xfe, 0xc3])]);

  const url = deps.rawHttp.tokenUrl(input.region);
  const nonForm = find('non-form-body');
  const method = find('method')?.method ?? 'POST';
  headers.unshift(['accept', 'application/json']);
  if (nonForm) {
    if (nonForm.contentType) headers.push(['content-type', nonForm.contentType]);
    body = nonForm.contentType === 'application/json' ? JSON.stringify(Object.fromEntries(pairs.map(([k, v]) => [k, v]))) : form;
  } else {
    headers.push(['content-type', `application/x-www-form-urlencoded${input.noise.charset ? ';charset=UTF-8' : ''}`]);
  }
  if (method === 'GET') return { method, url: `${url}?${form}`, headers: headers.filter(([k]) => k !== 'content-type') };
  return { method, url, headers, body };
}

export function oracleInterpretations(interpretation: <K extends InterpretationKey>(key: K) => InterpretationValues[K]): OracleInterpretations {
  return {
    unsupportedGrantError: interpretation('unsupportedGrantError'),
    invalidClientStatus: interpretation('invalidClientStatus'),
    nonFormTokenRequest: interpretation('nonFormTokenRequest'),
    usernameWithoutTenantError: interpretation('usernameWithoutTenantError'),
    nonPostTokenRequest: interpretation('nonPostTokenRequest'),
    missingClientCredentialsError: interpretation('missingClientCredentialsError'),
    euOtherGrants: interpretation('euOtherGrants'),
    malformedFormBody: interpretation('malformedFormBody'),
  };
}
