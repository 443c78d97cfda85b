// A representative set of token-endpoint error conditions, one fault each, for the checks that
// speak of "every token-endpoint error response" (ERR-TOK-001/002/003/005/006/008, TOKEN-RESP-008).
// Each condition names itself (so a failing one is named in the assertion message) and lists the
// secret values its request carried (client_secret, password, refresh_token) for the echo check.
//
// Conditions that need a capability or a profile entry the target lacks are left out of the set
// rather than skipping the whole check; the remaining conditions still judge the target. Whether a
// body is an error condition at all is the token-input oracle's answer (token-request.oracle.ts):
// a malformed %-escape is one only where the target declares OI-30 malformedFormBody: invalid_request.
import { randomUUID } from 'node:crypto';
import type { RawHttp, Region, Target, TokenClient, TokenResponse } from '../../fixtures/index.ts';
import { expect, test } from '../../fixtures/index.ts';
import type { Redactor } from '../../harness/redaction/redact.ts';
import { asTokenResponse, clientCredentialsKind, formContentType } from '../token-requests/raw-response.helper.ts';
import { malformedEscapeParameter, oracleInterpretations } from '../properties/token-request.arbitrary.ts';
import { expectedAnswer } from '../properties/token-request.oracle.ts';

export interface ErrorCondition {
  /** What is wrong with the request, e.g. "grant_type missing". */
  label: string;
  /** Secret values the request carried: none of them may come back in the answer (ERR-TOK-008). */
  carried: Carried[];
  send(): Promise<TokenResponse>;
}

export interface Carried {
  what: 'client_secret' | 'password' | 'refresh_token';
  value: string;
}

export interface ConditionDeps {
  tokenClient: TokenClient;
  rawHttp: RawHttp;
  target: Target;
  redactor: Redactor;
}

/** A value nobody issued: for wrong secrets, unknown clients and unknown refresh tokens. */
const made = (what: string) => `${what}-${randomUUID()}`;

export function errorConditions(region: Region, { tokenClient, rawHttp, target, redactor }: ConditionDeps): ErrorCondition[] {
  const ccClientName = region === 'eu' ? 'euClient' : 'usClient';
  const client = tokenClient.credentials(ccClientName);
  const has = (capability: Parameters<Target['gap']>[0]) => target.gap(capability) === undefined;
  const ccKind = clientCredentialsKind(region);
  const wrongSecret = made('wrong-secret');

  const conditions: ErrorCondition[] = [
    {
      label: 'grant_type missing', carried: [{ what: 'client_secret', value: client.clientSecret }],
      send: () => tokenClient.clientCredentials({ region, omit: ['grant_type'] }),
    },
    {
      label: 'grant_type empty', carried: [{ what: 'client_secret', value: client.clientSecret }],
      send: () => tokenClient.clientCredentials({ region, override: { grant_type: '' } }),
    },
    {
      label: 'grant_type unsupported (urn:example:unknown)', carried: [{ what: 'client_secret', value: client.clientSecret }],
      send: () => tokenClient.clientCredentials({ region, override: { grant_type: 'urn:example:unknown' } }),
    },
    {
      label: 'grant_type repeated', carried: [{ what: 'client_secret', value: client.clientSecret }],
      send: async () => asTokenResponse(await rawHttp.send({
        url: rawHttp.tokenUrl(region),
        headers: [['content-type', formContentType], ['accept', 'application/json']],
        body: rawHttp.form([['grant_type', 'client_credentials'], ['grant_type', 'client_credentials'], ['client_id', client.clientId], ['client_secret', client.clientSecret]]),
      }), redactor, ccKind),
    },
    {
      label: 'client_secret wrong (form fields)', carried: [{ what: 'client_secret', value: wrongSecret }],
      send: () => tokenClient.clientCredentials({ region, client: { clientId: client.clientId, clientSecret: wrongSecret } }),
    },
    {
      label: 'client_id unknown', carried: [{ what: 'client_secret', value: wrongSecret }],
      send: () => tokenClient.clientCredentials({ region, client: { clientId: made('unknown-client'), clientSecret: wrongSecret } }),
    },
    {
      label: 'client_id and client_secret missing', carried: [],
      send: () => tokenClient.post(region, [['grant_type', 'client_credentials']], { auth: 'none', kind: ccKind }),
    },
    {
      label: 'client_secret missing', carried: [],
      send: () => tokenClient.post(region, [['grant_type', 'client_credentials'], ['client_id', client.clientId]], { auth: 'none', kind: ccKind }),
    },
  ];

  // The same request as the property's `malformed-escape` input, judged by the same oracle.
  const oi = oracleInterpretations((key) => target.interpretation(key));
  const malformed = expectedAnswer({ region, grant: 'client_credentials', refreshToken: '', faults: [{ kind: 'malformed-escape' }], noise: { extra: [], escapeClientId: false, charset: false, basic: false } }, oi);
  if (malformed.kind === 'token-error') {
    conditions.push({
      label: 'malformed percent-escape in the form body', carried: [{ what: 'client_secret', value: client.clientSecret }],
      send: async () => asTokenResponse(await rawHttp.send({
        url: rawHttp.tokenUrl(region),
        headers: [['content-type', formContentType], ['accept', 'application/json']],
        body: `${rawHttp.form([['grant_type', 'client_credentials'], ['client_id', client.clientId], ['client_secret', client.clientSecret]])}&${malformedEscapeParameter}`,
      }), redactor, ccKind),
    });
  }

  if (has('http-basic')) {
    conditions.push({
      label: 'client_secret wrong (HTTP Basic)', carried: [{ what: 'client_secret', value: wrongSecret }],
      send: () => tokenClient.clientCredentials({ region, auth: 'basic', client: { clientId: client.clientId, clientSecret: wrongSecret } }),
    });
  }

  const user = has('user:user') ? tokenClient.userCredentials('user') : undefined;
  if (region === 'us' && has('client:usPasswordClient')) {
    const pwClient = tokenClient.credentials('usPasswordClient');
    const unknownRefreshToken = made('unknown-refresh-token');
    conditions.push(
      {
        label: 'refresh_token unknown', carried: [{ what: 'client_secret', value: pwClient.clientSecret }, { what: 'refresh_token', value: unknownRefreshToken }],
        send: () => tokenClient.refresh(unknownRefreshToken, { region }),
      },
      {
        label: 'refresh_token missing', carried: [{ what: 'client_secret', value: pwClient.clientSecret }],
        send: () => tokenClient.refresh('', { region, omit: ['refresh_token'] }),
      },
    );
    if (user) {
      conditions.push(
        {
          label: 'password grant without username', carried: [{ what: 'client_secret', value: pwClient.clientSecret }, { what: 'password', value: user.password }],
          send: () => tokenClient.password({ region, omit: ['username'] }),
        },
        {
          label: 'password grant without password', carried: [{ what: 'client_secret', value: pwClient.clientSecret }],
          send: () => tokenClient.password({ region, omit: ['password'] }),
        },
      );
    }
  }
  if (region === 'us' && user && has('client:usCcOnlyClient')) {
    const ccOnly = tokenClient.credentials('usCcOnlyClient');
    conditions.push({
      label: 'password grant by a client allowed client_credentials only', carried: [{ what: 'client_secret', value: ccOnly.clientSecret }, { what: 'password', value: user.password }],
      send: () => tokenClient.password({ region, client: 'usCcOnlyClient' }),
    });
  }
  if (region === 'eu' && user && target.interpretation('euOtherGrants') !== 'supported') {
    conditions.push({
      label: 'password grant at the EU endpoint', carried: [{ what: 'client_secret', value: client.clientSecret }, { what: 'password', value: user.password }],
      send: () => tokenClient.password({ region, client: ccClientName }),
    });
  }
  return conditions;
}

export interface ErrorSample {
  label: string;
  carried: Carried[];
  res: TokenResponse;
}

/**
 * Sends every condition of the region and returns the error responses. A condition the target
 * answers with a 2xx is not an error response: it is left out of the sample (the requirement about
 * that condition judges it) and named in a `note` annotation. At least one error response is a
 * precondition (`setup:`).
 */
export async function sampleErrorResponses(region: Region, deps: ConditionDeps): Promise<ErrorSample[]> {
  const errors: ErrorSample[] = [];
  const answered: string[] = [];
  for (const c of errorConditions(region, deps)) {
    const res = await c.send();
    if (res.status >= 200 && res.status < 300) answered.push(`${c.label}: ${res.describe()}`);
    else errors.push({ label: c.label, carried: c.carried, res });
  }
  if (answered.length > 0) {
    test.info().annotations.push({ type: 'note', description: `answered with 2xx, so left out of the error sample: ${answered.join(' | ')}` });
  }
  expect(errors.length, `setup: the error conditions at ${region.toUpperCase()} produce error responses`).toBeGreaterThan(0);
  return errors;
}
