// `init --find-people`: asks the target which person identifiers the gateway checks can use
// (resources.people): an existing one (200), a well-formed one with no record (404, 000-5003) and
// a malformed one (400, 000-5001). The user names candidates for the existing one (an identifier
// they know); the missing and malformed ones are derived from it and kept only when the target
// answers them as the spec says. One token (client_credentials, usClient) and a few GETs.
import { tokenPoster, tokenUrl, type TokenPoster } from '../preflight/token-post.ts';

export interface PeopleFound {
  existing?: string;
  missing?: string;
  malformed?: string;
  /** One line per candidate tried: what the target answered. */
  lines: string[];
}

export interface PeopleTarget {
  authUrlUs: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The extra parameters the deployment demands on usClient's client_credentials request (learned or declared). */
  tokenParameters?: Record<string, string>;
  caFile?: string;
}

/** Well-formed identifiers unlikely to exist: the digits of `existing` all 9s, then all 0s. */
export function missingCandidates(existing: string): string[] {
  return [...new Set([existing.replace(/\d/g, '9'), existing.replace(/\d/g, '0'), `${existing}9`])].filter(
    (c) => c !== existing,
  );
}

/** Identifiers not well formed: a leading dash with the separators removed, then characters an identifier does not hold. */
export function malformedCandidates(existing: string): string[] {
  return [...new Set([`-${existing.replace(/[-_.]/g, '')}`, `${existing}!`, `!${existing}`, '..'])];
}

const codeOf = (body: string): string | undefined => {
  try {
    const o = JSON.parse(body) as Record<string, unknown>;
    // Only a code of the gateway's own shape is shown: the rest of a target's body is never printed.
    return typeof o.code === 'string' && /^[0-9A-Za-z-]{1,16}$/.test(o.code) ? o.code : undefined;
  } catch {
    return undefined;
  }
};

export async function findPeople(
  t: PeopleTarget,
  given: { existing?: string[]; missing?: string; malformed?: string },
  poster: TokenPoster = tokenPoster(t.caFile !== undefined ? { caFile: t.caFile } : {}),
): Promise<PeopleFound> {
  const found: PeopleFound = { lines: [] };
  try {
    const tokenAnswer = await poster.post(tokenUrl(t.authUrlUs, 'us'), {
      grant_type: 'client_credentials',
      client_id: t.clientId,
      client_secret: t.clientSecret,
      ...t.tokenParameters,
    });
    let token: string | undefined;
    try {
      token = (JSON.parse(tokenAnswer.body) as { access_token?: unknown }).access_token as string | undefined;
    } catch {
      token = undefined;
    }
    if (tokenAnswer.status !== 200 || typeof token !== 'string') {
      found.lines.push(`no token for usClient (HTTP ${tokenAnswer.status}): the identifiers were not checked`);
      return found;
    }
    const ask = async (id: string) => {
      const a = await poster.get(`${t.baseUrl.replace(/\/+$/, '')}/v1/people/er/${encodeURIComponent(id)}`, token);
      const code = codeOf(a.body);
      found.lines.push(`  ${id}: HTTP ${a.status}${code ? ` ${code}` : ''}`);
      return { status: a.status, code };
    };
    for (const id of given.existing ?? []) {
      if ((await ask(id)).status === 200) {
        found.existing = id;
        break;
      }
    }
    if (found.existing === undefined) return found;
    for (const id of given.missing !== undefined ? [given.missing] : missingCandidates(found.existing)) {
      const a = await ask(id);
      if (a.status === 404 && (a.code === undefined || a.code === '000-5003')) {
        found.missing = id;
        break;
      }
    }
    for (const id of given.malformed !== undefined ? [given.malformed] : malformedCandidates(found.existing)) {
      const a = await ask(id);
      if (a.status === 400 && (a.code === undefined || a.code === '000-5001')) {
        found.malformed = id;
        break;
      }
    }
    return found;
  } finally {
    await poster.close();
  }
}
