// Judges of one protected call (spec §5, §7.2; RFC 6750): the bearer rules a single exchange
// shows (no credentials, a 401's challenge, the token in the query string) and the gateway's
// rejection (a §7.2 code where the target declares it, its message, its declared status, no echo).
import { gatewayErrorCodes, gatewayErrors, type GatewayErrorCode } from '../../schemas/gateway-error-codes.ts';
import type { AuditContext } from './audit-context.ts';
import type { Classified } from './classify.ts';
import { headerOf, headersOf, jsonObjectOf, mediaTypeOf, refOf } from './exchange.ts';

export const protectedJudged = [
  'BEARER-001',
  'BEARER-002',
  'BEARER-009',
  'BEARER-013',
  'BEARER-019',
  'ERR-GW-GEN-001',
  'ERR-GW-GEN-002',
  'ERR-GW-GEN-003',
  'ERR-GW-GEN-004',
  'ERR-GW-1020',
  'ERR-GW-1201',
  'LIMIT-RATE-002',
  ...gatewayErrorCodes.map((code) => `ERR-GW-${code.slice(4)}`),
] as const;

const known = new Set<string>(gatewayErrorCodes);

/** The gateway code of a rejection, found where the target declares its error body puts it. */
export function gatewayCodeOf(c: Classified, ctx: AuditContext): string | undefined {
  const res = c.exchange.response!;
  if (ctx.interpretation('gatewayErrorBody') === 'json-code-message') {
    const code = jsonObjectOf(res.body)?.code;
    return typeof code === 'string' ? code : undefined;
  }
  const anywhere = `${res.body.text ?? ''}\n${res.headers.map(([, v]) => v).join('\n')}`;
  return /\b000-\d{4}\b/.exec(anywhere)?.[0];
}

/** The status the target declares for a code (OI-14), else the reference one. */
function declaredStatus(code: GatewayErrorCode, ctx: AuditContext): number {
  const statuses = (ctx.interpretation('gatewayCodes') as { statuses?: Record<string, number> }).statuses ?? {};
  return statuses[code] ?? gatewayErrors[code].status;
}

export function judgeProtectedExchange(c: Classified, ctx: AuditContext): void {
  const res = c.exchange.response;
  if (!res) return;
  const { ledger } = ctx;
  const at = () => [refOf(c.exchange)];
  const authorization = headersOf(c.exchange.request.headers, 'authorization');
  const challenge = headerOf(res.headers, 'www-authenticate');
  const ok = res.status >= 200 && res.status < 300;
  const accept = headerOf(c.exchange.request.headers, 'accept');
  if (
    c.bearer !== undefined &&
    authorization.length === 1 &&
    ok &&
    mediaTypeOf(accept) === 'application/json' &&
    c.exchange.request.method === 'GET'
  ) {
    const type = mediaTypeOf(headerOf(res.headers, 'content-type'));
    ledger.judge(
      'BEARER-001',
      res.status === 200 && type === 'application/json',
      () =>
        `an accepted protected call was answered ${res.status} ${type ?? 'without Content-Type'}, not 200 application/json`,
      at,
    );
  }
  if (authorization.length === 0) {
    const queryToken = c.url?.searchParams.has('access_token') ?? false;
    if (queryToken)
      ledger.judge(
        'BEARER-009',
        res.status === 401,
        () =>
          `a protected call with the token only in the access_token query parameter was answered ${res.status}, not 401`,
        at,
      );
    else ledger.judge('BEARER-002', !ok, () => `a protected call without Authorization was answered ${res.status}`, at);
    if (res.status === 401 && !queryToken)
      ledger.judge(
        'BEARER-019',
        challenge === undefined || !/\berror\s*=/i.test(challenge),
        () => `the challenge "${challenge ?? ''}" of a call without credentials carries an error attribute`,
        at,
      );
  }
  if (res.status === 401)
    ledger.judge(
      'BEARER-013',
      /^\s*bearer\b/i.test(challenge ?? ''),
      () =>
        `a 401 from the protected API has ${challenge ? `WWW-Authenticate "${challenge}"` : 'no WWW-Authenticate'}, not a Bearer challenge`,
      at,
    );
  const firstSegment = /^\/([^/]*)/.exec(c.url?.pathname ?? '')?.[1] ?? '';
  if (res.status < 400) {
    if (firstSegment !== 'v1')
      ledger.broke(
        'ERR-GW-1020',
        `a protected call with version segment "${firstSegment}" was served (${res.status})`,
        at(),
      );
    return;
  }
  // A gateway rejection.
  const code = gatewayCodeOf(c, ctx);
  ledger.judge(
    'ERR-GW-GEN-001',
    code !== undefined && known.has(code),
    () =>
      `a ${res.status} rejection carries ${code === undefined ? 'no gateway code' : `${code}, a code outside the §7.2 table`}`,
    at,
  );
  if (ctx.interpretation('gatewayErrorBody') === 'json-code-message') {
    // The format only ({code, message} as strings): whether the code is in the table is ERR-GW-GEN-001's.
    const body = jsonObjectOf(res.body);
    const shaped = typeof body?.code === 'string' && typeof body.message === 'string';
    const type = mediaTypeOf(headerOf(res.headers, 'content-type'));
    ledger.judge(
      'ERR-GW-GEN-002',
      type === 'application/json' && shaped,
      () =>
        `a gateway rejection is ${type ?? 'without Content-Type'}${shaped ? '' : ', not the declared JSON {code, message}'}`,
      at,
    );
  }
  if (code === undefined || !known.has(code)) return;
  const definition = gatewayErrors[code as GatewayErrorCode];
  const message = jsonObjectOf(res.body)?.message;
  if (typeof message === 'string') {
    ledger.judge(
      'ERR-GW-GEN-003',
      message === definition.message,
      () => `gateway code ${code} came with message ${JSON.stringify(message)}, not "${definition.message}"`,
      at,
    );
  }
  if (c.bearer !== undefined)
    ledger.judge(
      'ERR-GW-GEN-004',
      !(res.body.text ?? '').includes(c.bearer),
      () => "a gateway error body echoes the request's access token (shown as its digest)",
      at,
    );
  const status = declaredStatus(code as GatewayErrorCode, ctx);
  ledger.judge(
    `ERR-GW-${code.slice(4)}`,
    res.status === status,
    () => `gateway code ${code} came with status ${res.status}, not the declared ${status}`,
    at,
  );
  if (code === '000-2000' || code === '000-2001')
    ledger.judge(
      'LIMIT-RATE-002',
      headerOf(res.headers, 'retry-after') !== undefined,
      () => `a rate-limited answer (${code}) has no Retry-After`,
      at,
    );
  const matching = (ctx.interpretation('gatewayCodes') as { matching?: string }).matching ?? 'exact';
  const family = (x: string) => (x.startsWith('000-1') ? '1' : x.slice(0, 6));
  const expect = (id: string, wanted: GatewayErrorCode, why: string) =>
    ledger.judge(
      id,
      matching === 'family' ? family(code) === family(wanted) : code === wanted,
      () => `${why} got gateway code ${code}, not ${wanted}`,
      at,
    );
  if (firstSegment !== 'v1')
    expect('ERR-GW-1020', '000-1020', `a protected call with version segment "${firstSegment}"`);
  else if (authorization.length === 0 && res.status === 401)
    expect('ERR-GW-1201', '000-1201', 'a protected call without Authorization');
}
