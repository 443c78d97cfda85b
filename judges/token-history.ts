// What earlier exchanges established, in time order on the target's clock (spec §3, §8; RFC 6749
// §6, §10.4): each issued token, to whom and when, which refresh token was used and what replaced
// it, which refresh-token families saw a used token presented again, the accepted protected calls
// per client inside the declared rate window. An exchange with the profile's clock control moves
// the view of the target's clock as it moved the target's. The history only records; the sequence
// judges (sequence-judges.ts) read a view of it taken before each exchange is folded in.
import type { JudgeChoices } from './choices.ts';
import type { Classified } from './classify.ts';
import { gatewayCodeIn, headerOf, jsonObjectOf, refOf, type ExchangeRef } from './exchange.ts';

export interface IssuedAccessToken {
  issuedMs: number;
  expiresIn: number;
  clientId?: string;
  ref: ExchangeRef;
  family?: number;
  /** When a refresh replaced it (target time). */
  replacedMs?: number;
}

export interface IssuedRefreshToken {
  issuedMs: number;
  accessExpiresIn: number;
  clientId?: string;
  ref: ExchangeRef;
  access: string;
  scope?: string;
  family: number;
  /** Issued by a refresh (a rotation), not by a password grant. */
  rotated: boolean;
  /** The refresh_token_expires_in its response announced, in seconds, if it did. */
  announcedExpiresIn?: number;
  /** The successful refresh that used it. */
  used?: ExchangeRef;
  replacement?: string;
}

/** What a sequence judge sees of the history, as it stood before the exchange. */
export interface HistoryView {
  /** The exchange's time on the target's clock. */
  nowMs: number;
  /** A token response: the refresh token presented, as issued earlier. */
  presented?: IssuedRefreshToken;
  /** ...and the refresh it was used in, when it had been used already. */
  presentedUsed?: ExchangeRef;
  /** ...and the refresh token that replaced it, when that one was used in turn. */
  replacementUsed?: ExchangeRef;
  /** ...and where a used token of its family was presented again, if one was. */
  familyReuse?: ExchangeRef;
  /** A token request: an earlier token response issued to the same client_id and secret (those credentials are valid). */
  credentialsIssued?: ExchangeRef;
  /**
   * A token request: its secret got a token for another client, and its own client got one with a
   * secret of its own (so the secret is not shared): where each was issued.
   */
  secretOfAnother?: { clientId: string; ref: ExchangeRef; own: ExchangeRef };
  /** A successful token response: the earlier response that carried the same access_token. */
  sameAccessToken?: ExchangeRef;
  /** A protected call: the refresh token sent as its bearer credential. */
  bearerIsRefresh?: IssuedRefreshToken;
  /** A protected call: the access token it presents, as issued earlier. */
  bearerAccess?: IssuedAccessToken;
  /** ...and where a used token of that token's family was presented again, if one was. */
  bearerFamilyReuse?: ExchangeRef;
  /** A protected call accepted beyond what two fixed rate windows let through: how. */
  rateExceeded?: string;
  /** A protected call: the latest 401 to a call without credentials before it, and its gateway code. */
  noCredentials?: NoCredentialsAnswer;
}

export interface NoCredentialsAnswer {
  ref: ExchangeRef;
  code: string | undefined;
}

const emptyView: HistoryView = { nowMs: 0 };
export const noHistory = (): HistoryView => emptyView;

export class TokenHistory {
  readonly #access = new Map<string, IssuedAccessToken>();
  readonly #refresh = new Map<string, IssuedRefreshToken>();
  readonly #reused = new Map<number, ExchangeRef>();
  /** Client credentials (client_id and secret) that got a token, and where first. */
  readonly #issuedTo = new Map<string, ExchangeRef>();
  /** Per secret that got a token: the client it got it for, first. */
  readonly #secretOwner = new Map<string, { clientId: string; ref: ExchangeRef }>();
  /** Per client that got a token: its secrets that did, and where first. */
  readonly #clientSecrets = new Map<string, Map<string, ExchangeRef>>();
  #families = 0;
  #clockOffsetMs = 0;
  /** Per client: the times of its accepted protected calls still inside the longest rate window. */
  readonly #accepted = new Map<string, number[]>();
  readonly #rateBroken = new Set<string>();
  #noCredentials: NoCredentialsAnswer | undefined;

  constructor(private readonly choices: JudgeChoices) {}

  #now(c: Classified): number {
    return Date.parse(c.exchange.startedAt) + this.#clockOffsetMs;
  }

  /** The history as it stands before `c` (which must have a response). */
  view(c: Classified): HistoryView {
    const nowMs = this.#now(c);
    const res = c.exchange.response!;
    if (isTokenPost(c)) {
      const body = jsonObjectOf(res.body);
      const presentedValue =
        c.grant === 'refresh_token' ? c.form?.find(([k]) => k === 'refresh_token')?.[1] : undefined;
      const presented = presentedValue !== undefined ? this.#refresh.get(presentedValue) : undefined;
      const replacement = presented?.replacement !== undefined ? this.#refresh.get(presented.replacement) : undefined;
      const familyReuse = presented ? this.#reused.get(presented.family) : undefined;
      const earlier = typeof body?.access_token === 'string' ? this.#access.get(body.access_token) : undefined;
      const credentials = credentialsOf(c);
      const credentialsIssued = credentials !== undefined ? this.#issuedTo.get(credentials.key) : undefined;
      const secretOfAnother = credentials ? this.#secretOfAnother(credentials) : undefined;
      return {
        nowMs,
        ...(credentialsIssued ? { credentialsIssued } : {}),
        ...(secretOfAnother ? { secretOfAnother } : {}),
        ...(presented ? { presented } : {}),
        ...(presented?.used ? { presentedUsed: presented.used } : {}),
        ...(replacement?.used ? { replacementUsed: replacement.used } : {}),
        ...(familyReuse ? { familyReuse } : {}),
        ...(earlier ? { sameAccessToken: earlier.ref } : {}),
      };
    }
    if (c.kind !== 'protected') return { nowMs };
    const noCredentials = this.#noCredentials ? { noCredentials: this.#noCredentials } : {};
    if (c.bearer === undefined) return { nowMs, ...noCredentials };
    const bearerIsRefresh = this.#refresh.get(c.bearer);
    if (bearerIsRefresh) return { nowMs, bearerIsRefresh, ...noCredentials };
    const bearerAccess = this.#access.get(c.bearer);
    const bearerFamilyReuse = bearerAccess?.family !== undefined ? this.#reused.get(bearerAccess.family) : undefined;
    const rateExceeded = this.#rateExceeded(bearerAccess?.clientId ?? c.bearer, nowMs, c);
    return {
      nowMs,
      ...(bearerAccess ? { bearerAccess } : {}),
      ...(bearerFamilyReuse ? { bearerFamilyReuse } : {}),
      ...(rateExceeded ? { rateExceeded } : {}),
      ...noCredentials,
    };
  }

  /** Records what `c` established (after its judges read `view`). */
  fold(c: Classified, view: HistoryView): void {
    const res = c.exchange.response;
    if (!res) return;
    if (c.kind === 'clock') {
      const epochMs = jsonObjectOf(res.body)?.epochMs;
      if (res.status === 200 && typeof epochMs === 'number')
        this.#clockOffsetMs = epochMs - (Date.parse(c.exchange.startedAt) + (c.exchange.durationMs ?? 0));
      return;
    }
    if (isTokenPost(c)) this.#foldToken(c, view);
    else if (c.kind === 'protected' && withoutCredentials(c) && res.status === 401)
      this.#noCredentials = { ref: refOf(c.exchange), code: gatewayCodeIn(res.body) };
    else if (c.kind === 'protected' && c.bearer !== undefined && !view.bearerIsRefresh) this.#foldCall(c, view);
  }

  #foldToken(c: Classified, view: HistoryView): void {
    const res = c.exchange.response!;
    const body = jsonObjectOf(res.body);
    const success = res.status === 200 && typeof body?.access_token === 'string';
    const at = refOf(c.exchange);
    const previous = view.presented;
    if (previous) {
      const otherClient =
        c.clientId !== undefined && previous.clientId !== undefined && c.clientId !== previous.clientId;
      if (!otherClient && previous.used && !this.#reused.has(previous.family)) this.#reused.set(previous.family, at);
      if (success && !previous.used) {
        previous.used = at;
        if (typeof body.refresh_token === 'string') previous.replacement = body.refresh_token;
        const old = this.#access.get(previous.access);
        if (old) old.replacedMs = view.nowMs;
      }
    }
    if (!success) return;
    const credentials = credentialsOf(c);
    if (credentials && !this.#issuedTo.has(credentials.key)) {
      this.#issuedTo.set(credentials.key, at);
      if (!this.#secretOwner.has(credentials.secret))
        this.#secretOwner.set(credentials.secret, { clientId: credentials.clientId, ref: at });
      const secrets = this.#clientSecrets.get(credentials.clientId) ?? new Map<string, ExchangeRef>();
      if (!secrets.has(credentials.secret)) secrets.set(credentials.secret, at);
      this.#clientSecrets.set(credentials.clientId, secrets);
    }
    const token = body.access_token as string;
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 0;
    const family = previous?.family ?? ++this.#families;
    const refresh = typeof body.refresh_token === 'string' ? body.refresh_token : undefined;
    this.#access.set(token, {
      issuedMs: view.nowMs,
      expiresIn,
      ...(c.clientId ? { clientId: c.clientId } : {}),
      ref: at,
      ...(refresh ? { family } : {}),
    });
    if (refresh && !this.#refresh.has(refresh)) {
      this.#refresh.set(refresh, {
        issuedMs: view.nowMs,
        accessExpiresIn: expiresIn,
        ...(c.clientId ? { clientId: c.clientId } : {}),
        ref: at,
        access: token,
        family,
        rotated: previous !== undefined,
        ...(typeof body.refresh_token_expires_in === 'number'
          ? { announcedExpiresIn: body.refresh_token_expires_in }
          : {}),
        ...(typeof body.scope === 'string' ? { scope: body.scope } : {}),
      });
    }
  }

  #secretOfAnother(credentials: Credentials): HistoryView['secretOfAnother'] {
    const owner = this.#secretOwner.get(credentials.secret);
    if (!owner || owner.clientId === credentials.clientId) return undefined;
    const own = [...(this.#clientSecrets.get(credentials.clientId) ?? [])].find(
      ([secret]) => secret !== credentials.secret,
    );
    return own ? { clientId: owner.clientId, ref: owner.ref, own: own[1] } : undefined;
  }

  #foldCall(c: Classified, view: HistoryView): void {
    const limit = this.choices.rateLimit;
    const res = c.exchange.response!;
    const client = view.bearerAccess?.clientId ?? c.bearer!;
    if (!limit || res.status < 200 || res.status >= 300 || this.#rateBroken.has(client)) return;
    const kept = Math.max(limit.quotaPerWindow ?? 0, limit.spikePerSecond ?? 0);
    this.#accepted.set(client, this.#window(client, view.nowMs).slice(-(2 * kept + 1)));
    if (view.rateExceeded) this.#rateBroken.add(client);
  }

  /** The client's accepted calls inside the window ending at `now`, this one included. */
  #window(client: string, now: number): number[] {
    // Without a declared quota window only the last second is judged (the spike limit).
    const limit = this.choices.rateLimit!;
    const quotaWindow = limit.quotaPerWindow !== undefined ? limit.windowSeconds : undefined;
    const windowMs = (quotaWindow ?? 1) * 1000;
    // A clock moved back (a reset) leaves later-stamped calls behind: they are not in this window.
    const times = (this.#accepted.get(client) ?? []).filter((t) => t > now - windowMs && t <= now);
    times.push(now);
    return times;
  }

  /** More accepted calls in a sliding window than two fixed windows can let through. */
  #rateExceeded(client: string, now: number, c: Classified): string | undefined {
    const limit = this.choices.rateLimit;
    const res = c.exchange.response!;
    if (!limit || res.status < 200 || res.status >= 300 || this.#rateBroken.has(client)) return undefined;
    const times = this.#window(client, now);
    const inSecond = times.filter((t) => t > now - 1000).length;
    if (limit.spikePerSecond !== undefined && inSecond > 2 * limit.spikePerSecond)
      return `${inSecond} calls accepted within one second (declared spike limit ${limit.spikePerSecond}/s)`;
    if (
      limit.quotaPerWindow !== undefined &&
      limit.windowSeconds !== undefined &&
      times.length > 2 * limit.quotaPerWindow
    )
      return `${times.length} calls accepted within ${limit.windowSeconds} s (declared quota ${limit.quotaPerWindow} per window)`;
    return undefined;
  }
}

interface Credentials {
  clientId: string;
  secret: string;
  key: string;
}

/** The client_id and secret a token request authenticated with (form fields or HTTP Basic). */
function credentialsOf(c: Classified): Credentials | undefined {
  const authz = c.exchange.request.headers.find(([n]) => n.toLowerCase() === 'authorization')?.[1];
  const basic = authz !== undefined ? /^\s*basic\s+(\S+)\s*$/i.exec(authz) : null;
  let secret = c.form?.find(([k]) => k === 'client_secret')?.[1];
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    // RFC 6749 §2.3.1: each part is form-encoded before the join.
    if (colon >= 0) secret = formDecoded(decoded.slice(colon + 1));
  }
  return c.clientId !== undefined && secret !== undefined
    ? { clientId: c.clientId, secret, key: `${c.clientId}\n${secret}` }
    : undefined;
}

function formDecoded(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

/** A token request at the US or EU endpoint, POSTed (what the history records of the token endpoint). */
export const isTokenPost = (c: Classified): boolean =>
  (c.kind === 'token-us' || c.kind === 'token-eu') && c.exchange.request.method === 'POST';

/** A protected call without an Authorization header and without an access_token query parameter. */
const withoutCredentials = (c: Classified): boolean =>
  headerOf(c.exchange.request.headers, 'authorization') === undefined && !c.url?.searchParams.has('access_token');
