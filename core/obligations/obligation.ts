// An obligation: something a check obtained (a live token) and what must hold of it at a later
// time, recorded when the target has no clock control and settled by a later run.
// Times are on the target's clock as its `Date` header shows it (1 s resolution), or on the local
// clock when the target sends no Date header (`clock: 'local'`).

/** What a settling check does with the credential; each kind is implemented in specs/obligations/. */
export const obligationKinds = [
  /** The access token is refused once its lifetime (plus skew) has passed (`expect` says how). */
  'expired-access-token-refused',
  /** After the client_credentials token expired, a new client_credentials token is accepted. */
  'new-token-after-expiry',
  /** The access token is still accepted inside its lifetime (window: from half-way to expires_in − skew). */
  'access-token-accepted',
  /** A refresh after the access token expired, before the refresh token did, succeeds. */
  'refresh-after-access-token-expiry',
  /** The refresh token is still usable inside its 7 days (window: from half-way to the end − skew). */
  'refresh-token-usable',
  /** The refresh token is refused with invalid_grant after its 7 days (plus skew). */
  'expired-refresh-token-refused',
  /** A refresh token the recording run used is still refused with invalid_grant in a later run (due at once). */
  'used-refresh-token-refused',
] as const;
export type ObligationKind = (typeof obligationKinds)[number];

/** How `expired-access-token-refused` judges the refusal: the requirement the recording check verifies. */
export type RefusalExpectation = 'status-401' | 'gateway-000-1202' | 'bearer-invalid-token';

export interface ObligationCredential {
  kind: 'access-token' | 'refresh-token';
  /** The live credential: only ever written encrypted (state file, run exchange). */
  value: string;
  region: 'us' | 'eu';
  /** The profile's name of the client it was issued to (credentials.clients.<name>). */
  client: string;
  clientId: string;
  /** The profile's name of the user, for password and refresh tokens. */
  user?: string;
  grant: 'client_credentials' | 'password';
  /** expires_in of the access token issued with it. */
  expiresIn: number;
}

export interface Obligation {
  id: string;
  /** The recording check (file and title): one outstanding obligation per check. */
  check: string;
  requirements: string[];
  kind: ObligationKind;
  expect?: RefusalExpectation;
  /** One line: what must hold when. */
  what: string;
  recordedRun: string;
  /** Local clock, ISO. */
  recordedAt: string;
  /** Issuance, as far as the suite can see it. */
  issued: {
    /** The Date header of the token response (ISO), when the target sent one. */
    targetDate?: string;
    /** The local clock before the request and after the response (ISO). */
    localFrom: string;
    localTo: string;
  };
  /** Which clock `notBefore`/`notAfter` are on. */
  clock: 'target-date' | 'local';
  /** Earliest moment (epoch ms) the obligation may be settled. */
  notBefore: number;
  /** Latest moment it is still meaningful (window kinds); absent: any time after notBefore. */
  notAfter?: number;
  credential: ObligationCredential;
  /** HMAC of the client secret and user password at recording (salted per state file): a later change reads VOID, not FAIL. */
  principalFingerprint: string;
  /**
   * A credential whose acceptance makes the refusal of `credential` meaningful (`used-refresh-token-refused`:
   * the unused refresh token that replaced the used one; refused too, the target lost its tokens: VOID).
   */
  control?: ObligationCredential;
  /** HMAC of the credential under the state's salt: the handle reports and terminal lines name it by, never the token. */
  handle?: string;
  /**
   * Choices the profile did not declare that the expectation rests on once the settlement comes
   * after `after` (epoch ms, on `clock`): a failure then is a mismatch on an assumption and reads
   * WARN naming what to declare, in whichever later run settles it.
   */
  assumed?: { choices: { quoted: string; field: string }[]; after: number };
}

/** What a settling check found. */
export interface Settlement {
  obligation: string;
  outcome: 'PASS' | 'FAIL' | 'VOID';
  reason: string;
  settledAt: string;
}

/** The annotation a recording check pushes (brief: PENDING). */
export interface PendingAnnotation {
  obligation: string;
  due: string;
  what: string;
}

/** The annotation a settling check pushes. */
export interface SettledAnnotation {
  obligation: string;
  recordedRun: string;
  recordedAt: string;
  settledAt: string;
  outcome: Settlement['outcome'];
  reason: string;
}

export const obligationAnnotations = { pending: 'pending', settled: 'settled' } as const;

/** An obligation far past its due time that can no longer be settled meaningfully (a window that closed). */
export function lapsed(o: Obligation, now: number): boolean {
  return o.notAfter !== undefined && now > o.notAfter;
}

export function isDue(o: Obligation, now: number): boolean {
  return now >= o.notBefore;
}

/** "the access token …" with times: for terminal lines and annotations (no credential). */
export function dueIso(o: Obligation): string {
  return new Date(o.notBefore).toISOString();
}
