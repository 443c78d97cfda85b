// Judges of one token-endpoint exchange (spec §2.2, §2.3, §4, §7.1; RFC 6749 §5): the success
// response (status, media type, caching headers, members, the schema of its grant and region), the
// error response, and requests that must be refused whatever the target (no grant_type, a repeated
// parameter, credentials in the query string, two client authentications).
import { validate, type SchemaId } from '../../schemas/index.ts';
import type { AuditContext } from './audit-context.ts';
import type { Classified } from './classify.ts';
import { headerOf, jsonObjectOf, mediaTypeOf, refOf } from './exchange.ts';
import { isDigest, shapeOf } from './secret-digest.ts';

/** The requirements these judges can break (the rest of the catalogue reads UNOBSERVED at most). */
export const tokenJudged = [
  'TOKEN-RESP-001',
  'TOKEN-RESP-002',
  'TOKEN-RESP-003',
  'TOKEN-RESP-004',
  'TOKEN-RESP-005',
  'TOKEN-RESP-006',
  'TOKEN-RESP-008',
  'GRANT-CC-001',
  'GRANT-CC-002',
  'GRANT-PW-001',
  'GRANT-PW-002',
  'GRANT-RT-001',
  'LIMIT-AT-LIFETIME-002',
  'ERR-TOK-001',
  'ERR-TOK-002',
  'ERR-TOK-003',
  'ERR-TOK-005',
  'ERR-TOK-006',
  'ERR-TOK-008',
  'AUTH-CLI-003',
  'AUTH-CLI-004',
  'TOKEN-REQ-001',
  'TOKEN-REQ-003',
  'TOKEN-REQ-005',
  'TOKEN-REQ-006',
  'TOKEN-REQ-008',
  'TOKEN-REQ-009',
  'GRANT-PW-004',
  'GRANT-RT-007',
  'AUTH-CLI-006',
  'ERR-TOK-004',
  'VER-004',
] as const;

const tokenErrorCodes = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'invalid_scope',
  'unsupported_grant_type',
];
const knownGrants = ['client_credentials', 'password', 'refresh_token'];

/** The response schema of a grant at an endpoint (the EU endpoint is given for client_credentials only). */
function responseSchema(c: Classified): { id: SchemaId; requirement: string } | undefined {
  if (c.grant === 'client_credentials')
    return c.kind === 'token-eu'
      ? { id: 'token-response-eu-client-credentials', requirement: 'GRANT-CC-002' }
      : { id: 'token-response-us-client-credentials', requirement: 'GRANT-CC-001' };
  if (c.kind !== 'token-us') return undefined;
  if (c.grant === 'password') return { id: 'token-response-password', requirement: 'GRANT-PW-001' };
  if (c.grant === 'refresh_token') return { id: 'token-response-refresh-token', requirement: 'GRANT-RT-001' };
  return undefined;
}

export function judgeTokenExchange(c: Classified, ctx: AuditContext): void {
  const res = c.exchange.response;
  if (!res) return;
  const { ledger } = ctx;
  const at = () => [refOf(c.exchange)];
  const body = jsonObjectOf(res.body);
  // A token in the body, whatever the status: what a request that must issue nothing must not get.
  const carriesToken = body !== undefined && typeof body.access_token === 'string';
  const issued = carriesToken && res.status >= 200 && res.status < 300;
  const post = c.exchange.request.method === 'POST';
  const errorCode = typeof body?.error === 'string' ? body.error : undefined;
  const refused400 = (code: string) => res.status === 400 && errorCode === code;
  // A client that failed authentication was refused before its request was read: the judges of
  // the request's shape below have nothing to say about that answer (its own judges do).
  const shapeJudged = errorCode !== 'invalid_client';
  const answer = `${res.status}${errorCode ? ` ${errorCode}` : ''}${carriesToken ? ' with an access_token' : ''}`;

  // Requests that must issue nothing, whatever the target declares.
  if (c.kind === 'token-other-version') {
    ledger.judge(
      'VER-004',
      !carriesToken,
      () => `a token request to ${c.url?.pathname ?? '?'} (another version's path) issued a token (${answer})`,
      at,
    );
    return;
  }
  if (!post) {
    ledger.judge(
      'TOKEN-REQ-001',
      !carriesToken,
      () => `a ${c.exchange.request.method} to the token endpoint issued a token`,
      at,
    );
    return;
  }
  const requestType = mediaTypeOf(headerOf(c.exchange.request.headers, 'content-type'));
  if (requestType === 'application/json') {
    ledger.judge('TOKEN-REQ-003', !carriesToken, () => 'a token request with a JSON body issued a token', at);
    return;
  }
  const query = c.url?.searchParams;
  if (query && query.has('client_secret') && !c.auth.formSecret && !c.auth.basic) {
    ledger.judge(
      'TOKEN-REQ-008',
      !carriesToken,
      () => 'a token request with client_secret only in the URL query string issued a token',
      at,
    );
  }
  const form = c.form ?? [];
  const count = (name: string) => form.filter(([k]) => k === name).length;
  if (c.form !== undefined && shapeJudged) {
    if (count('grant_type') === 0)
      ledger.judge(
        'TOKEN-REQ-009',
        refused400('invalid_request'),
        () => `a token request without grant_type was answered ${answer}, not 400 invalid_request`,
        at,
      );
    else if (c.grant === '')
      ledger.judge(
        'TOKEN-REQ-006',
        refused400('invalid_request'),
        () => `a token request with an empty grant_type was answered ${answer}, not 400 invalid_request`,
        at,
      );
    const repeated = ['grant_type', 'client_id', 'refresh_token'].filter((n) => count(n) > 1);
    if (repeated.length > 0)
      ledger.judge(
        'TOKEN-REQ-005',
        refused400('invalid_request'),
        () => `a token request repeating ${repeated.join(', ')} was answered ${answer}, not 400 invalid_request`,
        at,
      );
    if (c.auth.basic && c.auth.formSecret)
      ledger.judge(
        'AUTH-CLI-006',
        refused400('invalid_request'),
        () =>
          `a token request authenticating by HTTP Basic and by a client_secret field was answered ${answer}, not 400 invalid_request`,
        at,
      );
    // The grant's own rules are judged on requests that are otherwise well formed: one client
    // authentication carrying both id and secret, no repeated parameter (else that refusal comes first).
    const oneAuthentication = c.auth.basic
      ? !c.auth.formSecret
      : count('client_id') === 1 && count('client_secret') === 1;
    if (repeated.length === 0 && count('grant_type') === 1 && oneAuthentication) {
      if (c.grant === 'password' && c.kind === 'token-us' && (count('username') === 0 || count('password') === 0)) {
        ledger.judge(
          'GRANT-PW-004',
          refused400('invalid_request'),
          () =>
            `a password request without ${count('username') === 0 ? 'username' : 'password'} was answered ${answer}, not 400 invalid_request`,
          at,
        );
      }
      if (c.grant === 'refresh_token' && c.kind === 'token-us' && count('refresh_token') === 0) {
        ledger.judge(
          'GRANT-RT-007',
          refused400('invalid_request'),
          () => `a refresh_token request without refresh_token was answered ${answer}, not 400 invalid_request`,
          at,
        );
      }
      if (c.grant !== undefined && c.grant !== '' && !knownGrants.includes(c.grant)) {
        const expected = ctx.interpretation('unsupportedGrantError');
        ledger.judge(
          'ERR-TOK-004',
          refused400(expected),
          () => `a token request with grant_type ${c.grant} was answered ${answer}, not 400 ${expected}`,
          at,
        );
      }
    }
  }
  if (issued) judgeSuccess(c, body, ctx);
  else if (errorCode !== undefined || (res.status >= 400 && res.status < 500 && res.status !== 429))
    judgeError(c, body, ctx);
}

function judgeSuccess(c: Classified, body: Record<string, unknown>, ctx: AuditContext): void {
  const res = c.exchange.response!;
  const { ledger } = ctx;
  const at = () => [refOf(c.exchange)];
  const type = mediaTypeOf(headerOf(res.headers, 'content-type'));
  ledger.judge(
    'TOKEN-RESP-001',
    res.status === 200 && type === 'application/json',
    () => `a token response was ${res.status} ${type ?? 'without Content-Type'}, not 200 application/json`,
    at,
  );
  const token = body.access_token as string;
  const shape = shapeOf(token);
  ledger.judge(
    'TOKEN-RESP-002',
    shape.length > 0 && shape.visibleAscii,
    () => `the access_token is ${shape.length === 0 ? 'empty' : 'not visible ASCII'}`,
    at,
  );
  ledger.judge(
    'TOKEN-RESP-003',
    body.token_type === 'Bearer',
    () => `token_type is ${JSON.stringify(body.token_type)}, not "Bearer"`,
    at,
  );
  ledger.judge(
    'TOKEN-RESP-004',
    Number.isInteger(body.expires_in) && (body.expires_in as number) > 0,
    () => `expires_in is ${JSON.stringify(body.expires_in)}, not an integer above 0`,
    at,
  );
  const cacheControl = headerOf(res.headers, 'cache-control') ?? '';
  ledger.judge(
    'TOKEN-RESP-005',
    /(?:^|,)\s*no-store\s*(?:,|$)/i.test(cacheControl),
    () => `Cache-Control is ${cacheControl ? `"${cacheControl}"` : 'absent'}, without no-store`,
    at,
  );
  const pragma = headerOf(res.headers, 'pragma');
  ledger.judge(
    'TOKEN-RESP-006',
    /^\s*no-cache\s*$/i.test(pragma ?? ''),
    () => `Pragma is ${pragma ? `"${pragma}"` : 'absent'}, not no-cache`,
    at,
  );
  const schema = responseSchema(c);
  if (schema) {
    const result = validate(schema.id, body);
    ledger.judge(
      schema.requirement,
      result.valid,
      () =>
        `the ${c.grant} response at the ${c.kind === 'token-eu' ? 'EU' : 'US'} endpoint does not match schemas/${schema.id}.schema.json: ${result.valid ? '' : result.errors.slice(0, 3).join('; ')}`,
      at,
    );
  }
  if (c.grant === 'client_credentials') {
    ledger.judge(
      'LIMIT-AT-LIFETIME-002',
      typeof body.expires_in !== 'number' || body.expires_in <= 3600,
      () => `a client_credentials expires_in of ${String(body.expires_in)} s is above 3600`,
      at,
    );
  }
  if (c.grant === 'password' && c.kind === 'token-us' && typeof body.scope === 'string') {
    const declared = new Set(ctx.interpretation('passwordScopes'));
    const got = new Set(body.scope.split(' ').filter(Boolean));
    const same = got.size === declared.size && [...got].every((s) => declared.has(s));
    ledger.judge(
      'GRANT-PW-002',
      same,
      () => `the password scope "${body.scope as string}" is not the declared set {${[...declared].join(' ')}}`,
      at,
    );
  }
}

function judgeError(c: Classified, body: Record<string, unknown> | undefined, ctx: AuditContext): void {
  const res = c.exchange.response!;
  const { ledger } = ctx;
  const at = () => [refOf(c.exchange)];
  const type = mediaTypeOf(headerOf(res.headers, 'content-type'));
  const code = typeof body?.error === 'string' ? body.error : undefined;
  ledger.judge(
    'ERR-TOK-001',
    type === 'application/json' && code !== undefined && tokenErrorCodes.includes(code),
    () => `a token error was ${type ?? 'without Content-Type'} with error ${JSON.stringify(body?.error)}`,
    at,
  );
  // 429 is throttling (LIMIT-RATE-003 allows it), not an OAuth error status.
  if (code !== undefined && code !== 'invalid_client' && res.status !== 429)
    ledger.judge(
      'ERR-TOK-002',
      res.status === 400,
      () => `a token error ${code} had status ${res.status}, not 400`,
      at,
    );
  if (body) {
    const description = body.error_description;
    const uri = body.error_uri;
    const descriptionOk =
      description === undefined ||
      (typeof description === 'string' && /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(description));
    let uriOk = uri === undefined;
    if (typeof uri === 'string')
      try {
        uriOk = new URL(uri).protocol.length > 0;
      } catch {
        uriOk = false;
      }
    ledger.judge(
      'ERR-TOK-003',
      descriptionOk && uriOk,
      () =>
        descriptionOk
          ? `error_uri ${JSON.stringify(uri)} is not an absolute URI`
          : `error_description ${JSON.stringify(description)} has characters outside %x20-21 / %x23-5B / %x5D-7E`,
      at,
    );
    ledger.judge(
      'ERR-TOK-005',
      !('access_token' in body) && !('refresh_token' in body),
      () => `a token error response carries ${'access_token' in body ? 'an access_token' : 'a refresh_token'}`,
      at,
    );
    ledger.judge(
      'ERR-TOK-006',
      typeof description === 'string' && description.trim() !== '',
      () => `the ${code ?? ''} error has no error_description`,
      at,
    );
  }
  // An echoed secret was digested in the response too: the request's digest shows up in it.
  const requestSecrets = (c.form ?? [])
    .filter(([k, v]) => ['client_secret', 'password', 'refresh_token'].includes(k) && isDigest(v))
    .map(([k, v]) => [k, v] as const);
  if (requestSecrets.length > 0) {
    const echoed = requestSecrets.filter(([, v]) => (res.body.text ?? '').includes(v)).map(([k]) => k);
    ledger.judge(
      'ERR-TOK-008',
      echoed.length === 0,
      () => `the error response echoes the request's ${echoed.join(', ')} (shown as its digest)`,
      at,
    );
  }
  const cacheControl = headerOf(res.headers, 'cache-control') ?? '';
  ledger.judge(
    'TOKEN-RESP-008',
    /(?:^|,)\s*no-store\s*(?:,|$)/i.test(cacheControl),
    () =>
      `a token error carries ${cacheControl ? `Cache-Control "${cacheControl}"` : 'no Cache-Control'}, without no-store`,
    at,
  );
  if (code === 'invalid_client') {
    const challenge = headerOf(res.headers, 'www-authenticate');
    if (c.auth.basic && !c.auth.formSecret) {
      ledger.judge(
        'AUTH-CLI-003',
        res.status === 401 && /^\s*basic\b/i.test(challenge ?? ''),
        () =>
          `invalid_client for HTTP Basic credentials was ${res.status}${challenge ? ` with WWW-Authenticate "${challenge}"` : ' without WWW-Authenticate'}, not 401 with a Basic challenge`,
        at,
      );
    } else if (c.auth.formSecret && !c.auth.basic) {
      const declared = ctx.interpretation('invalidClientStatus');
      ledger.judge(
        'AUTH-CLI-004',
        res.status === declared && (res.status !== 401 || challenge !== undefined),
        () =>
          res.status !== declared
            ? `invalid_client for form credentials had status ${res.status}, not the declared ${declared}`
            : 'a 401 invalid_client has no WWW-Authenticate header',
        at,
      );
    }
  }
}
