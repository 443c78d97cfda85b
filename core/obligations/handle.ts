// The handle of a credential kept in the state file: an HMAC-SHA256 of it under the state's salt,
// cut to 16 base64url characters. Terminal lines and reports name a consumed refresh token by it
// (the same token gets the same handle in every run on that state file), never by the token.
import { createHmac } from 'node:crypto';

export function handleOf(salt: string, credential: string): string {
  const digest = createHmac('sha256', Buffer.from(salt, 'base64')).update(credential, 'utf8').digest('base64url');
  return `#${digest.slice(0, 16)}`;
}
