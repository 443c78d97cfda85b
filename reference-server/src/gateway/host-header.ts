// Reading the host name out of a Host header value or an absolute-form authority
// (RFC 9110 §7.2, RFC 3986 §3.2.2): `name`, `name:port`, `[v6]` or `[v6]:port`.

const regName = /^[A-Za-z0-9\-._~!$&'()*+,;=]+$/;
const ipv6Literal = /^[0-9A-Fa-f:.]+$/;
const port = /^[0-9]{0,5}$/;

/** The lower-cased host name without port and brackets, or undefined when the value is not a host. */
export function hostNameOf(authority: string): string | undefined {
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close < 0) return undefined;
    const literal = authority.slice(1, close);
    const rest = authority.slice(close + 1);
    if (!ipv6Literal.test(literal)) return undefined;
    if (rest !== '' && !(rest.startsWith(':') && port.test(rest.slice(1)))) return undefined;
    return literal.toLowerCase();
  }
  const colon = authority.lastIndexOf(':');
  const name = colon < 0 ? authority : authority.slice(0, colon);
  if (colon >= 0 && !port.test(authority.slice(colon + 1))) return undefined;
  if (!regName.test(name)) return undefined;
  return name.toLowerCase();
}

/** Normalises a configured host name the same way (`[::1]` and `::1` are the same host). */
export function normalizeAllowedHost(host: string): string {
  const trimmed = host.trim().toLowerCase();
  return trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
}
