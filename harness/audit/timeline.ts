// Judges across exchanges, in time order (spec §3, §8; RFC 6749 §6, §10.4): what a token was
// issued for, to whom and when, then how the target answered its later uses — a refresh token
// answered 200 twice, used after its 7 days or by another client, an access token accepted after
// its expires_in (+ the declared skew), the previous access token after a refresh against OI-15,
// a refresh token taken as a bearer credential, rate limits. Times are on the target's clock: an
// exchange with the profile's clock control moves the audit's view of it as it moved the target's.
import type { AuditContext } from './audit-context.ts';
import type { Classified } from './classify.ts';
import { jsonObjectOf, refOf, type ExchangeRef } from './exchange.ts';
import { gatewayCodeOf } from './protected-judges.ts';
import { shapeOf } from './secret-digest.ts';

export const timelineJudged = [
  'TOKEN-RESP-009',
  'GRANT-RT-002',
  'GRANT-RT-003',
  'GRANT-RT-006',
  'GRANT-RT-010',
  'STATE-RT-USED-001',
  'STATE-RT-USED-002',
  'STATE-RT-EXP-001',
  'STATE-RT-FAMILY-001',
  'STATE-RT-FAMILY-002',
  'STATE-AT-EXP-001',
  'STATE-AT-AFTER-REFRESH-001',
  'BEARER-014',
  'ERR-GW-1202',
  'LIMIT-RATE-001',
] as const;

const refreshValidityMs = 7 * 86_400_000;

interface AccessToken {
  issuedMs: number;
  expiresIn: number;
  clientId?: string;
  ref: ExchangeRef;
  refresh?: string;
  family?: number;
  replacedMs?: number;
}
interface RefreshToken {
  issuedMs: number;
  accessExpiresIn: number;
  clientId?: string;
  ref: ExchangeRef;
  access: string;
  scope?: string;
  family: number;
  used?: ExchangeRef;
  replacement?: string;
}

const sameScope = (a: string, b: string) => {
  const x = new Set(a.split(' ').filter(Boolean));
  const y = new Set(b.split(' ').filter(Boolean));
  return x.size === y.size && [...x].every((s) => y.has(s));
};

export class Timeline {
  readonly #access = new Map<string, AccessToken>();
  readonly #refresh = new Map<string, RefreshToken>();
  /** Families whose used refresh token was presented again: where. */
  readonly #reused = new Map<number, ExchangeRef>();
  #families = 0;
  #clockOffsetMs = 0;
  /** Per client: the times of its accepted protected calls still inside the longest rate window. */
  readonly #accepted = new Map<string, number[]>();
  readonly #rateBroken = new Set<string>();

  constructor(private readonly ctx: AuditContext) {}

  /** The target's time of an exchange. */
  #now(c: Classified): number {
    return Date.parse(c.exchange.startedAt) + this.#clockOffsetMs;
  }

  observe(c: Classified): void {
    const res = c.exchange.response;
    if (!res) return;
    if (c.kind === 'clock') {
      const epochMs = jsonObjectOf(res.body)?.epochMs;
      if (res.status === 200 && typeof epochMs === 'number')
        this.#clockOffsetMs = epochMs - (Date.parse(c.exchange.startedAt) + (c.exchange.durationMs ?? 0));
      return;
    }
    if ((c.kind === 'token-us' || c.kind === 'token-eu') && c.exchange.request.method === 'POST') this.#token(c);
    else if (c.kind === 'protected') this.#protected(c);
  }

  #token(c: Classified): void {
    const { ledger } = this.ctx;
    const res = c.exchange.response!;
    const body = jsonObjectOf(res.body);
    const success = res.status === 200 && typeof body?.access_token === 'string';
    const at = refOf(c.exchange);
    const now = this.#now(c);
    const presented = c.grant === 'refresh_token' ? c.form?.find(([k]) => k === 'refresh_token')?.[1] : undefined;
    const refusedGrant = res.status === 400 && body?.error === 'invalid_grant';
    const answer = `${res.status}${typeof body?.error === 'string' ? ` ${body.error}` : ''}`;
    if (c.grant === 'refresh_token' && c.clientId !== undefined && this.ctx.ccOnlyClients.has(c.clientId)) {
      ledger.judge(
        'GRANT-RT-010',
        !success,
        () => `a refresh by ${c.clientId ?? ''}, a client allowed client_credentials only, was answered 200`,
        () => [at],
      );
    }
    const previous = presented !== undefined ? this.#refresh.get(presented) : undefined;
    if (previous) {
      if (c.clientId !== undefined && previous.clientId !== undefined && c.clientId !== previous.clientId) {
        ledger.judge(
          'GRANT-RT-006',
          !success,
          () => `a refresh token issued to ${previous.clientId ?? ''} was redeemed by ${c.clientId ?? ''}`,
          () => [previous.ref, at],
        );
      } else if (previous.used) {
        ledger.judge(
          'STATE-RT-USED-001',
          refusedGrant,
          () =>
            `a refresh token already used in a successful refresh was answered ${answer}${success ? ' again (single use broken)' : ', not 400 invalid_grant'}`,
          () => [previous.used!, at],
        );
        const replacement = previous.replacement !== undefined ? this.#refresh.get(previous.replacement) : undefined;
        if (replacement?.used)
          ledger.judge(
            'STATE-RT-USED-002',
            refusedGrant,
            () => `a used refresh token, whose replacement was used in turn, was answered ${answer}`,
            () => [previous.used!, replacement.used!, at],
          );
        if (!this.#reused.has(previous.family)) this.#reused.set(previous.family, at);
      } else {
        const reuse = this.#reused.get(previous.family);
        if (reuse)
          ledger.judge(
            'STATE-RT-FAMILY-001',
            refusedGrant,
            () =>
              `after a used refresh token of its family was presented again, a refresh token of that family was answered ${answer}`,
            () => [reuse, at],
          );
        const anchor =
          previous.issuedMs +
          (this.ctx.interpretation('refreshTokenAnchor') === 'access-token-expiry'
            ? previous.accessExpiresIn * 1000
            : 0);
        if (now > anchor + refreshValidityMs + this.ctx.skewMs) {
          ledger.judge(
            'STATE-RT-EXP-001',
            refusedGrant,
            () =>
              `a refresh token ${Math.round((now - anchor - refreshValidityMs) / 1000)} s past its 7-day validity was answered ${answer}`,
            () => [previous.ref, at],
          );
        }
        if (success) {
          const fresh = typeof body.refresh_token === 'string' ? body.refresh_token : undefined;
          ledger.judge(
            'GRANT-RT-002',
            fresh !== presented && body.access_token !== previous.access,
            () =>
              fresh === presented
                ? 'a refresh returned the refresh token it was given'
                : 'a refresh returned the access token it replaced',
            () => [previous.ref, at],
          );
          const asked = c.form?.some(([k]) => k === 'scope');
          if (!asked && previous.scope !== undefined && typeof body.scope === 'string') {
            ledger.judge(
              'GRANT-RT-003',
              sameScope(body.scope, previous.scope),
              () =>
                `a refresh without scope returned "${body.scope as string}", not the original "${previous.scope ?? ''}"`,
              () => [previous.ref, at],
            );
          }
        }
      }
      if (success && !previous.used) {
        previous.used = at;
        if (typeof body.refresh_token === 'string') previous.replacement = body.refresh_token;
        const old = this.#access.get(previous.access);
        if (old) old.replacedMs = now;
      }
    }
    if (!success) return;
    const token = body.access_token as string;
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 0;
    const earlier = this.#access.get(token);
    ledger.judge(
      'TOKEN-RESP-009',
      earlier === undefined && shapeOf(token).length >= 22,
      () =>
        earlier
          ? 'two token responses carry the same access_token'
          : `an access_token of ${shapeOf(token).length} characters (fewer than 22)`,
      () => (earlier ? [earlier.ref, at] : [at]),
    );
    const family = previous?.family ?? ++this.#families;
    const refresh = typeof body.refresh_token === 'string' ? body.refresh_token : undefined;
    this.#access.set(token, {
      issuedMs: now,
      expiresIn,
      ...(c.clientId ? { clientId: c.clientId } : {}),
      ref: at,
      ...(refresh ? { refresh, family } : {}),
    });
    if (refresh && !this.#refresh.has(refresh)) {
      this.#refresh.set(refresh, {
        issuedMs: now,
        accessExpiresIn: expiresIn,
        ...(c.clientId ? { clientId: c.clientId } : {}),
        ref: at,
        access: token,
        family,
        ...(typeof body.scope === 'string' ? { scope: body.scope } : {}),
      });
    }
  }

  #protected(c: Classified): void {
    const { ledger } = this.ctx;
    const res = c.exchange.response!;
    const at = refOf(c.exchange);
    const now = this.#now(c);
    const accepted = res.status >= 200 && res.status < 300;
    if (c.bearer === undefined) return;
    const asRefresh = this.#refresh.get(c.bearer);
    if (asRefresh) {
      ledger.judge(
        'BEARER-014',
        res.status === 401,
        () => `a refresh token sent as the bearer credential was answered ${res.status}`,
        () => [asRefresh.ref, at],
      );
      return;
    }
    const token = this.#access.get(c.bearer);
    this.#rate(token?.clientId ?? c.bearer, now, c, accepted);
    if (!token) return;
    const expiry = token.issuedMs + token.expiresIn * 1000;
    if (now >= expiry + this.ctx.skewMs) {
      ledger.judge(
        'STATE-AT-EXP-001',
        res.status === 401,
        () =>
          `an access token was answered ${res.status} ${Math.round((now - expiry) / 1000)} s after its expires_in (declared skew ${this.ctx.skewMs / 1000} s)`,
        () => [token.ref, at],
      );
    } else if (now < expiry - this.ctx.skewMs) {
      const reuse = token.family !== undefined ? this.#reused.get(token.family) : undefined;
      if (reuse && Date.parse(reuse.time) <= Date.parse(c.exchange.startedAt)) {
        ledger.judge(
          'STATE-RT-FAMILY-002',
          res.status === 401,
          () => `an access token of a refresh-token family revoked for reuse was answered ${res.status}`,
          () => [reuse, at],
        );
      } else if (token.replacedMs !== undefined && now > token.replacedMs) {
        const choice = this.ctx.interpretation('accessTokenAfterRefresh');
        ledger.judge(
          'STATE-AT-AFTER-REFRESH-001',
          choice === 'revoked' ? res.status === 401 : res.status !== 401,
          () => `the access token replaced by a refresh was answered ${res.status}, against the declared ${choice}`,
          () => [token.ref, at],
        );
      }
    }
    // An issued token is well formed: refused as a credential (the Unauthorized codes), it is
    // refused as not valid (000-1202), never as absent (1201) or unparseable (1205). Other
    // refusals (a deactivated user's 000-5002, a role's 000-1101, a key-source failure's 000-1208)
    // are other requirements'.
    const code = res.status >= 400 ? gatewayCodeOf(c, this.ctx) : undefined;
    if (code !== undefined && ['000-1200', '000-1201', '000-1202', '000-1205'].includes(code)) {
      const matching = (this.ctx.interpretation('gatewayCodes') as { matching?: string }).matching ?? 'exact';
      ledger.judge(
        'ERR-GW-1202',
        matching === 'family' || code === '000-1202',
        () => `an access token the target issued (well-formed) was refused with ${code}, not 000-1202`,
        () => [token.ref, at],
      );
    }
  }

  /** LIMIT-RATE-001: more accepted calls in a sliding window than two fixed windows can let through. */
  #rate(client: string, now: number, c: Classified, accepted: boolean): void {
    const limit = this.ctx.rateLimit;
    if (!limit) return;
    const code = c.exchange.response!.status === 429 ? gatewayCodeOf(c, this.ctx) : undefined;
    if (code === '000-2000' || code === '000-2001') this.ctx.ledger.held('LIMIT-RATE-001', refOf(c.exchange));
    if (!accepted || this.#rateBroken.has(client)) return;
    const windowMs = limit.windowSeconds * 1000;
    // A clock moved back (a reset) leaves later-stamped calls behind: they are not in this window.
    const times = (this.#accepted.get(client) ?? []).filter((t) => t > now - windowMs && t <= now);
    times.push(now);
    this.#accepted.set(client, times.slice(-(2 * limit.quotaPerWindow + 1)));
    const inSecond = times.filter((t) => t > now - 1000).length;
    const over =
      inSecond > 2 * limit.spikePerSecond
        ? `${inSecond} calls accepted within one second (declared spike limit ${limit.spikePerSecond}/s)`
        : times.length > 2 * limit.quotaPerWindow
          ? `${times.length} calls accepted within ${limit.windowSeconds} s (declared quota ${limit.quotaPerWindow} per window)`
          : undefined;
    if (over) {
      this.#rateBroken.add(client);
      this.ctx.ledger.broke('LIMIT-RATE-001', `one client had ${over}: more than two fixed windows can let through`, [
        refOf(c.exchange),
      ]);
    }
  }
}
