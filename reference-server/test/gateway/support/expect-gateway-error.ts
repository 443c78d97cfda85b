// The one assertion every gateway-code test goes through: status, body, Content-Type and the
// headers the catalogue and RFC 6750 attach to the code. It also records the code, so the
// catalogue test can tell which codes no test produced.
import assert from 'node:assert/strict';
import { gatewayErrors } from '../../../../schemas/gateway-error-codes.ts';
import type { GatewayErrorCode } from '../../../../schemas/gateway-error-codes.ts';

export interface SeenResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

export const producedCodes = new Set<GatewayErrorCode>();

export const challenge = {
  bare: 'Bearer realm="data-services"',
  invalidToken: /^Bearer realm="data-services", error="invalid_token", error_description="[^"]+"$/,
  insufficientScope: 'Bearer realm="data-services", error="insufficient_scope"',
};

export function fromInject(response: {
  statusCode: number;
  headers: SeenResponse['headers'];
  body: string;
}): SeenResponse {
  return { status: response.statusCode, headers: response.headers, body: response.body };
}

export function expectGatewayError(response: SeenResponse, code: GatewayErrorCode): void {
  const definition = gatewayErrors[code];
  assert.equal(response.status, definition.status, `status of ${code} (body ${response.body})`);
  assert.deepEqual(JSON.parse(response.body), { code, message: definition.message });
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
  const wwwAuthenticate = response.headers['www-authenticate'];
  if (code === '000-1201') assert.equal(wwwAuthenticate, challenge.bare);
  else if (definition.status === 401) assert.match(String(wwwAuthenticate), challenge.invalidToken);
  else if (definition.status === 403 && definition.family === 'auth')
    assert.equal(wwwAuthenticate, challenge.insufficientScope);
  else assert.equal(wwwAuthenticate, undefined, `${code} carries no challenge`);
  if (code === '000-2000' || code === '000-2001' || code === '000-5000')
    assert.match(String(response.headers['retry-after']), /^[1-9][0-9]*$/);
  producedCodes.add(code);
}
