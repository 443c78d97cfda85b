// The model of the token lifecycle (spec §3): a plain record of what was issued, when (in seconds
// of the target's clock since the run began, moved only by advance-clock), what was used, and
// which refresh-token families were revoked. From it every command predicts the target's answer:
//   - 'yes' / 'no': what the catalogue requires;
//   - 'either': where the catalogue is silent (the 45-day rule's effect on issued tokens) or the
//     moment lies within the timing margin of a boundary; the command then learns from the answer.
// The model is a simplification, never the implementation again: lifetimes come from the profile
// (or the response's expires_in), the refresh-token anchor and the fate of an access token after a
// refresh from the target's declared interpretations.
import type { ApiClient, ClockControl, Target, TokenClient } from '../../../fixtures/index.ts';
import type { LoadBudget } from '../../limits/load-budget.ts';

export const HOUR = 3600;
export const DAY = 24 * HOUR;
/** Spec §8: a refresh token is valid 7 days after the access token (anchor: OI-4). */
export const REFRESH_VALIDITY = 7 * DAY;
/** Spec §5.5: the password must be changed every 45 days. */
export const PASSWORD_MAX_AGE = 45 * DAY;
/**
 * How far the declared password age (credentials.users.burnableUser.passwordAgeDays, counted from
 * the start of the run) may be off: the run's own duration before this check. The model predicts
 * nothing within this (plus the timing margin) of the 45-day edge.
 */
export const PASSWORD_AGE_TOLERANCE = HOUR;

export type Prediction = 'yes' | 'no' | 'either';

export interface AccessTokenModel {
  id: number;
  kind: 'client_credentials' | 'password';
  issuedAt: number;
  expiresIn: number;
  family?: number;
  /** The refresh token issued together with it (password and refresh responses). */
  issuedWith?: number;
  /** OI-15 `revoked`: a refresh replaced the refresh token issued with it. */
  replaced: boolean;
}

export interface RefreshTokenModel {
  id: number;
  family: number;
  issuedAt: number;
  /** expires_in of the access token issued with it (the OI-4 anchor). */
  accessExpiresIn: number;
  used: boolean;
}

/** live: usable; revoked: reuse was detected (RFC 9700); unknown: the model cannot tell, its tokens are left alone. */
export type FamilyState = 'live' | 'revoked' | 'unknown';

export interface ModelOptions {
  /** Time may move (the clock variant). */
  clock: boolean;
  /** Predict RFC 9700 family revocation on reuse (ADVISORY); otherwise a reused family becomes unknown. */
  familyRevocation: boolean;
  anchor: 'access-token-expiry' | 'access-token-issuance';
  accessTokenAfterRefresh: 'valid-until-expiry' | 'revoked';
  /** Seconds either side of a boundary where the model does not predict (declared skew + the run's real duration). */
  margin: () => number;
  /** The burnable user's password age (seconds) at t=0, from the profile; undefined when not declared. */
  passwordAge: number | undefined;
}

export class LifecycleModel {
  now = 0;
  passwordExpired = false;
  readonly access: AccessTokenModel[] = [];
  readonly refresh: RefreshTokenModel[] = [];
  readonly families = new Map<number, FamilyState>();
  private nextId = 1;

  constructor(readonly options: ModelOptions) {}

  newId(): number {
    return this.nextId++;
  }

  /** 'yes' when `now` is surely before `end`, 'no' when surely after, else 'either'. */
  before(end: number): Prediction {
    const m = this.options.margin();
    if (this.now <= end - m) return 'yes';
    if (this.now >= end + m) return 'no';
    return 'either';
  }

  refreshTokenEnd(r: RefreshTokenModel): number {
    return r.issuedAt + (this.options.anchor === 'access-token-expiry' ? r.accessExpiresIn : 0) + REFRESH_VALIDITY;
  }

  /** The 45-day edge on the model's clock (undefined when the password age is not declared). */
  passwordEdge(): number | undefined {
    return this.options.passwordAge === undefined ? undefined : PASSWORD_MAX_AGE - this.options.passwordAge;
  }

  /**
   * The password grant works: 'yes' until the declared password age surely reaches 45 days, 'no'
   * once it surely passed them (LIMIT-PWD-001), 'either' within the tolerance of the declared age
   * and the timing margin. Without a declared age: 'yes' before the clock moved, then 'either'.
   */
  passwordGrant(): Prediction {
    if (this.passwordExpired) return 'no';
    const edge = this.passwordEdge();
    if (edge === undefined) return this.now === 0 ? 'yes' : 'either';
    const m = this.options.margin() + PASSWORD_AGE_TOLERANCE;
    if (this.now <= edge - m) return 'yes';
    if (this.now >= edge + m) return 'no';
    return 'either';
  }

  familyOf(r: RefreshTokenModel): FamilyState {
    return this.families.get(r.family) ?? 'live';
  }

  /** Refresh tokens the commands may present (never those of a family the model cannot tell). */
  usable(filter: (r: RefreshTokenModel) => boolean): RefreshTokenModel[] {
    return this.refresh.filter((r) => this.familyOf(r) !== 'unknown' && filter(r));
  }

  /** Whether the protected endpoint accepts an access token now. */
  accepts(a: AccessTokenModel): Prediction {
    if (a.family !== undefined) {
      const f = this.families.get(a.family) ?? 'live';
      if (f === 'revoked') return 'no';
      if (f === 'unknown') return 'either';
    }
    if (a.replaced) return 'no';
    const alive = this.before(a.issuedAt + a.expiresIn);
    if (alive === 'yes' && a.kind === 'password' && (this.passwordExpired || this.passwordGrant() !== 'yes')) return 'either'; // §3: the 45-day rule's effect on tokens is not shown
    return alive;
  }

  toString(): string {
    return `t=${this.now}s, ${this.access.length} access, ${this.refresh.length} refresh, password ${this.passwordExpired ? 'expired' : 'current'}`;
  }
}

/** The real side: the target, and the token values behind the model's ids. */
export class RealSystem {
  readonly accessTokens = new Map<number, string>();
  readonly refreshTokens = new Map<number, string>();

  constructor(
    readonly tokenClient: TokenClient,
    readonly api: ApiClient,
    readonly target: Target,
    readonly pacer: LoadBudget,
    readonly clock: ClockControl | undefined,
  ) {}
}

export const lifetimeOf = (target: Target, kind: 'client_credentials' | 'password', fromResponse: number): number =>
  (kind === 'client_credentials' ? target.profile.expectations.ccLifetime : target.profile.expectations.pwLifetime) ?? fromResponse;

/** A model/target disagreement: the command that showed it and the requirement the prediction comes from (every one names it). */
export class ModelDisagreement extends Error {
  constructor(readonly command: string, readonly predicted: string, readonly got: string, readonly requirement: string) {
    super(`${command}: the model predicts ${predicted}, the target answered ${got} (${requirement})`);
  }
}

/** Throws a model/target disagreement with the command that showed it and the requirement it breaks. */
export function disagree(command: string, predicted: string, got: string, requirement: string): never {
  throw new ModelDisagreement(command, predicted, got, requirement);
}
