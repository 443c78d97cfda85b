// Every judge of the audit seen failing: synthetic exchanges that break one requirement each, in an
// otherwise conformant exchange, FAIL (or WARN) that requirement and no other; the conformant
// exchange alone breaks nothing. The requirement IDs judged here are every ID the audit can break.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { gatewayErrorCodes, gatewayErrors } from '../../../schemas/gateway-error-codes.ts';
import { buildProfileSchema, type TargetProfile } from '../../../core/profile/profile.schema.ts';
import { judges } from '../../../judges/registry.ts';
import { audit } from '../audit.ts';
import { auditReport } from '../audit-report.ts';
import type { HeaderList, RecordedExchange } from '../index.ts';
import { Digester } from '../secret-digest.ts';

const dir = mkdtempSync(join(tmpdir(), 'token-conformance-judges-'));
void after(() => rmSync(dir, { recursive: true, force: true }));

const origin = 'https://svc.example';
const profile: TargetProfile = buildProfileSchema().parse({
  name: 'synthetic',
  authUrlUs: origin,
  authUrlEu: 'https://eu.svc.example',
  baseUrl: origin,
  credentials: { clients: { usCcOnlyClient: { clientId: 'cc-only', clientSecret: { env: 'UNUSED_SECRET' } } } },
  capabilities: {
    rateLimit: { spikePerSecond: 2, quotaPerWindow: 100, windowSeconds: 60 },
    clockControlUrl: `${origin}/__test/clock`,
  },
  expectations: { clockSkewSeconds: 5 },
  interpretations: {
    passwordScopes: ['email', 'openid'],
    gatewayCodes: { matching: 'exact' },
    accessTokenAfterRefresh: 'valid-until-expiry',
  },
});

let clock = Date.UTC(2026, 0, 1);
const at = (advanceMs = 1000) => new Date((clock += advanceMs)).toISOString();
const json = (status: number, body: unknown, headers: HeaderList = []) => ({
  status,
  headers: [['content-type', 'application/json'], ['strict-transport-security', 'max-age=1'], ...headers] as HeaderList,
  body: { text: JSON.stringify(body), size: 1 },
});
const tokenHeaders: HeaderList = [
  ['cache-control', 'no-store'],
  ['pragma', 'no-cache'],
];
let n = 0;
const token = (prefix: string) => `${prefix}-${++n}-abcdefghijklmnopqrstuvwxyz0123456789`;

interface TokenOptions {
  url?: string;
  method?: string;
  basic?: string;
  type?: string;
  time?: string;
  headers?: HeaderList;
}
function tok(form: string, response: ReturnType<typeof json>, o: TokenOptions = {}): RecordedExchange {
  return {
    index: 0,
    startedAt: o.time ?? at(),
    request: {
      method: o.method ?? 'POST',
      url: o.url ?? `${origin}/api/v1/auth/oauth2/token`,
      headers: [
        ['content-type', o.type ?? 'application/x-www-form-urlencoded'],
        ...(o.basic ? [['authorization', `Basic ${Buffer.from(o.basic).toString('base64')}`] as [string, string]] : []),
      ],
      body: { text: form, size: form.length },
    },
    response: { ...response, headers: [...response.headers, ...(o.headers ?? [])] },
  };
}
const cc = (id = 'client-a', body: Record<string, unknown> = {}, headers = tokenHeaders, status = 200) =>
  tok(
    `grant_type=client_credentials&client_id=${id}&client_secret=secret-of-${id}`,
    json(status, { access_token: token('at'), token_type: 'Bearer', expires_in: 3600, ...body }, headers),
  );
const pw = (id = 'client-a', body: Record<string, unknown> = {}) => {
  const rt = token('rt');
  return {
    rt,
    exchange: tok(
      `grant_type=password&client_id=${id}&client_secret=secret-of-${id}&username=t%5Cu&password=pass-word-1`,
      json(
        200,
        {
          access_token: token('at'),
          token_type: 'Bearer',
          expires_in: 604800,
          refresh_token: rt,
          scope: 'email openid',
          ...body,
        },
        tokenHeaders,
      ),
    ),
  };
};
const refresh = (rt: string, id = 'client-a', response?: ReturnType<typeof json>, time?: string) => {
  const next = token('rt');
  return {
    rt: next,
    exchange: tok(
      `grant_type=refresh_token&client_id=${id}&client_secret=secret-of-${id}&refresh_token=${rt}`,
      response ??
        json(
          200,
          {
            access_token: token('at'),
            token_type: 'Bearer',
            expires_in: 604800,
            refresh_token: next,
            scope: 'email openid',
          },
          tokenHeaders,
        ),
      { ...(time ? { time } : {}) },
    ),
  };
};
const invalidGrant = () => json(400, { error: 'invalid_grant', error_description: 'used' }, tokenHeaders);
const err = (status: number, error: string, headers: HeaderList = tokenHeaders) =>
  json(status, { error, error_description: 'why' }, headers);
const bearerOf = (e: RecordedExchange) => (JSON.parse(e.response!.body.text!) as { access_token: string }).access_token;
const gw = (
  code: string,
  status = gatewayErrors[code as keyof typeof gatewayErrors]?.status ?? 400,
  extra: HeaderList = [],
) =>
  json(
    status,
    { code, message: gatewayErrors[code as keyof typeof gatewayErrors]?.message ?? 'x' },
    code.startsWith('000-12')
      ? [['www-authenticate', code === '000-1201' ? 'Bearer realm="api"' : 'Bearer error="invalid_token"'], ...extra]
      : extra,
  );
function api(
  bearer: string | undefined,
  response: ReturnType<typeof json>,
  o: { path?: string; time?: string; accept?: string } = {},
): RecordedExchange {
  return {
    index: 0,
    startedAt: o.time ?? at(),
    request: {
      method: 'GET',
      url: `${origin}${o.path ?? '/v1/people/er/E-1'}`,
      headers: [
        ['accept', o.accept ?? 'application/json'],
        ...(bearer ? [['authorization', `Bearer ${bearer}`] as [string, string]] : []),
      ],
      body: { size: 0 },
    },
    response,
  };
}
const ok = () => json(200, { id: 'E-1' });

async function broken(exchanges: RecordedExchange[], judgedOn: TargetProfile = profile): Promise<string[]> {
  const file = join(dir, `t${++n}.jsonl`);
  writeFileSync(
    file,
    `{"format":"token-conformance-recording/1","startedAt":"2026-01-01T00:00:00.000Z","key":"test"}\n${exchanges.map((e) => JSON.stringify(e)).join('\n')}\n`,
  );
  const result = await audit([file], { profile: judgedOn, digester: new Digester(Buffer.from('k'), 'test') });
  const report = auditReport(result, {
    level: 'all',
    strict: false,
    profile: judgedOn,
    suiteVersion: 't',
    startedAt: new Date(),
    durationMs: 0,
    digestKey: 'test',
  });
  return report.requirements
    .filter((r) => r.verdict === 'FAIL' || r.verdict === 'WARN')
    .map((r) => r.id)
    .sort();
}

/** A JWS compact token with these claims (its signature is not read). */
const jwt = (claims: Record<string, unknown>) =>
  [
    { alg: 'RS256', typ: 'at+jwt' },
    { sub: 'client-a', ...claims },
  ]
    .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
    .concat('c2lnbmF0dXJlLW5vdC1yZWFk')
    .join('.');

const cases: { name: string; breaks: string[]; exchanges: () => RecordedExchange[] }[] = [
  {
    name: 'a JWT access token whose exp − iat is not the expires_in its response states',
    breaks: ['TOKEN-RESP-010'],
    exchanges: () => [cc('client-a', { access_token: jwt({ iat: 1_000, exp: 8_200 }) })],
  },
  {
    name: 'a JWT access token whose exp − iat is the expires_in its response states',
    breaks: [],
    exchanges: () => [cc('client-a', { access_token: jwt({ iat: 1_000, exp: 4_600 }) })],
  },
  {
    name: 'a JWT access token without exp',
    breaks: ['TOKEN-RESP-010'],
    exchanges: () => [cc('client-a', { access_token: jwt({ iat: 1_000 }) })],
  },
  { name: 'a token answered 201', breaks: ['TOKEN-RESP-001'], exchanges: () => [cc('a', {}, tokenHeaders, 201)] },
  {
    name: 'a token as text/plain',
    breaks: ['TOKEN-RESP-001'],
    exchanges: () => [
      tok('grant_type=client_credentials&client_id=a&client_secret=s-abcdef', {
        ...json(200, { access_token: token('at'), token_type: 'Bearer', expires_in: 3600 }, tokenHeaders),
        headers: [['content-type', 'text/plain'], ['strict-transport-security', 'max-age=1'], ...tokenHeaders],
      }),
    ],
  },
  {
    name: 'an access_token with a space',
    breaks: ['TOKEN-RESP-002'],
    exchanges: () => [cc('a', { access_token: 'has a space in it 0123456789abcdef' })],
  },
  {
    name: 'token_type bearer (a one-field deviation: not a grant requirement)',
    breaks: ['TOKEN-RESP-003'],
    exchanges: () => {
      const p = pw('client-a', { token_type: 'bearer' });
      const eu = tok(
        'grant_type=client_credentials&client_id=e&client_secret=s-abcdef',
        json(
          200,
          { access_token: token('at'), token_type: 'bearer', expires_in: 3600, scope: 'empty_default' },
          tokenHeaders,
        ),
        { url: 'https://eu.svc.example/oauth2/default/v1/token' },
      );
      const r = refresh(
        p.rt,
        'client-a',
        json(
          200,
          {
            access_token: token('at'),
            token_type: 'bearer',
            expires_in: 604800,
            refresh_token: token('rt'),
            scope: 'email openid',
          },
          tokenHeaders,
        ),
      );
      return [cc('a', { token_type: 'bearer' }), eu, p.exchange, r.exchange];
    },
  },
  {
    name: 'expires_in a string (a one-field deviation: not a grant requirement)',
    breaks: ['TOKEN-RESP-004'],
    exchanges: () => [cc('a', { expires_in: '3600' })],
  },
  {
    name: 'expires_in written 3600.0 (a number, not a JSON integer)',
    breaks: ['TOKEN-RESP-004'],
    exchanges: () => {
      const e = cc('a');
      e.response!.body.text = e.response!.body.text!.replace('"expires_in":3600', '"expires_in":3600.0');
      return [e];
    },
  },
  {
    name: 'Pragma carrying no-cache among other directives (RFC 7234 §5.4)',
    breaks: [],
    exchanges: () => [
      cc('a', {}, [
        ['cache-control', 'no-store'],
        ['pragma', 'no-cache, x'],
      ]),
    ],
  },
  {
    name: 'Pragma without the no-cache directive',
    breaks: ['TOKEN-RESP-006'],
    exchanges: () => [
      cc('a', {}, [
        ['cache-control', 'no-store'],
        ['pragma', 'x, no-cache-please'],
      ]),
    ],
  },
  {
    name: 'a used refresh token answered with a replay of its first answer (single use broken, no second token issued)',
    breaks: ['STATE-RT-USED-001'],
    exchanges: () => {
      const p = pw();
      const first = refresh(p.rt).exchange;
      const replay = refresh(p.rt).exchange;
      replay.response!.body.text = first.response!.body.text;
      return [p.exchange, first, replay];
    },
  },
  { name: 'no Cache-Control', breaks: ['TOKEN-RESP-005'], exchanges: () => [cc('a', {}, [['pragma', 'no-cache']])] },
  { name: 'no Pragma', breaks: ['TOKEN-RESP-006'], exchanges: () => [cc('a', {}, [['cache-control', 'no-store']])] },
  {
    name: 'an error without no-store',
    breaks: ['TOKEN-RESP-008'],
    exchanges: () => [
      tok(
        'grant_type=password&client_id=a&client_secret=s-abcdef&username=t%5Cu&password=wrong-pass',
        err(400, 'invalid_grant', [['pragma', 'no-cache']]),
      ),
    ],
  },
  {
    name: 'the same access_token twice',
    breaks: ['TOKEN-RESP-009'],
    exchanges: () => {
      const a = cc();
      const b = cc();
      b.response!.body.text = a.response!.body.text;
      return [a, b];
    },
  },
  {
    name: 'US client_credentials with a refresh_token',
    breaks: ['GRANT-CC-001'],
    exchanges: () => [cc('a', { refresh_token: token('rt') })],
  },
  {
    name: 'EU client_credentials without scope',
    breaks: ['GRANT-CC-002'],
    exchanges: () => [
      tok(
        'grant_type=client_credentials&client_id=e&client_secret=s-abcdef',
        json(200, { access_token: token('at'), token_type: 'Bearer', expires_in: 3600 }, tokenHeaders),
        { url: 'https://eu.svc.example/oauth2/default/v1/token' },
      ),
    ],
  },
  {
    name: 'a password response without refresh_token',
    breaks: ['GRANT-PW-001'],
    exchanges: () => {
      const p = pw();
      const body = JSON.parse(p.exchange.response!.body.text!) as Record<string, unknown>;
      delete body.refresh_token;
      p.exchange.response!.body.text = JSON.stringify(body);
      return [p.exchange];
    },
  },
  {
    name: 'a password scope not the declared set',
    breaks: ['GRANT-PW-002'],
    exchanges: () => [pw('a', { scope: 'email' }).exchange],
  },
  {
    name: 'a refresh response without refresh_token',
    breaks: ['GRANT-RT-001'],
    exchanges: () => {
      const p = pw();
      return [
        p.exchange,
        refresh(
          p.rt,
          'client-a',
          json(
            200,
            { access_token: token('at'), token_type: 'Bearer', expires_in: 604800, scope: 'email openid' },
            tokenHeaders,
          ),
        ).exchange,
      ];
    },
  },
  {
    name: 'a refresh returning the same refresh token',
    breaks: ['GRANT-RT-002'],
    exchanges: () => {
      const p = pw();
      return [
        p.exchange,
        refresh(
          p.rt,
          'client-a',
          json(
            200,
            {
              access_token: token('at'),
              token_type: 'Bearer',
              expires_in: 604800,
              refresh_token: p.rt,
              scope: 'email openid',
            },
            tokenHeaders,
          ),
        ).exchange,
      ];
    },
  },
  {
    name: 'a refresh widening nothing but returning another scope',
    breaks: ['GRANT-RT-003'],
    exchanges: () => {
      const p = pw('client-a', { scope: 'email openid' });
      return [
        p.exchange,
        refresh(
          p.rt,
          'client-a',
          json(
            200,
            {
              access_token: token('at'),
              token_type: 'Bearer',
              expires_in: 604800,
              refresh_token: token('rt'),
              scope: 'email',
            },
            tokenHeaders,
          ),
        ).exchange,
      ];
    },
  },
  {
    name: 'a refresh token redeemed by another client',
    breaks: ['GRANT-RT-006'],
    exchanges: () => {
      const p = pw('client-a');
      return [p.exchange, refresh(p.rt, 'client-b').exchange];
    },
  },
  {
    name: "another client's refresh answered invalid_request, not invalid_grant",
    breaks: ['GRANT-RT-006'],
    exchanges: () => {
      const p = pw('client-a');
      return [p.exchange, refresh(p.rt, 'client-b', err(400, 'invalid_request')).exchange];
    },
  },
  {
    name: "another client's refresh answered invalid_client, its credentials having got a token before",
    breaks: ['GRANT-RT-006'],
    exchanges: () => {
      const own = pw('client-b');
      const p = pw('client-a');
      return [own.exchange, p.exchange, refresh(p.rt, 'client-b', err(400, 'invalid_client')).exchange];
    },
  },
  {
    name: "another client's refresh at an endpoint that takes no refresh, answered unsupported_grant_type",
    breaks: [],
    exchanges: () => {
      const p = pw('client-a');
      return [p.exchange, refresh(p.rt, 'client-b', err(400, 'unsupported_grant_type')).exchange];
    },
  },
  {
    name: "another client's refresh answered invalid_client, its credentials never seen to work",
    breaks: [],
    exchanges: () => {
      const p = pw('client-a');
      return [p.exchange, refresh(p.rt, 'client-b', err(400, 'invalid_client')).exchange];
    },
  },
  {
    name: "a client_id with another client's secret issued a token",
    breaks: ['AUTH-CLI-013'],
    exchanges: () => [
      cc('client-a'),
      cc('client-b'),
      tok(
        'grant_type=client_credentials&client_id=client-b&client_secret=secret-of-client-a',
        json(200, { access_token: token('at'), token_type: 'Bearer', expires_in: 3600 }, tokenHeaders),
      ),
    ],
  },
  {
    name: "a client_id with another client's secret refused with invalid_client",
    breaks: [],
    exchanges: () => [
      cc('client-a'),
      cc('client-b'),
      tok(
        'grant_type=client_credentials&client_id=client-b&client_secret=secret-of-client-a',
        err(400, 'invalid_client'),
      ),
    ],
  },
  {
    name: 'a refresh by a client_credentials-only client',
    breaks: ['GRANT-RT-010'],
    exchanges: () => [refresh(token('rt'), 'cc-only').exchange],
  },
  {
    name: 'a refresh by a client_credentials-only client answered invalid_client, its credentials having got a token before',
    breaks: ['GRANT-RT-010'],
    exchanges: () => [cc('cc-only'), refresh(token('rt'), 'cc-only', err(400, 'invalid_client')).exchange],
  },
  {
    name: 'a refresh by a client_credentials-only client whose credentials failed authentication',
    breaks: [],
    exchanges: () => [refresh(token('rt'), 'cc-only', err(400, 'invalid_client')).exchange],
  },
  {
    name: 'a refresh token answered 200 twice',
    breaks: ['STATE-RT-USED-001'],
    exchanges: () => {
      const p = pw();
      return [p.exchange, refresh(p.rt).exchange, refresh(p.rt).exchange];
    },
  },
  {
    name: 'a used refresh token, its replacement used too, answered 200',
    breaks: ['STATE-RT-USED-001', 'STATE-RT-USED-002'],
    exchanges: () => {
      const p = pw();
      const r1 = refresh(p.rt);
      const r2 = refresh(r1.rt);
      return [p.exchange, r1.exchange, r2.exchange, refresh(p.rt).exchange];
    },
  },
  {
    name: "after reuse, the family's live refresh token still works",
    breaks: ['STATE-RT-FAMILY-001'],
    exchanges: () => {
      const p = pw();
      const r1 = refresh(p.rt);
      return [p.exchange, r1.exchange, refresh(p.rt, 'client-a', invalidGrant()).exchange, refresh(r1.rt).exchange];
    },
  },
  {
    name: "after reuse, the family's access token still accepted",
    breaks: ['STATE-RT-FAMILY-002'],
    exchanges: () => {
      const p = pw();
      const r1 = refresh(p.rt);
      return [
        p.exchange,
        r1.exchange,
        refresh(p.rt, 'client-a', invalidGrant()).exchange,
        api(bearerOf(r1.exchange), ok()),
      ];
    },
  },
  {
    name: 'a refresh token accepted after its 7 days',
    breaks: ['STATE-RT-EXP-001'],
    exchanges: () => {
      const p = pw();
      return [p.exchange, refresh(p.rt, 'client-a', undefined, at(14 * 86_400_000 + 60_000)).exchange];
    },
  },
  {
    name: 'a rotated refresh token accepted after its own 7 days',
    breaks: ['STATE-RT-EXP-002'],
    exchanges: () => {
      const p = pw();
      const r = refresh(p.rt);
      return [p.exchange, r.exchange, refresh(r.rt, 'client-a', undefined, at(14 * 86_400_000 + 60_000)).exchange];
    },
  },
  {
    name: 'a refresh token accepted after its announced refresh_token_expires_in',
    breaks: ['STATE-RT-EXP-003'],
    exchanges: () => {
      const p = pw('client-a', { refresh_token_expires_in: 3600 });
      return [p.exchange, refresh(p.rt, 'client-a', undefined, at(3600_000 + 10_000)).exchange];
    },
  },
  {
    name: 'a refresh token refused after its announced refresh_token_expires_in',
    breaks: [],
    exchanges: () => {
      const p = pw('client-a', { refresh_token_expires_in: 3600 });
      return [p.exchange, refresh(p.rt, 'client-a', invalidGrant(), at(3600_000 + 10_000)).exchange];
    },
  },
  {
    name: 'an access token accepted after expires_in + skew',
    breaks: ['STATE-AT-EXP-001'],
    exchanges: () => {
      const c = cc();
      return [c, api(bearerOf(c), ok(), { time: at(3600_000 + 10_000) })];
    },
  },
  {
    name: 'an access token accepted after expires_in, the target clock moved by its control',
    breaks: ['STATE-AT-EXP-001'],
    exchanges: () => {
      const c = cc();
      const t = at();
      return [
        c,
        {
          index: 0,
          startedAt: t,
          durationMs: 0,
          request: { method: 'POST', url: `${origin}/__test/clock`, headers: [], body: { size: 0 } },
          response: json(200, { epochMs: Date.parse(t) + 3700_000 }),
        },
        api(bearerOf(c), ok()),
      ];
    },
  },
  {
    name: 'the previous access token refused after a refresh, against valid-until-expiry',
    breaks: ['STATE-AT-AFTER-REFRESH-001'],
    exchanges: () => {
      const p = pw();
      return [p.exchange, refresh(p.rt).exchange, api(bearerOf(p.exchange), gw('000-1202'))];
    },
  },
  {
    name: 'a refresh token accepted as bearer',
    breaks: ['BEARER-014'],
    exchanges: () => {
      const p = pw();
      return [p.exchange, api(p.rt, ok())];
    },
  },
  {
    name: 'an issued token refused as unparseable',
    breaks: ['ERR-GW-1202'],
    exchanges: () => {
      const c = cc();
      return [c, api(bearerOf(c), gw('000-1205'))];
    },
  },
  {
    name: 'an accepted call answered text/html',
    breaks: ['BEARER-001'],
    exchanges: () => {
      const c = cc();
      return [
        c,
        api(bearerOf(c), {
          ...ok(),
          headers: [
            ['content-type', 'text/html'],
            ['strict-transport-security', 'max-age=1'],
          ],
        }),
      ];
    },
  },
  { name: 'a call without credentials served', breaks: ['BEARER-002'], exchanges: () => [api(undefined, ok())] },
  {
    name: 'a token in the query string accepted',
    breaks: ['BEARER-009'],
    exchanges: () => [api(undefined, ok(), { path: `/v1/people/er/E-1?access_token=${token('at')}` })],
  },
  {
    name: 'a token in the query string refused otherwise than a call without credentials',
    breaks: ['BEARER-009', 'ERR-GW-1201'],
    exchanges: () => [
      api(undefined, gw('000-1201')),
      api(undefined, gw('000-1202'), { path: `/v1/people/er/E-1?access_token=${token('at')}` }),
    ],
  },
  {
    name: 'a token in the query string refused as a call without credentials',
    breaks: [],
    exchanges: () => [
      api(undefined, gw('000-1201')),
      api(undefined, gw('000-1201'), { path: `/v1/people/er/E-1?access_token=${token('at')}` }),
    ],
  },
  {
    name: 'a call without credentials refused with 403',
    breaks: ['BEARER-002', 'ERR-GW-GEN-001', 'ERR-GW-GEN-002'],
    exchanges: () => [api(undefined, json(403, { message: 'Forbidden' }))],
  },
  {
    name: 'a call without credentials refused for something else than its credentials (a version, a path)',
    breaks: [],
    exchanges: () => [
      api(undefined, gw('000-1020'), { path: '/v2/people/er/E-1' }),
      api(undefined, gw('000-4000'), { path: '/v1/not-exposed' }),
    ],
  },
  {
    name: 'an accepted call answered application/json that is not JSON',
    breaks: ['BEARER-001'],
    exchanges: () => {
      const c = cc();
      return [c, api(bearerOf(c), { ...ok(), body: { text: '<html>', size: 6 } })];
    },
  },
  {
    name: 'a 401 whose Bearer challenge follows a Basic one',
    breaks: [],
    exchanges: () => [
      api(
        undefined,
        json(401, { code: '000-1201', message: gatewayErrors['000-1201'].message }, [
          ['www-authenticate', 'Basic realm="x", Bearer realm="api"'],
        ]),
      ),
    ],
  },
  {
    name: 'a rate-limited answer whose Retry-After is neither delay-seconds nor a date',
    breaks: ['LIMIT-RATE-002'],
    exchanges: () => {
      const c = cc();
      return [c, api(bearerOf(c), gw('000-2000', undefined, [['retry-after', 'soon']]))];
    },
  },
  {
    name: 'a 401 without WWW-Authenticate',
    breaks: ['BEARER-013'],
    exchanges: () => [api(undefined, json(401, { code: '000-1201', message: 'Unauthorized' }))],
  },
  {
    name: 'a no-credentials challenge with an error attribute',
    breaks: ['BEARER-019'],
    exchanges: () => [
      api(
        undefined,
        json(401, { code: '000-1201', message: 'Unauthorized' }, [
          ['www-authenticate', 'Bearer error="invalid_token"'],
        ]),
      ),
    ],
  },
  {
    name: 'a gateway code outside the table',
    breaks: ['ERR-GW-GEN-001'],
    exchanges: () => [api(token('x'), json(404, { code: '000-9999', message: 'Not Found' }))],
  },
  {
    name: 'a gateway body that is not {code, message}',
    breaks: ['ERR-GW-GEN-002'],
    exchanges: () => [api(token('x'), json(404, { code: '000-5003' }))],
  },
  {
    name: "a gateway message not the table's",
    breaks: ['ERR-GW-GEN-003'],
    exchanges: () => [api(token('x'), json(404, { code: '000-5003', message: 'Missing' }))],
  },
  {
    name: 'a gateway body echoing the token',
    breaks: ['ERR-GW-GEN-004'],
    exchanges: () => {
      const t = token('x');
      return [api(t, json(404, { code: '000-5003', message: 'Not Found', token: t }))];
    },
  },
  {
    name: 'a gateway body echoing a credential the gateway could not parse (two words after Bearer)',
    breaks: ['ERR-GW-GEN-004'],
    exchanges: () => {
      const t = token('x');
      const challenge: HeaderList = [['www-authenticate', 'Bearer error="invalid_token"']];
      const credential = `${t} ${t}`;
      return [api(credential, json(401, { code: '000-1205', message: 'token parse error', credential }, challenge))];
    },
  },
  {
    name: 'a 000-1200 with a message of its own (§7.2 lists it without one)',
    breaks: [],
    exchanges: () => [
      api(token('x'), json(401, { code: '000-1200', message: 'Token rejected' }, [['www-authenticate', 'Bearer']])),
    ],
  },
  {
    name: 'a wrong version served',
    breaks: ['ERR-GW-1020'],
    exchanges: () => [api(token('x'), ok(), { path: '/v2/people/er/E-1' })],
  },
  {
    name: 'a wrong version with another code',
    breaks: ['ERR-GW-1020'],
    exchanges: () => [api(token('x'), gw('000-4000'), { path: '/v0/people' })],
  },
  {
    name: 'no credentials refused with 000-1202',
    breaks: ['ERR-GW-1201'],
    exchanges: () => [
      api(
        undefined,
        json(401, { code: '000-1202', message: 'Unauthorized' }, [['www-authenticate', 'Bearer realm="api"']]),
      ),
    ],
  },
  {
    name: 'a rate-limited answer without Retry-After',
    breaks: ['LIMIT-RATE-002'],
    exchanges: () => [api(token('x'), gw('000-2001'))],
  },
  {
    name: 'more accepted calls in one second than two windows allow',
    breaks: ['LIMIT-RATE-001'],
    exchanges: () => {
      const c = cc();
      const t = Date.parse(at());
      return [
        c,
        ...[0, 1, 2, 3, 4].map((i) => api(bearerOf(c), ok(), { time: new Date(t + 1000 + i * 100).toISOString() })),
      ];
    },
  },
  {
    name: 'a token error that is not JSON',
    breaks: ['ERR-TOK-001'],
    exchanges: () => [
      tok('grant_type=password&client_id=a&client_secret=s-abcdef&username=t%5Cu&password=wrong-pass', {
        status: 400,
        headers: [['content-type', 'text/plain'], ['strict-transport-security', 'max-age=1'], ...tokenHeaders],
        body: { text: 'error=invalid_grant', size: 1 },
      }),
    ],
  },
  {
    name: 'invalid_grant with status 401',
    breaks: ['ERR-TOK-002'],
    exchanges: () => [
      tok(
        'grant_type=password&client_id=a&client_secret=s-abcdef&username=t%5Cu&password=wrong-pass',
        err(401, 'invalid_grant', [...tokenHeaders, ['www-authenticate', 'Bearer']]),
      ),
    ],
  },
  {
    name: 'an error_description with a quote',
    breaks: ['ERR-TOK-003'],
    exchanges: () => [
      tok(
        'grant_type=password&client_id=a&client_secret=s-abcdef&username=t%5Cu&password=wrong-pass',
        json(400, { error: 'invalid_grant', error_description: 'say "no"' }, tokenHeaders),
      ),
    ],
  },
  {
    name: 'an error carrying an access_token',
    breaks: ['ERR-TOK-005'],
    exchanges: () => [
      tok(
        'grant_type=password&client_id=a&client_secret=s-abcdef&username=t%5Cu&password=wrong-pass',
        json(400, { error: 'invalid_grant', error_description: 'x', access_token: 'x' }, tokenHeaders),
      ),
    ],
  },
  {
    name: 'an error without error_description',
    breaks: ['ERR-TOK-006'],
    exchanges: () => [
      tok(
        'grant_type=password&client_id=a&client_secret=s-abcdef&username=t%5Cu&password=wrong-pass',
        json(400, { error: 'invalid_grant' }, tokenHeaders),
      ),
    ],
  },
  {
    name: 'an error echoing the password',
    breaks: ['ERR-TOK-008'],
    exchanges: () => [
      tok(
        'grant_type=password&client_id=a&client_secret=s-abcdef&username=t%5Cu&password=wrong-pass',
        json(400, { error: 'invalid_grant', error_description: 'bad password wrong-pass' }, tokenHeaders),
      ),
    ],
  },
  {
    name: 'Basic invalid_client without a Basic challenge',
    breaks: ['AUTH-CLI-003'],
    exchanges: () => [tok('grant_type=client_credentials', err(401, 'invalid_client'), { basic: 'a:wrong-secret' })],
  },
  {
    name: 'form invalid_client with an undeclared status',
    breaks: ['AUTH-CLI-004'],
    exchanges: () => [
      tok(
        'grant_type=client_credentials&client_id=a&client_secret=wrong-secret',
        err(401, 'invalid_client', [...tokenHeaders, ['www-authenticate', 'Basic']]),
      ),
    ],
  },
  {
    name: 'Basic and a client_secret field accepted',
    breaks: ['AUTH-CLI-006'],
    exchanges: () => [
      tok(
        'grant_type=client_credentials&client_secret=s-abcdef',
        json(200, { access_token: token('at'), token_type: 'Bearer', expires_in: 3600 }, tokenHeaders),
        { basic: 'a:s-abcdef' },
      ),
    ],
  },
  {
    name: 'a GET that issues a token',
    breaks: ['TOKEN-REQ-001'],
    exchanges: () => [
      tok('', json(200, { access_token: token('at'), token_type: 'Bearer', expires_in: 3600 }, tokenHeaders), {
        method: 'GET',
      }),
    ],
  },
  {
    name: 'a JSON body that issues a token',
    breaks: ['TOKEN-REQ-003'],
    exchanges: () => [
      tok(
        '{"grant_type":"client_credentials"}',
        json(200, { access_token: token('at'), token_type: 'Bearer', expires_in: 3600 }, tokenHeaders),
        { type: 'application/json' },
      ),
    ],
  },
  {
    name: 'a repeated grant_type accepted',
    breaks: ['TOKEN-REQ-005'],
    exchanges: () => [
      tok(
        'grant_type=client_credentials&grant_type=client_credentials&client_id=a&client_secret=s-abcdef',
        json(200, { access_token: token('at'), token_type: 'Bearer', expires_in: 3600 }, tokenHeaders),
      ),
    ],
  },
  {
    name: 'an empty grant_type answered invalid_grant',
    breaks: ['TOKEN-REQ-006'],
    exchanges: () => [tok('grant_type=&client_id=a&client_secret=s-abcdef', err(400, 'invalid_grant'))],
  },
  {
    name: 'credentials only in the query string accepted',
    breaks: ['TOKEN-REQ-008'],
    exchanges: () => [
      tok(
        'grant_type=client_credentials',
        json(200, { access_token: token('at'), token_type: 'Bearer', expires_in: 3600 }, tokenHeaders),
        { url: `${origin}/api/v1/auth/oauth2/token?client_id=a&client_secret=s-abcdef` },
      ),
    ],
  },
  {
    name: 'no grant_type answered invalid_grant',
    breaks: ['TOKEN-REQ-009'],
    exchanges: () => [tok('client_id=a&client_secret=s-abcdef', err(400, 'invalid_grant'))],
  },
  {
    name: 'a password request without username answered invalid_grant',
    breaks: ['GRANT-PW-004'],
    exchanges: () => [
      tok('grant_type=password&client_id=a&client_secret=s-abcdef&password=pass-word-1', err(400, 'invalid_grant')),
    ],
  },
  {
    name: 'a refresh without refresh_token answered invalid_grant',
    breaks: ['GRANT-RT-007'],
    exchanges: () => [tok('grant_type=refresh_token&client_id=a&client_secret=s-abcdef', err(400, 'invalid_grant'))],
  },
  {
    name: 'an unknown grant answered invalid_grant',
    breaks: ['ERR-TOK-004'],
    exchanges: () => [
      tok('grant_type=authorization_code&client_id=a&client_secret=s-abcdef', err(400, 'invalid_grant')),
    ],
  },
  {
    // Two client identities (Basic's and the body's): the mismatch is refused first (AUTH-CLI-012,
    // OI-32), and no rule of one defect judges the request, the unknown grant's among them.
    name: 'an unknown grant beside a body client_id naming another client than Basic, answered invalid_request',
    breaks: [],
    exchanges: () => [
      tok('grant_type=n%21d-&client_id=someone-else', err(400, 'invalid_request'), { basic: 'a:s-abcdef' }),
    ],
  },
  {
    name: 'a body client_id naming another client than Basic, issued a token',
    breaks: ['AUTH-CLI-012'],
    exchanges: () => [
      tok(
        'grant_type=client_credentials&client_id=someone-else',
        json(200, { access_token: token('at'), token_type: 'Bearer', expires_in: 3600 }, tokenHeaders),
        { basic: 'a:s-abcdef' },
      ),
    ],
  },
  {
    name: "another version's token path issues a token",
    breaks: ['VER-004'],
    exchanges: () => [
      tok(
        'grant_type=client_credentials&client_id=a&client_secret=s-abcdef',
        json(200, { access_token: token('at'), token_type: 'Bearer', expires_in: 3600 }, tokenHeaders),
        { url: `${origin}/api/v2/auth/oauth2/token` },
      ),
    ],
  },
  {
    name: 'a client_credentials lifetime above 3600',
    breaks: ['LIMIT-AT-LIFETIME-002'],
    exchanges: () => [cc('a', { expires_in: 7200 })],
  },
  {
    name: 'a token over plain HTTP',
    breaks: ['SEC-TLS-002'],
    exchanges: () => [
      tok(
        'grant_type=client_credentials&client_id=a&client_secret=s-abcdef',
        json(200, { access_token: token('at'), token_type: 'Bearer', expires_in: 3600 }, tokenHeaders),
        { url: 'http://svc.example/api/v1/auth/oauth2/token' },
      ),
    ],
  },
  {
    name: 'an HTTPS answer without HSTS',
    breaks: ['SEC-TLS-005'],
    exchanges: () => [
      {
        ...api(undefined, gw('000-1201')),
        response: {
          ...gw('000-1201'),
          headers: gw('000-1201').headers.filter(([h]) => h !== 'strict-transport-security'),
        },
      },
    ],
  },
];

void describe('audit judges', () => {
  void test('conformant traffic breaks nothing', async () => {
    const p = pw();
    const r = refresh(p.rt);
    const c = cc();
    assert.deepEqual(
      await broken([
        c,
        p.exchange,
        r.exchange,
        api(bearerOf(c), ok()),
        api(bearerOf(r.exchange), ok()),
        refresh(p.rt, 'client-a', invalidGrant()).exchange,
        api(undefined, gw('000-1201')),
        api(bearerOf(c), gw('000-1202'), { time: at(3700_000) }),
      ]),
      [],
    );
  });
  void test('a malformed request that also names an unknown grant may be refused for either fault: RFC 6749 sets no order', async () => {
    const both = tok(
      'grant_type=no-such-grant&client_id=a&client_id=a&client_secret=s-abcdef',
      err(400, 'unsupported_grant_type'),
    );
    assert.deepEqual(await broken([both]), []);
    const neither = tok(
      'grant_type=no-such-grant&client_id=a&client_id=a&client_secret=s-abcdef',
      err(400, 'invalid_grant'),
    );
    assert.deepEqual(await broken([neither]), ['TOKEN-REQ-005']);
    const knownGrant = tok(
      'grant_type=client_credentials&client_id=a&client_id=a&client_secret=s-abcdef',
      err(400, 'unsupported_grant_type'),
    );
    assert.deepEqual(await broken([knownGrant]), ['TOKEN-REQ-005']);
  });
  void test('a body that is not a form refused with 415 (the gateway, OI-5) is no token error response; answered otherwise, it is one', async () => {
    const refused = tok('grant_type=client_credentials', gw('000-1005', 415), { type: 'text/plain' });
    assert.deepEqual(await broken([refused]), []);
    const plainError = tok(
      'grant_type=client_credentials',
      { status: 400, headers: [['content-type', 'text/plain']], body: { text: 'bad', size: 3 } },
      { type: 'text/plain' },
    );
    assert.ok((await broken([plainError])).includes('ERR-TOK-001'));
  });
  void test('a 5xx of a token request is no ERR-TOK-002 finding: the server failed; its server_error is not a catalogue code (ERR-TOK-001)', async () => {
    const failed = tok(
      'grant_type=password&client_id=a&client_secret=s-abcdef&username=t%5Cu&password=wrong-pass',
      err(500, 'server_error'),
    );
    const ids = await broken([failed]);
    assert.ok(!ids.includes('ERR-TOK-002'), ids.join(' '));
    assert.ok(ids.includes('ERR-TOK-001'), ids.join(' '));
  });
  void test('throttling (429) of a token request is no ERR-TOK-002 finding; a clock moved back leaves later-stamped calls out of the rate window', async () => {
    const throttled = tok(
      'grant_type=password&client_id=a&client_secret=s-abcdef&username=t%5Cu&password=wrong-pass',
      err(429, 'invalid_grant'),
    );
    const c = cc();
    const t = Date.parse(at());
    const clockAt = (time: number, epochMs: number): RecordedExchange => ({
      index: 0,
      startedAt: new Date(time).toISOString(),
      durationMs: 0,
      request: { method: 'POST', url: `${origin}/__test/clock`, headers: [], body: { size: 0 } },
      response: json(200, { epochMs }),
    });
    // Three calls on a clock moved forward, then the clock reset and three more: never more than two windows' worth (4) within a second on the target's clock.
    const call = (ms: number) => api(bearerOf(c), ok(), { time: new Date(t + ms).toISOString() });
    const calls = [
      clockAt(t, t + 100_000),
      call(1),
      call(2),
      call(3),
      clockAt(t + 4, t + 4),
      call(5),
      call(6),
      call(7),
    ];
    assert.deepEqual(await broken([throttled, c, ...calls]), []);
  });
  void test('each declared rate-limit number is judged on its own; an undeclared one judges nothing', async () => {
    const withRateLimit = (rateLimit: object): TargetProfile =>
      buildProfileSchema().parse({
        name: 'synthetic',
        authUrlUs: origin,
        baseUrl: origin,
        credentials: { clients: {} },
        capabilities: { rateLimit },
      });
    const calls = (gapMs: number): RecordedExchange[] => {
      const c = cc();
      const t = Date.parse(at());
      return [
        c,
        ...[0, 1, 2, 3, 4].map((i) => api(bearerOf(c), ok(), { time: new Date(t + i * gapMs).toISOString() })),
      ];
    };
    const spikeOnly = withRateLimit({ spikePerSecond: 2 });
    const quotaOnly = withRateLimit({ quotaPerWindow: 2, windowSeconds: 60 });
    // Five calls within one second: past two spike windows, inside two quota windows of 2.
    assert.ok((await broken(calls(100), spikeOnly)).includes('LIMIT-RATE-001'));
    // Five calls a second apart: within the spike limit, past two quota windows.
    assert.ok(!(await broken(calls(1000), spikeOnly)).includes('LIMIT-RATE-001'));
    assert.ok((await broken(calls(1000), quotaOnly)).includes('LIMIT-RATE-001'));
    assert.ok(!(await broken(calls(1000), withRateLimit({ quotaPerWindow: 2 }))).includes('LIMIT-RATE-001'));
  });
  for (const c of cases) {
    void test(`${c.name}: breaks ${c.breaks.join(', ') || 'nothing'}${c.breaks.length > 0 ? ' only' : ''}`, async () => {
      assert.deepEqual(await broken(c.exchanges()), [...c.breaks].sort());
    });
  }
  void test('a gateway code with a status other than the declared one breaks its own ERR-GW requirement', async () => {
    for (const code of gatewayErrorCodes) {
      const wrong = gatewayErrors[code].status === 400 ? 422 : 400;
      const extra: HeaderList = code === '000-2000' || code === '000-2001' ? [['retry-after', '1']] : [];
      const got = await broken([
        api(
          code.startsWith('000-12') ? undefined : token('x'),
          gw(code, wrong, extra),
          code === '000-1020' ? { path: '/v2/x' } : {},
        ),
      ]);
      assert.ok(got.includes(`ERR-GW-${code.slice(4)}`), `${code}: ${got.join(' ')}`);
    }
  });
  void test('every judge of the registry is seen breaking its requirement here', () => {
    const seen = new Set([...cases.flatMap((c) => c.breaks), ...gatewayErrorCodes.map((c) => `ERR-GW-${c.slice(4)}`)]);
    assert.deepEqual([...judges.keys()].filter((id) => !seen.has(id)).sort(), []);
  });
});
