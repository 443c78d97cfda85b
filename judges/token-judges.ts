// Judges of one token-endpoint exchange (spec §2.2, §2.3, §4, §7.1; RFC 6749 §5): requests that
// must issue nothing or be refused whatever the target, the success response (status, media type,
// caching headers, members, what its grant returns), and the error response. One judge per
// requirement; a response that deviates in one field breaks that field's requirement only (a
// lowercase token_type is TOKEN-RESP-003's, not the grant's).
import type { Classified } from './classify.ts';
import { headerOf, mediaTypeOf } from './exchange.ts';
import { isDigest, shapeOf } from './digest-shape.ts';
import { lifetimeClaimsOf, statedLifetime } from './jwt-lifetime.ts';
import { seen, type Judge, type Seen } from './judge.ts';
import { tokenErrorCodes } from '../schemas/src/token-error.ts';
import { directives, knownGrants, tokenFacts, type TokenFacts } from './token-facts.ts';
import type { JudgeChoices } from './choices.ts';

type TokenRule = (f: TokenFacts, c: Classified, choices: JudgeChoices) => Seen | undefined;

/** A judge of token-endpoint exchanges (only those exercise it). */
const onToken = (requirement: string, rule: TokenRule, extra: Pick<Judge, 'uses'> = {}): Judge => ({
  requirement,
  needs: 'exchange',
  ...extra,
  judge: ({ c }, choices) => {
    const f = tokenFacts(c);
    return f ? rule(f, c, choices) : undefined;
  },
});

/** A rule on an issued token (a successful form request). */
const onSuccess = (requirement: string, rule: TokenRule, extra: Pick<Judge, 'uses'> = {}): Judge =>
  onToken(requirement, (f, c, choices) => (f.issued ? rule(f, c, choices) : undefined), extra);

/** A rule on a refused form request. */
const onError = (requirement: string, rule: TokenRule, extra: Pick<Judge, 'uses'> = {}): Judge =>
  onToken(requirement, (f, c, choices) => (f.refused ? rule(f, c, choices) : undefined), extra);

const hasText = (v: unknown): boolean => typeof v === 'string' && v !== '';
const isPost = (c: Classified) => c.exchange.request.method === 'POST';
const isRefusal = (f: TokenFacts) => f.status >= 400 && f.status < 500;
/** A token of either kind in the body: what a request that must issue nothing must not get. */
const issuesToken = (f: TokenFacts) => f.carriesToken || typeof f.body?.refresh_token === 'string';
const tokenWording = (f: TokenFacts) => (f.carriesToken ? 'an access_token' : 'a refresh_token');
/**
 * Refused with 400 invalid_request, or — where the request also names a grant the spec does not know —
 * with the unsupported-grant error (either value of OI-1): RFC 6749 sets no order among a request's
 * faults, so the refusal of either is right.
 */
const refusedAsMalformed = (f: TokenFacts, choices: JudgeChoices) =>
  f.refused400('invalid_request') ||
  (f.unknownGrant &&
    (f.refused400('unsupported_grant_type') || f.refused400(choices.interpretation('unsupportedGrantError'))));
const isJson = (c: Classified) =>
  mediaTypeOf(headerOf(c.exchange.request.headers, 'content-type')) === 'application/json';

export const tokenRequestJudges: Judge[] = [
  // No access_token member, nor the name anywhere in the body: a body that speaks of one was written by a token endpoint.
  onToken('VER-004', (f, c) =>
    c.kind === 'token-other-version'
      ? seen(
          !f.carriesToken && !(c.exchange.response!.body.text ?? '').includes('access_token'),
          () => `a token request to ${c.url?.pathname ?? '?'} (another version's path) issued a token (${f.answer})`,
        )
      : undefined,
  ),
  // Any method but POST issues nothing; a GET is refused (4xx) whatever the declared way (OI-12:
  // 405, 400 invalid_request or 404): that way is the check's choice-dependent part.
  onToken('TOKEN-REQ-001', (f, c) => {
    if (c.kind === 'token-other-version' || isPost(c)) return undefined;
    const method = c.exchange.request.method;
    return seen(!issuesToken(f) && (method !== 'GET' || isRefusal(f)), () =>
      issuesToken(f)
        ? `a ${method} to the token endpoint issued ${tokenWording(f)}`
        : `a GET to the token endpoint was answered ${f.answer}, not refused (4xx)`,
    );
  }),
  // A JSON body issues nothing and is refused (4xx) whatever the declared way (OI-5: 400
  // invalid_request or 415 with 000-1005): that way is the check's choice-dependent part.
  onToken('TOKEN-REQ-003', (f, c) =>
    c.kind !== 'token-other-version' && isPost(c) && isJson(c)
      ? seen(!issuesToken(f) && isRefusal(f), () =>
          issuesToken(f)
            ? `a token request with a JSON body issued ${tokenWording(f)}`
            : `a token request with a JSON body was answered ${f.answer}, not refused (4xx)`,
        )
      : undefined,
  ),
  onToken('TOKEN-REQ-008', (f, c) =>
    f.formRequest && c.url?.searchParams.has('client_secret') && !c.auth.formSecret && !c.auth.basic
      ? seen(
          !issuesToken(f),
          () => `a token request with client_secret only in the URL query string issued ${tokenWording(f)}`,
        )
      : undefined,
  ),
  onToken('TOKEN-REQ-009', (f) =>
    f.shapeJudged && f.count('grant_type') === 0
      ? seen(
          f.refused400('invalid_request'),
          () => `a token request without grant_type was answered ${f.answer}, not 400 invalid_request`,
        )
      : undefined,
  ),
  onToken('TOKEN-REQ-006', (f, c) =>
    f.shapeJudged && f.count('grant_type') > 0 && c.grant === ''
      ? seen(
          f.refused400('invalid_request'),
          () => `a token request with an empty grant_type was answered ${f.answer}, not 400 invalid_request`,
        )
      : undefined,
  ),
  onToken('TOKEN-REQ-005', (f, _c, choices) =>
    f.shapeJudged && f.repeated.length > 0
      ? seen(
          refusedAsMalformed(f, choices),
          () => `a token request repeating ${f.repeated.join(', ')} was answered ${f.answer}, not 400 invalid_request`,
        )
      : undefined,
  ),
  onToken('AUTH-CLI-006', (f, c, choices) =>
    f.shapeJudged && c.auth.basic && c.auth.formSecret
      ? seen(
          refusedAsMalformed(f, choices),
          () =>
            `a token request authenticating by HTTP Basic and by a client_secret field was answered ${f.answer}, not 400 invalid_request`,
        )
      : undefined,
  ),
  // The grant's own rules are judged on requests that are otherwise well formed.
  onToken('GRANT-PW-004', (f, c) =>
    f.shapeJudged &&
    f.wellFormed &&
    c.grant === 'password' &&
    c.kind === 'token-us' &&
    (f.count('username') === 0 || f.count('password') === 0)
      ? seen(
          f.refused400('invalid_request'),
          () =>
            `a password request without ${f.count('username') === 0 ? 'username' : 'password'} was answered ${f.answer}, not 400 invalid_request`,
        )
      : undefined,
  ),
  onToken('GRANT-RT-007', (f, c) =>
    f.shapeJudged &&
    f.wellFormed &&
    c.grant === 'refresh_token' &&
    c.kind === 'token-us' &&
    f.count('refresh_token') === 0
      ? seen(
          f.refused400('invalid_request'),
          () => `a refresh_token request without refresh_token was answered ${f.answer}, not 400 invalid_request`,
        )
      : undefined,
  ),
  onToken(
    'ERR-TOK-004',
    (f, c, choices) => {
      if (!f.shapeJudged || !f.wellFormed || c.grant === undefined || c.grant === '' || knownGrants.includes(c.grant))
        return undefined;
      const expected = choices.interpretation('unsupportedGrantError');
      return seen(
        f.refused400(expected),
        () => `a token request with grant_type ${c.grant ?? ''} was answered ${f.answer}, not 400 ${expected}`,
      );
    },
    { uses: ['unsupportedGrantError'] },
  ),
  // HTTP Basic names one client, the body's client_id another: no token for either, and the declared
  // error (OI-32) — invalid_request with 400, or invalid_client with 401 (Basic was used) or the
  // status declared for invalid_client. Where the declared error is invalid_request, an
  // invalid_client says the Basic credentials themselves failed (AUTH-CLI-013's variant), which
  // comes first: that exchange does not exercise the mismatch.
  onToken(
    'AUTH-CLI-012',
    (f, c, choices) => {
      if (!f.formRequest || !c.auth.basic || c.bodyClientId === undefined || c.bodyClientId === c.clientId)
        return undefined;
      const declared = choices.interpretation('clientIdMismatchError');
      if (issuesToken(f))
        return seen(false, () => `HTTP Basic as one client with a body client_id of another issued ${tokenWording(f)}`);
      if (declared !== 'invalid_client' && f.errorCode === 'invalid_client') return undefined;
      const statuses = declared === 'invalid_client' ? [401, choices.interpretation('invalidClientStatus')] : [400];
      return seen(
        f.errorCode === declared && statuses.includes(f.status),
        () =>
          `HTTP Basic as one client with a body client_id of another was answered ${f.answer}, not ${[...new Set(statuses)].join(' or ')} ${declared}`,
      );
    },
    { uses: ['clientIdMismatchError', 'invalidClientStatus'] },
  ),
];

const noRefreshToken = (body: Record<string, unknown>) => !('refresh_token' in body);
// Issued is 2xx with an access_token: the exact status is TOKEN-RESP-001's field.
const issuedWithToken = (f: TokenFacts) => hasText(f.body?.access_token);

export const tokenSuccessJudges: Judge[] = [
  onSuccess('TOKEN-RESP-001', (f, c) => {
    const type = mediaTypeOf(headerOf(c.exchange.response!.headers, 'content-type'));
    return seen(
      f.status === 200 && type === 'application/json',
      () => `a token response was ${f.status} ${type ?? 'without Content-Type'}, not 200 application/json`,
    );
  }),
  onSuccess('TOKEN-RESP-002', (f) => {
    const token = f.body!.access_token as string;
    const shape = shapeOf(token);
    return seen(shape.length > 0 && shape.visibleAscii, () =>
      shape.length === 0
        ? 'the access_token is empty'
        : `the access_token is not visible ASCII${outsideVisibleAscii(token)}`,
    );
  }),
  onSuccess('TOKEN-RESP-003', (f) =>
    seen(f.body!.token_type === 'Bearer', () => `token_type is ${JSON.stringify(f.body!.token_type)}, not "Bearer"`),
  ),
  // An integer written as one: 3600.0 and 3.6e3 parse to 3600 but are not JSON integers.
  onSuccess('TOKEN-RESP-004', (f, c) => {
    const expiresIn = f.body!.expires_in;
    const literal = integerLiteral.test(c.exchange.response!.body.text ?? '');
    return seen(Number.isInteger(expiresIn) && (expiresIn as number) > 0 && literal, () =>
      literal || !Number.isInteger(expiresIn)
        ? `expires_in is ${JSON.stringify(expiresIn)}, not an integer above 0`
        : 'expires_in is not written as a JSON integer',
    );
  }),
  onSuccess('TOKEN-RESP-005', (_f, c) => {
    const headers = c.exchange.response!.headers;
    return seen(
      directives(headers, 'cache-control').includes('no-store'),
      () => `Cache-Control is ${quoted(headerOf(headers, 'cache-control'))}, without the no-store directive`,
    );
  }),
  // RFC 7234 §5.4: Pragma is a list of directives; a Pragma carrying no-cache among others carries no-cache.
  onSuccess('TOKEN-RESP-006', (_f, c) => {
    const headers = c.exchange.response!.headers;
    return seen(
      directives(headers, 'pragma').includes('no-cache'),
      () => `Pragma is ${quoted(headerOf(headers, 'pragma'))}, without the no-cache directive`,
    );
  }),
  // What the grant returns, its members only: the format of each member is its own requirement's.
  onSuccess('GRANT-CC-001', (f, c) =>
    c.grant === 'client_credentials' && c.kind === 'token-us'
      ? seen(
          issuedWithToken(f) && noRefreshToken(f.body!) && !('scope' in f.body!),
          () =>
            `a US client_credentials response was ${f.answer} with ${members(f.body!)}: not a 200 without refresh_token or scope`,
        )
      : undefined,
  ),
  onSuccess('GRANT-CC-002', (f, c) =>
    c.grant === 'client_credentials' && c.kind === 'token-eu'
      ? seen(
          issuedWithToken(f) && f.body!.scope === 'empty_default' && noRefreshToken(f.body!),
          () =>
            `an EU client_credentials response was ${f.answer} with scope ${JSON.stringify(f.body!.scope)} and ${members(f.body!)}: not a 200 with scope empty_default and no refresh_token`,
        )
      : undefined,
  ),
  onSuccess('GRANT-PW-001', (f, c) =>
    c.grant === 'password' && c.kind === 'token-us'
      ? seen(
          issuedWithToken(f) && hasText(f.body!.refresh_token) && hasText(f.body!.scope),
          () =>
            `a US password response was ${f.answer} with ${members(f.body!)}: not a 200 with refresh_token and scope`,
        )
      : undefined,
  ),
  onSuccess('GRANT-RT-001', (f, c) =>
    c.grant === 'refresh_token' && c.kind === 'token-us'
      ? seen(
          issuedWithToken(f) && hasText(f.body!.refresh_token) && hasText(f.body!.scope),
          () =>
            `a US refresh response was ${f.answer} with ${members(f.body!)}: not a 200 with refresh_token and scope`,
        )
      : undefined,
  ),
  // A JWT access token's exp − iat (or − the response's Date) is the expires_in the response states,
  // within the declared clock skew. An opaque token, or one whose issuance nothing states, does not
  // exercise it; a non-integer expires_in is TOKEN-RESP-004's.
  onSuccess('TOKEN-RESP-010', (f, c, choices) => {
    const token = f.body!.access_token;
    if (typeof token !== 'string') return undefined;
    const res = c.exchange.response!;
    const claims = isDigest(token) ? res.accessTokenClaims : lifetimeClaimsOf(token);
    const stated = statedLifetime(claims, headerOf(res.headers, 'date'));
    if (stated.kind === 'not-jwt' || stated.kind === 'no-start') return undefined;
    if (stated.kind === 'no-exp') return seen(false, () => 'the JWT access token carries no numeric exp');
    const expiresIn = f.body!.expires_in;
    if (typeof expiresIn !== 'number' || !Number.isInteger(expiresIn)) return undefined;
    const skew = choices.skewMs / 1000;
    return seen(
      Math.abs(stated.seconds - expiresIn) <= skew,
      () =>
        `exp − ${stated.from} of the JWT access token is ${stated.seconds} s but expires_in is ${expiresIn} s (declared clock skew ${skew} s)`,
    );
  }),
  onSuccess('LIMIT-AT-LIFETIME-002', (f, c) => {
    if (c.grant !== 'client_credentials') return undefined;
    const expiresIn = f.body!.expires_in;
    return seen(
      typeof expiresIn !== 'number' || expiresIn <= 3600,
      () => `a client_credentials expires_in of ${String(expiresIn)} s is above 3600`,
    );
  }),
  onSuccess(
    'GRANT-PW-002',
    (f, c, choices) => {
      const scope = f.body!.scope;
      if (c.grant !== 'password' || c.kind !== 'token-us') return undefined;
      const declared = new Set(choices.interpretation('passwordScopes'));
      const got = new Set(typeof scope === 'string' ? scope.split(' ').filter(Boolean) : []);
      return seen(got.size === declared.size && [...got].every((s) => declared.has(s)), () =>
        typeof scope === 'string'
          ? `the password scope "${scope}" is not the declared set {${[...declared].join(' ')}}`
          : `a password response without a scope, not the declared set {${[...declared].join(' ')}}`,
      );
    },
    { uses: ['passwordScopes'] },
  ),
];

export const tokenErrorJudges: Judge[] = [
  onError('ERR-TOK-001', (f, c) => {
    const type = mediaTypeOf(headerOf(c.exchange.response!.headers, 'content-type'));
    return seen(
      type === 'application/json' &&
        f.errorCode !== undefined &&
        (tokenErrorCodes as readonly string[]).includes(f.errorCode),
      () => `a token error was ${type ?? 'without Content-Type'} with error ${JSON.stringify(f.body?.error)}`,
    );
  }),
  // 429 is throttling (LIMIT-RATE-003 allows it), not an OAuth error status; a 5xx is the server
  // failing (the no-5xx rules), whatever code its body names (ERR-TOK-001 judges that code).
  onError('ERR-TOK-002', (f) =>
    f.errorCode !== undefined && f.errorCode !== 'invalid_client' && f.status !== 429 && f.status < 500
      ? seen(f.status === 400, () => `a token error ${f.errorCode ?? ''} had status ${f.status}, not 400`)
      : undefined,
  ),
  onError('ERR-TOK-003', (f) => {
    if (!f.body) return undefined;
    const description = f.body.error_description;
    const uri = f.body.error_uri;
    const descriptionOk =
      description === undefined ||
      (typeof description === 'string' && /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(description));
    // RFC 6749 §5.2: error_uri is %x21 / %x23-5B / %x5D-7E; absolute: it starts with its scheme (RFC 3986 §4.3).
    const uriOk =
      uri === undefined ||
      (typeof uri === 'string' &&
        /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(uri) &&
        /^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri) &&
        URL.canParse(uri));
    return seen(descriptionOk && uriOk, () =>
      descriptionOk
        ? `error_uri ${JSON.stringify(uri)} is not an absolute URI`
        : `error_description ${JSON.stringify(description)} has characters outside %x20-21 / %x23-5B / %x5D-7E`,
    );
  }),
  onError('ERR-TOK-005', (f) =>
    f.body
      ? seen(
          !('access_token' in f.body) && !('refresh_token' in f.body),
          () => `a token error response carries ${'access_token' in f.body! ? 'an access_token' : 'a refresh_token'}`,
        )
      : undefined,
  ),
  onError('ERR-TOK-006', (f) =>
    f.body
      ? seen(
          typeof f.body.error_description === 'string' && f.body.error_description.trim() !== '',
          () => `the ${f.errorCode ?? ''} error has no error_description`,
        )
      : undefined,
  ),
  // The secrets the request carried (form fields, the Basic password), as sent, form-encoded,
  // URI-encoded or JSON-escaped, anywhere in the answer. In recorded traffic an echoed secret was
  // digested in the response too: the request's digest shows up in it.
  onError('ERR-TOK-008', (_f, c) => {
    const carried = carriedSecrets(c);
    if (carried.length === 0) return undefined;
    const res = c.exchange.response!;
    const answer = [res.body.text ?? '', ...res.headers.map(([, v]) => v)].join('\n');
    const echoed = carried.filter(([, v]) => echoForms(v).some((form) => answer.includes(form))).map(([k]) => k);
    return seen(
      echoed.length === 0,
      () => `the error response echoes the request's ${[...new Set(echoed)].join(', ')}`,
    );
  }),
  // Every error answer of the token endpoint, throttling and server errors too.
  onToken('TOKEN-RESP-008', (f, c) => {
    if (!f.formRequest || (f.status >= 200 && f.status < 300)) return undefined;
    const headers = c.exchange.response!.headers;
    const cacheControl = headerOf(headers, 'cache-control');
    return seen(
      directives(headers, 'cache-control').includes('no-store'),
      () =>
        `a token error (${f.answer}) carries ${cacheControl ? `Cache-Control "${cacheControl}"` : 'no Cache-Control'}, without no-store`,
    );
  }),
  // A Basic challenge among the challenges the header lists (RFC 9110 §11.6.1), not only the first.
  onError('AUTH-CLI-003', (f, c) => {
    if (f.errorCode !== 'invalid_client' || !c.auth.basic || c.auth.formSecret) return undefined;
    const challenge = headerOf(c.exchange.response!.headers, 'www-authenticate');
    return seen(
      f.status === 401 && /(^|,)\s*basic(\s|,|$)/i.test(challenge ?? ''),
      () =>
        `invalid_client for HTTP Basic credentials was ${f.status}${challenge ? ` with WWW-Authenticate "${challenge}"` : ' without WWW-Authenticate'}, not 401 with a Basic challenge`,
    );
  }),
  onError(
    'AUTH-CLI-004',
    (f, c, choices) => {
      if (f.errorCode !== 'invalid_client' || !c.auth.formSecret || c.auth.basic) return undefined;
      const challenge = headerOf(c.exchange.response!.headers, 'www-authenticate');
      const declared = choices.interpretation('invalidClientStatus');
      return seen(f.status === declared && (f.status !== 401 || challenge !== undefined), () =>
        f.status !== declared
          ? `invalid_client for form credentials had status ${f.status}, not the declared ${declared}`
          : 'a 401 invalid_client has no WWW-Authenticate header',
      );
    },
    { uses: ['invalidClientStatus'] },
  ),
];

/** expires_in written as a JSON integer literal (not 3600.0, not 3.6e3, not "3600"). */
const integerLiteral = /"expires_in"\s*:\s*-?(0|[1-9]\d*)\s*[,}]/;

/** The code points of a token outside %x21-7E (the token itself is never shown); nothing for a digest. */
function outsideVisibleAscii(token: string): string {
  if (isDigest(token)) return '';
  const bad = [...new Set([...token].filter((ch) => !/^[\x21-\x7e]$/.test(ch)))].map(
    (ch) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`,
  );
  return ` (characters outside %x21-7E: ${bad.join(' ')})`;
}

/** The client_secret, password and refresh_token fields of a token request, and the HTTP Basic password. */
function carriedSecrets(c: Classified): [string, string][] {
  const fields = (c.form ?? []).filter(
    ([k, v]) => ['client_secret', 'password', 'refresh_token'].includes(k) && v !== '',
  );
  const authz = headerOf(c.exchange.request.headers, 'authorization');
  const basic = authz !== undefined ? /^\s*basic\s+(\S+)\s*$/i.exec(authz) : null;
  if (!basic) return fields;
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const secret = colon >= 0 ? formDecoded(decoded.slice(colon + 1)) : '';
  return secret !== '' ? [...fields, ['client_secret', secret]] : fields;
}

/** A value as sent, form-encoded, URI-encoded and JSON-escaped: the ways an answer may echo it. */
const echoForms = (value: string): string[] => [
  ...new Set([
    value,
    new URLSearchParams({ v: value }).toString().slice(2),
    encodeURIComponent(value),
    JSON.stringify(value).slice(1, -1),
  ]),
];

function formDecoded(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

const quoted = (value: string | undefined) => (value === undefined ? 'absent' : `"${value}"`);
const members = (body: Record<string, unknown>) => `members {${Object.keys(body).join(', ')}}`;
