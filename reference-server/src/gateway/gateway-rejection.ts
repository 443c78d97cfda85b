// A gateway decision that refuses the request: a catalogued `000-` code plus the response headers
// that belong to it. The body is always `{"code","message"}` from the catalogue; anything more
// specific (why a token failed) goes to `detail`, which is logged, never sent.
import { gatewayErrors } from '../../../schemas/gateway-error-codes.ts';
import type { GatewayErrorBody, GatewayErrorCode } from '../../../schemas/gateway-error-codes.ts';

export interface GatewayRejection {
  readonly code: GatewayErrorCode;
  /** Extra response headers (WWW-Authenticate, Retry-After). */
  readonly headers: Readonly<Record<string, string>>;
  /** A private reason for the log. Never contains a token or an Authorization value. */
  readonly detail?: string;
}

export function reject(
  code: GatewayErrorCode,
  options: { headers?: Record<string, string>; detail?: string } = {},
): GatewayRejection {
  return { code, headers: options.headers ?? {}, ...(options.detail === undefined ? {} : { detail: options.detail }) };
}

export function rejectionStatus(rejection: GatewayRejection): number {
  return gatewayErrors[rejection.code].status;
}

export function rejectionBody(rejection: GatewayRejection): GatewayErrorBody {
  return { code: rejection.code, message: gatewayErrors[rejection.code].message };
}
