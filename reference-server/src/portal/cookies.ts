// The portal's cookies. `__Host-` names: the browser keeps them only when they are Secure, have
// Path=/ and no Domain, so no other host (a sibling subdomain) can set or overwrite them.
// HttpOnly (no script reads them), SameSite=Strict (never sent with a request another site starts),
// no Max-Age (gone when the browser closes; the server's own expiry is what counts).
export const SESSION_COOKIE = '__Host-tc-portal-session';
/** The sign-in form's CSRF cookie (double submit): there is no session yet to hold a token. */
export const SIGN_IN_COOKIE = '__Host-tc-portal-signin';

/** Cookie values of a Cookie header; the first of a repeated name wins; malformed pairs are skipped. */
export function readCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (!cookies.has(name) && /^[A-Za-z0-9_-]{1,200}$/.test(value)) cookies.set(name, value);
  }
  return cookies;
}

export function setCookie(name: string, value: string): string {
  return `${name}=${value}; Path=/; Secure; HttpOnly; SameSite=Strict`;
}

export function clearCookie(name: string): string {
  return `${name}=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0`;
}
