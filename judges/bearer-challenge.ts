// WWW-Authenticate as RFC 9110 §11.6.1 writes it: one or more challenges, each an auth-scheme and
// a comma-separated list of auth-params (name=token or name="quoted string"); token68 forms are
// not used by the Bearer scheme and not read here.
// Scheme and parameter names are case-insensitive.

export interface Challenge {
  /** Lower-cased. */
  scheme: string;
  /** Lower-cased names; values unquoted. */
  params: Record<string, string>;
}

const tchar = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

export function parseChallenges(header: string | undefined): Challenge[] {
  if (header === undefined) return [];
  const s = header;
  let i = 0;
  const out: Challenge[] = [];
  const skipWs = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i += 1;
  };
  const token = () => {
    const start = i;
    while (i < s.length && tchar.test(s[i]!)) i += 1;
    return s.slice(start, i);
  };
  const quoted = () => {
    let v = '';
    i += 1;
    while (i < s.length && s[i] !== '"') {
      if (s[i] === '\\' && i + 1 < s.length) i += 1;
      v += s[i];
      i += 1;
    }
    i += 1;
    return v;
  };
  while (i < s.length) {
    skipWs();
    if (s[i] === ',') {
      i += 1;
      continue;
    }
    const scheme = token();
    if (scheme === '') break;
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} };
    out.push(challenge);
    skipWs();
    // auth-params (or a token68) until a token that is not followed by '=' starts the next challenge
    while (i < s.length) {
      skipWs();
      if (s[i] === ',') {
        i += 1;
        continue;
      }
      const save = i;
      const name = token();
      skipWs();
      if (name !== '' && s[i] === '=' && s[i + 1] !== '=') {
        i += 1;
        skipWs();
        challenge.params[name.toLowerCase()] = s[i] === '"' ? quoted() : token();
        continue;
      }
      i = save;
      break;
    }
  }
  return out;
}

/** The Bearer challenge of a WWW-Authenticate value, if it has one. */
export function bearerChallenge(header: string | undefined): Challenge | undefined {
  return parseChallenges(header).find((c) => c.scheme === 'bearer');
}
