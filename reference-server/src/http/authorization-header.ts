// HTTP Basic client credentials (RFC 6749 §2.3.1, RFC 7617): base64 of
// urlencode(client_id) ":" urlencode(client_secret). Both halves are form-decoded after base64,
// so `us%2Dcc%2Dclient` is `us-cc-client`.
import type { PresentedAuthorization } from '../domain/client-auth.ts';
import { decodeFormComponent } from './form-body.ts';

const basic = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i;

export function readAuthorization(header: string | string[] | undefined): PresentedAuthorization {
  if (header === undefined) return { kind: 'none' };
  if (Array.isArray(header)) return { kind: 'unusable' };
  const match = basic.exec(header);
  if (!match?.[1]) return { kind: 'unusable' };
  const decoded = Buffer.from(match[1], 'base64');
  const colon = decoded.indexOf(0x3a);
  if (colon <= 0) return { kind: 'unusable' };
  try {
    const clientId = decodeFormComponent(decoded.subarray(0, colon));
    const clientSecret = decodeFormComponent(decoded.subarray(colon + 1));
    return clientId === '' ? { kind: 'unusable' } : { kind: 'basic', clientId, clientSecret };
  } catch {
    return { kind: 'unusable' };
  }
}
