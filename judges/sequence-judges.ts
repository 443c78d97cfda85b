// Judges across exchanges (spec §3, §8; RFC 6749 §6, §10.4): how the target answered the later
// uses of what it issued — a refresh token answered 200 twice, used after its 7 days or by another
// client, an access token accepted after its expires_in (+ the declared skew), the previous access
// token after a refresh against OI-15, a refresh token taken as a bearer credential, rate limits.
// Each reads the history as it stood before the exchange (token-history.ts).
import type { JudgeChoices } from './choices.ts';
import type { Classified } from './classify.ts';
import { jsonObjectOf, refOf } from './exchange.ts';
import { shapeOf } from './digest-shape.ts';
import { seen, type Judge, type JudgeNeeds, type Seen } from './judge.ts';
import { both, declaredStatus, gatewayCodeOf, gatewayRequirementOf } from './protected-judges.ts';
import { isTokenPost, type HistoryView, type IssuedRefreshToken } from './token-history.ts';
import { tokenFacts } from './token-facts.ts';

const refreshValidityMs = 7 * 86_400_000;

const sameScope = (a: string, b: string) => {
  const x = new Set(a.split(' ').filter(Boolean));
  const y = new Set(b.split(' ').filter(Boolean));
  return x.size === y.size && [...x].every((s) => y.has(s));
};

interface Refresh {
  c: Classified;
  h: HistoryView;
  previous: IssuedRefreshToken;
  body: Record<string, unknown> | undefined;
  success: boolean;
  refusedGrant: boolean;
  answer: string;
  /** Presented by a client other than the one it was issued to. */
  otherClient: boolean;
}

/** A judge of a token request presenting a refresh token the history knows. */
const onRefresh = (
  requirement: string,
  needs: JudgeNeeds,
  rule: (r: Refresh, choices: JudgeChoices) => Seen | undefined,
  extra: Pick<Judge, 'uses' | 'activeHalf'> = {},
): Judge => ({
  requirement,
  needs,
  ...extra,
  judge: ({ c, history: h }, choices) => {
    const previous = h.presented;
    if (!previous || !isTokenPost(c)) return undefined;
    const res = c.exchange.response!;
    const body = jsonObjectOf(res.body);
    return rule(
      {
        c,
        h,
        previous,
        body,
        success: res.status === 200 && typeof body?.access_token === 'string',
        refusedGrant: res.status === 400 && body?.error === 'invalid_grant',
        answer: `${res.status}${typeof body?.error === 'string' ? ` ${body.error}` : ''}`,
        otherClient: c.clientId !== undefined && previous.clientId !== undefined && c.clientId !== previous.clientId,
      },
      choices,
    );
  },
});

/** A refresh token presented by its own client, not used before. */
const unusedOwn = (r: Refresh) => !r.otherClient && r.h.presentedUsed === undefined;

/**
 * An unused refresh token presented past its 7 days from the declared anchor (OI-4) is refused. The
 * password grant's refresh tokens and the rotations' are two requirements: a target that lets a
 * rotation outlive its own window breaks the rotation's only.
 */
const refreshExpiry = (requirement: string, issuedBy: { rotated: boolean }): Judge =>
  onRefresh(
    requirement,
    'clock',
    (r, choices) => {
      if (!unusedOwn(r) || r.previous.rotated !== issuedBy.rotated) return undefined;
      const anchor =
        r.previous.issuedMs +
        (choices.interpretation('refreshTokenAnchor') === 'access-token-expiry'
          ? r.previous.accessExpiresIn * 1000
          : 0);
      if (r.h.nowMs <= anchor + refreshValidityMs + choices.skewMs) return undefined;
      return seen(
        r.refusedGrant,
        () =>
          `a ${r.previous.rotated ? 'rotated ' : ''}refresh token ${Math.round((r.h.nowMs - anchor - refreshValidityMs) / 1000)} s past its 7-day validity was answered ${r.answer}`,
        [r.previous.ref, refOf(r.c.exchange)],
      );
    },
    // No `uses`: undeclared, the anchor read is the later of OI-4's two ends, so a token accepted past
    // it is accepted past both, a failure under every reading (declared, the declared end decides).
  );

export const refreshJudges: Judge[] = [
  // Another client's refresh is refused with invalid_grant, unless the request is refused for what
  // comes first: its client failed authentication (invalid_client, unless the same credentials got a
  // token before), the client or the endpoint takes no refresh at all (GRANT-RT-010; GRANT-RT-011's
  // EU endpoint: unauthorized_client, unsupported_grant_type), or the request names two clients or
  // repeats a field (AUTH-CLI-012, TOKEN-REQ-005).
  onRefresh('GRANT-RT-006', 'sequence', (r, choices) => {
    if (!r.otherClient) return undefined;
    const f = tokenFacts(r.c);
    const authenticationFailed = f?.errorCode === 'invalid_client' && r.h.credentialsIssued === undefined;
    const noRefreshHere = f?.errorCode === 'unauthorized_client' || f?.errorCode === 'unsupported_grant_type';
    const refusedFirst =
      !f?.wellFormed || authenticationFailed || noRefreshHere || choices.ccOnlyClients.has(r.c.clientId ?? '');
    return seen(
      !r.success && (refusedFirst || r.refusedGrant),
      () =>
        r.success
          ? `a refresh token issued to ${r.previous.clientId ?? ''} was redeemed by ${r.c.clientId ?? ''}`
          : `a refresh token issued to ${r.previous.clientId ?? ''}, presented by ${r.c.clientId ?? ''}, was answered ${r.answer}, not 400 invalid_grant`,
      [r.previous.ref, refOf(r.c.exchange)],
    );
  }),
  // A client_credentials-only client refreshing, whatever it presents: 400 unauthorized_client or
  // invalid_grant. An invalid_client is a failed authentication, refused before the grant was read,
  // unless the same credentials got a token before: then they did not fail, and it is the refusal
  // of the refresh, with the wrong error.
  {
    requirement: 'GRANT-RT-010',
    needs: 'sequence',
    judge: ({ c, history: h }, choices) => {
      const f = isTokenPost(c) ? tokenFacts(c) : undefined;
      if (
        !f?.formRequest ||
        c.grant !== 'refresh_token' ||
        c.clientId === undefined ||
        !choices.ccOnlyClients.has(c.clientId) ||
        (f.errorCode === 'invalid_client' && h.credentialsIssued === undefined)
      )
        return undefined;
      return seen(
        f.refused400('unauthorized_client') || f.refused400('invalid_grant'),
        () =>
          `a refresh by ${c.clientId ?? ''}, a client allowed client_credentials only, was answered ${f.answer}, not 400 unauthorized_client or invalid_grant${f.errorCode === 'invalid_client' ? ' (its credentials got a token before: they did not fail authentication)' : ''}`,
        [...(f.errorCode === 'invalid_client' && h.credentialsIssued ? [h.credentialsIssued] : []), refOf(c.exchange)],
      );
    },
  },
  onRefresh('STATE-RT-USED-001', 'sequence', (r) =>
    !r.otherClient && r.h.presentedUsed
      ? seen(
          r.refusedGrant,
          () =>
            `a refresh token already used in a successful refresh was answered ${r.answer}${r.success ? ' again (single use broken)' : ', not 400 invalid_grant'}`,
          [r.h.presentedUsed, refOf(r.c.exchange)],
        )
      : undefined,
  ),
  onRefresh('STATE-RT-USED-002', 'sequence', (r) =>
    !r.otherClient && r.h.presentedUsed && r.h.replacementUsed
      ? seen(
          r.refusedGrant,
          () => `a used refresh token, whose replacement was used in turn, was answered ${r.answer}`,
          [r.h.presentedUsed, r.h.replacementUsed, refOf(r.c.exchange)],
        )
      : undefined,
  ),
  onRefresh('STATE-RT-FAMILY-001', 'sequence', (r) =>
    unusedOwn(r) && r.h.familyReuse
      ? seen(
          r.refusedGrant,
          () =>
            `after a used refresh token of its family was presented again, a refresh token of that family was answered ${r.answer}`,
          [r.h.familyReuse, refOf(r.c.exchange)],
        )
      : undefined,
  ),
  refreshExpiry('STATE-RT-EXP-001', { rotated: false }),
  refreshExpiry('STATE-RT-EXP-002', { rotated: true }),
  // Past the refresh_token_expires_in its response announced (+ skew): refused.
  onRefresh(
    'STATE-RT-EXP-003',
    'clock',
    (r, choices) => {
      const announced = r.previous.announcedExpiresIn;
      if (!unusedOwn(r) || announced === undefined) return undefined;
      const end = r.previous.issuedMs + announced * 1000;
      if (r.h.nowMs <= end + choices.skewMs) return undefined;
      return seen(
        r.refusedGrant,
        () =>
          `a refresh token ${Math.round((r.h.nowMs - end) / 1000)} s past its announced refresh_token_expires_in (${announced} s) was answered ${r.answer}`,
        [r.previous.ref, refOf(r.c.exchange)],
      );
    },
    {
      activeHalf:
        'accepted until the announced expiry: a refusal inside the window can have a cause traffic does not show (an account deactivated meanwhile), so the judge decides only the refusal after it',
    },
  ),
  onRefresh('GRANT-RT-002', 'sequence', (r) => {
    if (!unusedOwn(r) || !r.success) return undefined;
    const presented = r.c.form?.find(([k]) => k === 'refresh_token')?.[1];
    const fresh = typeof r.body!.refresh_token === 'string' ? r.body!.refresh_token : undefined;
    return seen(
      fresh !== presented && r.body!.access_token !== r.previous.access,
      () =>
        fresh === presented
          ? 'a refresh returned the refresh token it was given'
          : 'a refresh returned the access token it replaced',
      [r.previous.ref, refOf(r.c.exchange)],
    );
  }),
  onRefresh('GRANT-RT-003', 'sequence', (r) => {
    if (!unusedOwn(r) || !r.success) return undefined;
    const scope = r.body!.scope;
    const original = r.previous.scope;
    if (r.c.form?.some(([k]) => k === 'scope') || original === undefined || typeof scope !== 'string') return undefined;
    return seen(
      sameScope(scope, original),
      () => `a refresh without scope returned "${scope}", not the original "${original}"`,
      [r.previous.ref, refOf(r.c.exchange)],
    );
  }),
];

// Unique and long enough. An answer to a used refresh token that repeats the first answer is the
// single-use rule's failure (STATE-RT-USED-001), not a second token issued with the same value.
export const accessTokenJudges: Judge[] = [
  {
    requirement: 'TOKEN-RESP-009',
    needs: 'sequence',
    judge: ({ c, history: h }) => {
      if (!isTokenPost(c)) return undefined;
      const res = c.exchange.response!;
      const body = jsonObjectOf(res.body);
      if (res.status !== 200 || typeof body?.access_token !== 'string') return undefined;
      const length = shapeOf(body.access_token).length;
      const earlier = h.presentedUsed === undefined ? h.sameAccessToken : undefined;
      const at = refOf(c.exchange);
      return seen(
        earlier === undefined && length >= 22,
        () =>
          earlier
            ? 'two token responses carry the same access_token'
            : `an access_token of ${length} characters (fewer than 22)`,
        earlier ? [earlier, at] : [at],
      );
    },
  },
];

// A client_id with a secret that got a token for another client (and not the secret it got its own
// token with): invalid_client — 401 by HTTP Basic, the declared status (OI-2) for form fields — and
// no token. Beside a body client_id naming another client, the mismatch's own answer (AUTH-CLI-012)
// is as right, so any refusal holds there.
export const clientSecretJudges: Judge[] = [
  {
    requirement: 'AUTH-CLI-013',
    needs: 'sequence',
    uses: ['invalidClientStatus'],
    judge: ({ c, history: h }, choices) => {
      const other = h.secretOfAnother;
      const f = isTokenPost(c) ? tokenFacts(c) : undefined;
      if (!other || !f?.formRequest) return undefined;
      const mismatch = c.auth.basic && c.bodyClientId !== undefined && c.bodyClientId !== c.clientId;
      const issued = f.carriesToken || typeof f.body?.refresh_token === 'string';
      const status = c.auth.basic ? 401 : choices.interpretation('invalidClientStatus');
      return seen(
        !issued && (mismatch ? f.refused : f.errorCode === 'invalid_client' && f.status === status),
        () =>
          issued
            ? `${c.clientId ?? ''} presenting the secret of ${other.clientId} was issued a token`
            : `${c.clientId ?? ''} presenting the secret of ${other.clientId} was answered ${f.answer}, not ${status} invalid_client`,
        [other.ref, other.own, refOf(c.exchange)],
      );
    },
  },
];

type CallRule = (c: Classified, h: HistoryView, choices: JudgeChoices) => Seen | undefined;

/** A judge of a protected call whose bearer credential the history knows as an issued access token. */
const onIssuedBearer = (
  requirement: string,
  needs: JudgeNeeds,
  rule: CallRule,
  extra: Pick<Judge, 'uses'> = {},
): Judge => ({
  requirement,
  needs,
  ...extra,
  judge: ({ c, history }, choices) =>
    c.kind === 'protected' && history.bearerAccess ? rule(c, history, choices) : undefined,
});

/** The access token's window: past its expiry (+ skew), or well inside it (− skew). */
const expiryOf = (h: HistoryView) => h.bearerAccess!.issuedMs + h.bearerAccess!.expiresIn * 1000;
const insideLifetime = (h: HistoryView, choices: JudgeChoices) => h.nowMs < expiryOf(h) - choices.skewMs;
/** "Refused by the protected endpoint": a client error; a 5xx refuses nothing, it fails. */
const refused = (status: number) => status >= 400 && status < 500;
const familyRevokedAt = (c: Classified, h: HistoryView) =>
  h.bearerFamilyReuse !== undefined && Date.parse(h.bearerFamilyReuse.time) <= Date.parse(c.exchange.startedAt);

export const bearerJudges: Judge[] = [
  {
    requirement: 'BEARER-014',
    needs: 'sequence',
    judge: ({ c, history }) => {
      const refresh = history.bearerIsRefresh;
      if (c.kind !== 'protected' || !refresh) return undefined;
      const status = c.exchange.response!.status;
      return seen(status === 401, () => `a refresh token sent as the bearer credential was answered ${status}`, [
        refresh.ref,
        refOf(c.exchange),
      ]);
    },
  },
  onIssuedBearer('STATE-AT-EXP-001', 'clock', (c, h, choices) => {
    const expiry = expiryOf(h);
    if (h.nowMs < expiry + choices.skewMs) return undefined;
    const status = c.exchange.response!.status;
    return seen(
      status === 401,
      () =>
        `an access token was answered ${status} ${Math.round((h.nowMs - expiry) / 1000)} s after its expires_in (declared skew ${choices.skewMs / 1000} s)`,
      [h.bearerAccess!.ref, refOf(c.exchange)],
    );
  }),
  onIssuedBearer('STATE-RT-FAMILY-002', 'clock', (c, h, choices) => {
    if (!insideLifetime(h, choices) || !familyRevokedAt(c, h)) return undefined;
    const status = c.exchange.response!.status;
    return seen(
      refused(status),
      () => `an access token of a refresh-token family revoked for reuse was answered ${status}, not refused (4xx)`,
      [h.bearerFamilyReuse!, refOf(c.exchange)],
    );
  }),
  onIssuedBearer(
    'STATE-AT-AFTER-REFRESH-001',
    'clock',
    (c, h, choices) => {
      const replacedMs = h.bearerAccess!.replacedMs;
      if (!insideLifetime(h, choices) || familyRevokedAt(c, h) || replacedMs === undefined || h.nowMs <= replacedMs)
        return undefined;
      const status = c.exchange.response!.status;
      const choice = choices.interpretation('accessTokenAfterRefresh');
      return seen(
        choice === 'revoked' ? refused(status) : status >= 200 && status < 300,
        () =>
          `the access token replaced by a refresh was answered ${status}, not ${choice === 'revoked' ? 'refused (4xx)' : 'accepted (2xx)'} as the declared ${choice}`,
        [h.bearerAccess!.ref, refOf(c.exchange)],
      );
    },
    { uses: ['accessTokenAfterRefresh'] },
  ),
];

// An issued token is well formed: refused as a credential (the Unauthorized codes), it is refused
// as not valid (000-1202), never as absent (1201) or unparseable (1205). Other refusals (a
// deactivated user's 000-5002, a role's 000-1101, a key-source failure's 000-1208) are other
// requirements'. A rejection carrying 000-1202 has its declared status, as every code.
export const issuedTokenRefusalJudges: Judge[] = [
  {
    requirement: gatewayRequirementOf('000-1202'),
    needs: 'sequence',
    uses: ['gatewayErrorBody', 'gatewayCodes'],
    judge: ({ c, history }, choices) => {
      const res = c.exchange.response!;
      if (c.kind !== 'protected' || res.status < 400) return undefined;
      const code = gatewayCodeOf(c, choices);
      const issued =
        history.bearerAccess && code !== undefined && ['000-1200', '000-1201', '000-1202', '000-1205'].includes(code)
          ? seen(
              code === '000-1202' || familyMatching(choices),
              () => `an access token the target issued (well-formed) was refused with ${code}, not 000-1202`,
              [history.bearerAccess.ref, refOf(c.exchange)],
            )
          : undefined;
      const wanted = declaredStatus('000-1202', choices);
      const status =
        code === '000-1202'
          ? seen(
              res.status === wanted,
              () => `gateway code 000-1202 came with status ${res.status}, not the declared ${wanted}`,
            )
          : undefined;
      return both(status, issued);
    },
  },
  {
    requirement: 'LIMIT-RATE-001',
    needs: 'clock',
    activeHalf:
      "the check knows which of its calls were beyond the limit (a burst of more than spikePerSecond within one second, a quota's calls from the start of a window it opened on the target's clock) and that one of them must be refused; traffic shows no window boundary, so the judge FAILs only calls accepted beyond what two fixed windows let through, and the check's burst (spikePerSecond + 1 when the load budget allows no more) stays within that",
    judge: ({ c, history }, choices) => {
      if (c.kind !== 'protected' || c.bearer === undefined || history.bearerIsRefresh || !choices.rateLimit)
        return undefined;
      const res = c.exchange.response!;
      const code = res.status === 429 ? gatewayCodeOf(c, choices) : undefined;
      if (code === '000-2000' || code === '000-2001') return { held: true };
      const over = history.rateExceeded;
      return over
        ? seen(false, () => `one client had ${over}: more than two fixed windows can let through`)
        : undefined;
    },
  },
];

const familyMatching = (choices: JudgeChoices) =>
  ((choices.interpretation('gatewayCodes') as { matching?: string }).matching ?? 'exact') === 'family';
