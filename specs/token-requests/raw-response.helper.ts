// Responses to requests sent with rawHttp (duplicate parameters, JSON bodies, query-string
// credentials, odd media types, other methods), turned into the suite's response objects so that
// they are schema-validated, described through the redactor, and usable with the custom matchers
// (toBeTokenError, toBeTokenSuccess, toBeGatewayError) like every response of the token client.
import { ApiResponse, TokenResponse } from '../../fixtures/clients/responses.ts';
import type { HttpResponseData } from '../../fixtures/http/exchange.ts';
import { validateResponse, type ResponseKind } from '../../fixtures/schema-check.ts';
import type { Redactor } from '../../harness/redaction/redact.ts';
import type { Region } from '../../fixtures/index.ts';

/** The schema a successful client_credentials response of a region is validated against. */
export function clientCredentialsKind(region: Region): ResponseKind {
  return region === 'eu' ? 'token-response-eu-client-credentials' : 'token-response-us-client-credentials';
}

/** A raw token-endpoint response: validated against `successKind` on 200, against token-error otherwise. */
export function asTokenResponse(data: HttpResponseData, redactor: Redactor, successKind: ResponseKind): TokenResponse {
  const kind: ResponseKind = data.status === 200 ? successKind : 'token-error';
  return new TokenResponse(data, validateResponse(kind, data.json), (t) => redactor.redact(t));
}

/** A raw response judged as a gateway answer (validated against gateway-error when it is an error). */
export function asGatewayResponse(data: HttpResponseData, redactor: Redactor): ApiResponse {
  const schema = data.status >= 400 ? validateResponse('gateway-error', data.json) : undefined;
  return new ApiResponse(data, schema, (t) => redactor.redact(t));
}

export const formContentType = 'application/x-www-form-urlencoded';
