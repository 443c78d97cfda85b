// The token endpoint's error catalogue (RFC 6749 §5.2): one class per error code, each with a
// fixed public `error_description` chosen from the constants below. Private detail (why exactly a
// request failed) goes into `detail`, which is logged and never sent. Descriptions never echo
// request input and stay inside the RFC 6749 charset (%x20-21 / %x23-5B / %x5D-7E).

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'server_error';

/** Every public description the token endpoint can send. */
export const descriptions = {
  missingGrantType: 'The request is missing the grant_type parameter.',
  missingUsername: 'The request is missing the username parameter.',
  missingPassword: 'The request is missing the password parameter.',
  missingRefreshToken: 'The request is missing the refresh_token parameter.',
  repeatedParameter: 'A request parameter was sent more than once.',
  notForm: 'The request body must be sent as application/x-www-form-urlencoded.',
  malformedBody: 'The request body is not a well-formed application/x-www-form-urlencoded UTF-8 body.',
  bodyTooLarge: 'The request body is too large.',
  methodNotAllowed: 'The token endpoint accepts POST requests only.',
  twoClientAuthMethods: 'The request uses more than one client authentication method.',
  clientIdMismatch: 'The client_id in the body does not match the authenticated client.',
  clientAuthRequired: 'Client authentication is required.',
  clientAuthFailed: 'Client authentication failed.',
  unsupportedGrantType: 'The grant type is not supported by this endpoint.',
  unauthorizedClient: 'The client is not authorized to use this grant type.',
  invalidUserCredentials: 'The user credentials are invalid.',
  passwordExpired: 'The user password has expired; change it on the portal (every 45 days).',
  invalidRefreshToken: 'The refresh token is invalid, expired, revoked or already used.',
  refreshUserNotAllowed: 'The refresh token can no longer be used for this user.',
  invalidScope: 'The requested scope is invalid, unknown or exceeds the scope granted.',
  serverError: 'The server encountered an unexpected condition.',
  tooManyAttempts: 'Too many failed attempts; try again later.',
} as const;

export type PublicDescription = (typeof descriptions)[keyof typeof descriptions];

export abstract class OAuthError extends Error {
  abstract readonly error: OAuthErrorCode;
  /** HTTP status of the token endpoint's answer. */
  readonly status: number = 400;
  readonly description: PublicDescription;
  /** Private reason, for the log only. */
  readonly detail: string | undefined;

  constructor(description: PublicDescription, detail?: string) {
    super(description);
    this.name = new.target.name;
    this.description = description;
    this.detail = detail;
  }

  /** The RFC 6749 §5.2 error body. */
  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

export class InvalidRequest extends OAuthError {
  readonly error = 'invalid_request';
}

/** 405 for a non-POST method: same body as invalid_request, plus `Allow: POST` (OI-12). */
export class MethodNotAllowed extends OAuthError {
  readonly error = 'invalid_request';
  override readonly status = 405;
  constructor() {
    super(descriptions.methodNotAllowed);
  }
}

export class InvalidClient extends OAuthError {
  readonly error = 'invalid_client';
  override readonly status: number;
  /** True when the client tried HTTP Basic: the answer is then 401 with a Basic challenge (OI-2). */
  readonly challenge: boolean;
  constructor(description: PublicDescription, viaAuthorizationHeader: boolean, detail?: string) {
    super(description, detail);
    this.challenge = viaAuthorizationHeader;
    this.status = viaAuthorizationHeader ? 401 : 400;
  }
}

export class InvalidGrant extends OAuthError {
  readonly error = 'invalid_grant';
}

export class UnauthorizedClient extends OAuthError {
  readonly error = 'unauthorized_client';
}

export class UnsupportedGrantType extends OAuthError {
  readonly error = 'unsupported_grant_type';
}

export class InvalidScope extends OAuthError {
  readonly error = 'invalid_scope';
}

/**
 * The principal (a user or a client) is locked after too many consecutive failed attempts
 * (RFC 6749 §4.3.2, §2.3.1): 429 with `Retry-After`. The body keeps the RFC 6749 §5.2 shape with
 * the code the failed attempts got (invalid_grant for a user, invalid_client for a client).
 */
export class TooManyAttempts extends OAuthError {
  readonly error: 'invalid_grant' | 'invalid_client';
  override readonly status = 429;
  /** Whole seconds until the lock ends (at least 1). */
  readonly retryAfterSeconds: number;
  constructor(error: 'invalid_grant' | 'invalid_client', retryAfterSeconds: number, detail?: string) {
    super(descriptions.tooManyAttempts, detail);
    this.error = error;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Anything unexpected. The cause is logged; the answer carries no internal detail. */
export class ServerError extends OAuthError {
  readonly error = 'server_error';
  override readonly status = 500;
  constructor(detail?: string) {
    super(descriptions.serverError, detail);
  }
}

/** RFC 6749 §5.2: error_description is limited to %x20-21 / %x23-5B / %x5D-7E. */
export const errorDescriptionPattern = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;
