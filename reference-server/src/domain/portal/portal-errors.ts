// Why the portal refused something. `message` is shown to the person as is: fixed texts that never
// echo input and never say whether an account exists. `problems` lists what to fix in a form.
export type PortalRefusalReason =
  /** Wrong user name or password, unknown or deactivated account: one reason for all. */
  | 'invalid-credentials'
  /** The user name is locked after too many failed attempts (the token endpoint's lock). */
  | 'locked'
  /** The form has mistakes: see `problems`. */
  | 'invalid-input'
  /** Not a tenant administrator, or the password has expired (only the password change is open). */
  | 'forbidden'
  /** No such client among the tenant's own (another tenant's client looks the same). */
  | 'not-found'
  /** Self-registration is for the sandbox only. */
  | 'production-closed'
  /** The tenant reached its number of sandbox clients. */
  | 'limit-reached';

export class PortalRefusal extends Error {
  constructor(
    readonly reason: PortalRefusalReason,
    message: string,
    readonly problems: readonly string[] = [],
    /** For `locked`: seconds until the lock ends. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'PortalRefusal';
  }
}

export const portalMessages = {
  invalidCredentials: 'The user name or password is wrong, or the account is not active.',
  locked: 'Too many failed attempts for this user name. Try again later.',
  formProblems: 'The form has mistakes; nothing was changed.',
  notAdmin: 'Only tenant administrators can register client applications.',
  passwordExpired: 'Your password has expired: change it before you do anything else.',
  clientNotFound: 'There is no such client application in your tenant.',
  productionClosed:
    'This server is a production environment: client applications are registered by the Data Services team, not on the portal.',
  limitReached: 'Your tenant has reached its number of sandbox client applications; delete one first.',
} as const;
