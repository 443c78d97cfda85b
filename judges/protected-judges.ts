// Judges of one protected call (spec §5, §7.2; RFC 6750): the bearer rules a single exchange shows
// (no credentials, a 401's challenge, the token in the query string) and the gateway's rejection
// (a §7.2 code where the target declares it, its message, its declared status, no echo).
import { gatewayErrorCodes, gatewayErrors, type GatewayErrorCode } from '../schemas/gateway-error-codes.ts';
import type { JudgeChoices } from './choices.ts';
import type { Classified } from './classify.ts';
import { bearerChallenge } from './bearer-challenge.ts';
import { gatewayCodeIn, headerOf, headersOf, jsonObjectOf, mediaTypeOf, refOf } from './exchange.ts';
import { seen, type Judge, type Seen } from './judge.ts';
import type { HistoryView } from './token-history.ts';

const known = new Set<string>(gatewayErrorCodes);

/** The gateway code a rejection shows, whatever the declared body format: a `code` member, else the first 000-nnnn of the body. */
const anyGatewayCode = (c: Classified): string | undefined => gatewayCodeIn(c.exchange.response!.body);

const parsesAsJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** Shorter words (a scheme alone, a test's `abc`) occur in any text: an echo of them cannot be told. */
const shortestEchoable = 8;

/** The gateway code of a rejection, found where the target declares its error body puts it. */
export function gatewayCodeOf(c: Classified, choices: JudgeChoices): string | undefined {
  const res = c.exchange.response!;
  if (choices.interpretation('gatewayErrorBody') === 'json-code-message') {
    const code = jsonObjectOf(res.body)?.code;
    return typeof code === 'string' ? code : undefined;
  }
  const anywhere = `${res.body.text ?? ''}\n${res.headers.map(([, v]) => v).join('\n')}`;
  return /\b000-\d{4}\b/.exec(anywhere)?.[0];
}

/** The status the target declares for a code (OI-14), else the reference one. */
export function declaredStatus(code: GatewayErrorCode, choices: JudgeChoices): number {
  const statuses = (choices.interpretation('gatewayCodes') as { statuses?: Record<string, number> }).statuses ?? {};
  return statuses[code] ?? gatewayErrors[code].status;
}

/** Whether `got` is the code expected, under the declared matching (OI-14: exact, or the same family). */
export function codeMatches(got: string, wanted: GatewayErrorCode, choices: JudgeChoices): boolean {
  const matching = (choices.interpretation('gatewayCodes') as { matching?: string }).matching ?? 'exact';
  const family = (x: string) => (x.startsWith('000-1') ? '1' : x.slice(0, 6));
  return matching === 'family' ? family(got) === family(wanted) : got === wanted;
}

/** The requirement of a gateway code's status: ERR-GW-1202 for 000-1202. */
export const gatewayRequirementOf = (code: string): string => `ERR-GW-${code.slice(4)}`;

interface Call {
  status: number;
  authorization: string[];
  challenge: string | undefined;
  firstSegment: string;
}
type CallRule = (call: Call, c: Classified, choices: JudgeChoices, history: HistoryView) => Seen | undefined;

const onCall = (requirement: string, rule: CallRule, extra: Partial<Pick<Judge, 'uses' | 'needs'>> = {}): Judge => ({
  requirement,
  needs: extra.needs ?? 'exchange',
  ...(extra.uses ? { uses: extra.uses } : {}),
  judge: ({ c, history }, choices) => {
    const res = c.exchange.response;
    if (c.kind !== 'protected' || !res) return undefined;
    return rule(
      {
        status: res.status,
        authorization: headersOf(c.exchange.request.headers, 'authorization'),
        challenge: headerOf(res.headers, 'www-authenticate'),
        firstSegment: /^\/([^/]*)/.exec(c.url?.pathname ?? '')?.[1] ?? '',
      },
      c,
      choices,
      history,
    );
  },
});

/** A rule on a gateway rejection carrying a §7.2 code. */
const onKnownCode = (
  requirement: string,
  rule: (code: GatewayErrorCode, call: Call, c: Classified, choices: JudgeChoices) => Seen | undefined,
) =>
  onCall(
    requirement,
    (call, c, choices) => {
      if (call.status < 400) return undefined;
      const code = gatewayCodeOf(c, choices);
      return code !== undefined && known.has(code) ? rule(code as GatewayErrorCode, call, c, choices) : undefined;
    },
    { uses: ['gatewayErrorBody', 'gatewayCodes'] },
  );

/** Both parts held, or the first that broke. */
export const both = (a: Seen | undefined, b: Seen | undefined): Seen | undefined =>
  a === undefined ? b : b === undefined ? a : !a.held ? a : b;

/** The declared status of a code: every rejection carrying it. */
const statusOf = (code: GatewayErrorCode, status: number, choices: JudgeChoices): Seen => {
  const wanted = declaredStatus(code, choices);
  return seen(status === wanted, () => `gateway code ${code} came with status ${status}, not the declared ${wanted}`);
};

export const protectedJudges: Judge[] = [
  onCall('BEARER-001', (call, c) => {
    const res = c.exchange.response!;
    const ok = call.status >= 200 && call.status < 300;
    if (
      c.bearer === undefined ||
      call.authorization.length !== 1 ||
      !ok ||
      mediaTypeOf(headerOf(c.exchange.request.headers, 'accept')) !== 'application/json' ||
      c.exchange.request.method !== 'GET'
    )
      return undefined;
    const type = mediaTypeOf(headerOf(res.headers, 'content-type'));
    // A body cut by the recorder cannot be read: its Content-Type is all that shows.
    const json = res.body.truncated || res.body.binary ? true : parsesAsJson(res.body.text ?? '');
    return seen(call.status === 200 && type === 'application/json' && json, () =>
      call.status === 200 && type === 'application/json'
        ? 'an accepted protected call was answered application/json whose body is not JSON'
        : `an accepted protected call was answered ${call.status} ${type ?? 'without Content-Type'}, not 200 application/json`,
    );
  }),
  onCall(
    'BEARER-009',
    (call, c, _choices, history) => {
      if (call.authorization.length !== 0 || !c.url?.searchParams.has('access_token')) return undefined;
      // "As if it had no credentials": the refusal a call without credentials got before, where one did.
      const without = history.noCredentials;
      const code = anyGatewayCode(c);
      return seen(
        call.status === 401 && (without === undefined || code === without.code),
        () =>
          call.status !== 401
            ? `a protected call with the token only in the access_token query parameter was answered ${call.status}, not 401`
            : `a protected call with the token only in the access_token query parameter was refused with ${code ?? 'no gateway code'}, a call without credentials with ${without!.code ?? 'none'}`,
        without ? [without.ref, refOf(c.exchange)] : undefined,
      );
    },
    { needs: 'sequence' },
  ),
  // Refused with 401 — unless refused for something else than its credentials (a §7.2 code outside
  // the auth family: a malformed request, a path not exposed, a backend down), another requirement's.
  onCall('BEARER-002', (call, c) => {
    if (call.authorization.length !== 0 || c.url?.searchParams.has('access_token')) return undefined;
    const code = anyGatewayCode(c);
    const ok = call.status >= 200 && call.status < 300;
    if (!ok && code !== undefined && known.has(code) && gatewayErrors[code as GatewayErrorCode].family !== 'auth')
      return undefined;
    return seen(
      call.status === 401,
      () => `a protected call without Authorization was answered ${call.status}, not 401`,
    );
  }),
  onCall('BEARER-019', (call, c) => {
    if (call.authorization.length !== 0 || call.status !== 401 || c.url?.searchParams.has('access_token'))
      return undefined;
    // A 401 without a Bearer challenge is BEARER-013's.
    const challenge = bearerChallenge(call.challenge);
    return challenge
      ? seen(
          challenge.params.error === undefined,
          () => `the challenge "${call.challenge ?? ''}" of a call without credentials carries an error attribute`,
        )
      : undefined;
  }),
  onCall('BEARER-013', (call) =>
    call.status === 401
      ? seen(
          bearerChallenge(call.challenge) !== undefined,
          () =>
            `a 401 from the protected API has ${call.challenge ? `WWW-Authenticate "${call.challenge}"` : 'no WWW-Authenticate'}, not a Bearer challenge`,
        )
      : undefined,
  ),
  onCall(
    'ERR-GW-GEN-001',
    (call, c, choices) => {
      if (call.status < 400) return undefined;
      const code = gatewayCodeOf(c, choices);
      return seen(
        code !== undefined && known.has(code),
        () =>
          `a ${call.status} rejection carries ${code === undefined ? 'no gateway code' : `${code}, a code outside the §7.2 table`}`,
      );
    },
    { uses: ['gatewayErrorBody'] },
  ),
  // The format only: whether the code is in the table is ERR-GW-GEN-001's. json-code-message: a JSON
  // {code, message} of strings; code-anywhere: a 000-nnnn code in the body or a header, nothing more.
  onCall(
    'ERR-GW-GEN-002',
    (call, c, choices) => {
      if (call.status < 400) return undefined;
      if (choices.interpretation('gatewayErrorBody') !== 'json-code-message')
        return seen(
          gatewayCodeOf(c, choices) !== undefined,
          () => `a ${call.status} gateway rejection has no 000-nnnn code in its body or a header`,
        );
      const res = c.exchange.response!;
      const body = jsonObjectOf(res.body);
      const shaped = typeof body?.code === 'string' && typeof body.message === 'string';
      const type = mediaTypeOf(headerOf(res.headers, 'content-type'));
      return seen(
        type === 'application/json' && shaped,
        () =>
          `a gateway rejection is ${type ?? 'without Content-Type'}${shaped ? '' : ', not the declared JSON {code, message}'}`,
      );
    },
    { uses: ['gatewayErrorBody'] },
  ),
  // §7.2 lists 000-1200 without a message: no message of it is wrong.
  onKnownCode('ERR-GW-GEN-003', (code, _call, c) => {
    const message = jsonObjectOf(c.exchange.response!.body)?.message;
    if (typeof message !== 'string' || code === '000-1200') return undefined;
    const wanted = gatewayErrors[code].message;
    return seen(
      message === wanted,
      () => `gateway code ${code} came with message ${JSON.stringify(message)}, not "${wanted}"`,
    );
  }),
  // Every rejection, whatever its code: the credentials of the Authorization header, and the header's
  // value, never come back in the body.
  onCall('ERR-GW-GEN-004', (call, c) => {
    if (call.status < 400) return undefined;
    const credentials = call.authorization.flatMap((value) => [value, ...value.trim().split(/\s+/).slice(1)]);
    const echoable = [...new Set(credentials.filter((x) => x.length >= shortestEchoable))];
    if (echoable.length === 0) return undefined;
    const body = c.exchange.response!.body.text ?? '';
    return seen(
      !echoable.some((x) => body.includes(x)),
      () => "a gateway error body echoes the request's access token or Authorization value (shown as its digest)",
    );
  }),
  // The code wherever the body shows it: whether a rejection is the rate limit's does not depend on
  // the declared body format, and neither does its Retry-After (delay-seconds or an HTTP-date).
  onCall('LIMIT-RATE-002', (call, c) => {
    const code = anyGatewayCode(c);
    if (call.status < 400 || (code !== '000-2000' && code !== '000-2001')) return undefined;
    const retryAfter = headerOf(c.exchange.response!.headers, 'retry-after')?.trim();
    return seen(retryAfter !== undefined && (/^\d+$/.test(retryAfter) || !Number.isNaN(Date.parse(retryAfter))), () =>
      retryAfter === undefined
        ? `a rate-limited answer (${code}) has no Retry-After`
        : `a rate-limited answer (${code}) has Retry-After "${retryAfter}", neither delay-seconds nor an HTTP-date`,
    );
  }),
  // A call to another version is never served, and refused with 000-1020.
  onCall(
    gatewayRequirementOf('000-1020'),
    (call, c, choices) => {
      if (call.status < 400)
        return call.firstSegment !== 'v1'
          ? seen(
              false,
              () => `a protected call with version segment "${call.firstSegment}" was served (${call.status})`,
            )
          : undefined;
      const code = gatewayCodeOf(c, choices);
      if (code === undefined || !known.has(code)) return undefined;
      return both(
        code === '000-1020' ? statusOf('000-1020', call.status, choices) : undefined,
        call.firstSegment !== 'v1'
          ? seen(
              codeMatches(code, '000-1020', choices),
              () =>
                `a protected call with version segment "${call.firstSegment}" got gateway code ${code}, not 000-1020`,
            )
          : undefined,
      );
    },
    { uses: ['gatewayErrorBody', 'gatewayCodes'] },
  ),
  // A call without Authorization on the right version is refused with 000-1201.
  onKnownCode(gatewayRequirementOf('000-1201'), (code, call, _c, choices) =>
    both(
      code === '000-1201' ? statusOf('000-1201', call.status, choices) : undefined,
      call.firstSegment === 'v1' && call.authorization.length === 0 && call.status === 401
        ? seen(
            codeMatches(code, '000-1201', choices),
            () => `a protected call without Authorization got gateway code ${code}, not 000-1201`,
          )
        : undefined,
    ),
  ),
  // Every other code: a rejection carrying it has its declared status. (000-1202 also has a sequence judge.)
  ...gatewayErrorCodes
    .filter((code) => !['000-1020', '000-1201', '000-1202'].includes(code))
    .map((code) =>
      onKnownCode(gatewayRequirementOf(code), (got, call, _c, choices) =>
        got === code ? statusOf(code, call.status, choices) : undefined,
      ),
    ),
];
