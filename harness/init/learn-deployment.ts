// What a deployment demands of a token request beyond the spec's parameters, learned by `init` from
// the target itself: one token request per client whose secret is set. A client served as the spec
// says needs nothing; a refused one gets what the refusal points to — an `invalid_scope`, an answer
// naming `scope`, or a bare 403 that the parameters the user gives (or types at the prompt) fix —
// and only parameters the target was seen accepting are written as verified. Nothing the target
// sends is printed but its status and an OAuth error code of the RFC's own alphabet.
import type { ShapedGrant } from '../../core/profile/token-parameters.ts';
import type { RawAnswer, TokenPoster } from '../preflight/token-post.ts';
import { parametersFor, type ClientTokenParameters } from './token-parameters-flag.ts';

/** The clients `init` can ask for a token, and the grant each is for; the others are never expected to get one. */
export const probedGrants: Partial<Record<string, { grant: ShapedGrant; region: 'us' | 'eu' }>> = {
  usClient: { grant: 'client_credentials', region: 'us' },
  usCcOnlyClient: { grant: 'client_credentials', region: 'us' },
  usWrongRoleClient: { grant: 'client_credentials', region: 'us' },
  rateLimitClient: { grant: 'client_credentials', region: 'us' },
  usLongSecretClient: { grant: 'client_credentials', region: 'us' },
  euClient: { grant: 'client_credentials', region: 'eu' },
  usPasswordClient: { grant: 'password', region: 'us' },
  usClient2: { grant: 'password', region: 'us' },
};

export interface ClientProbe {
  name: string;
  clientId: string;
  clientSecret: string;
  grant: ShapedGrant;
  tokenUrl: string;
  /** The password grant's user (the profile's `user`). */
  user?: { username: string; password: string };
  declared?: ClientTokenParameters;
}

export interface Learned {
  /** What to write as the client's tokenParameters (as declared, or as learned). */
  parameters?: ClientTokenParameters;
  /** A token was issued with exactly the parameters written (none, or these). */
  verified: boolean;
  /** An access token issued on the way (for the people probe); never printed. */
  token?: string;
  lines: string[];
}

/** Asks one question on the terminal; empty for "none". */
export type AskLine = (question: string) => Promise<string>;

const accessTokenOf = (answer: RawAnswer): string | undefined => {
  if (answer.status !== 200) return undefined;
  try {
    const token = (JSON.parse(answer.body) as { access_token?: unknown }).access_token;
    return typeof token === 'string' && token !== '' ? token : undefined;
  } catch {
    return undefined;
  }
};

const errorBody = (answer: RawAnswer): { error?: string; description?: string } => {
  try {
    const body = JSON.parse(answer.body) as { error?: unknown; error_description?: unknown };
    return {
      ...(typeof body.error === 'string' ? { error: body.error } : {}),
      ...(typeof body.error_description === 'string' ? { description: body.error_description } : {}),
    };
  } catch {
    return {};
  }
};

/** The answer in the tool's words: the status, and the OAuth error code when it is one (RFC 6749 §5.2 codes are lower-case words). */
export function describeRefusal(answer: RawAnswer): string {
  const { error } = errorBody(answer);
  const code = error !== undefined && /^[a-z_]{1,40}$/.test(error) ? ` ${error}` : '';
  const body = answer.body.trim() === '' ? ', no body' : '';
  return `HTTP ${answer.status}${code}${body}`;
}

/** Whether a refusal points at a missing or unacceptable `scope`. */
export function pointsAtScope(answer: RawAnswer): boolean {
  const { error, description } = errorBody(answer);
  return error === 'invalid_scope' || /\bscope\b/i.test(`${error ?? ''} ${description ?? ''}`);
}

function parseTyped(answer: string): Record<string, string> | undefined {
  const params = Object.fromEntries(new URLSearchParams(answer.trim()));
  return Object.keys(params).length > 0 ? params : undefined;
}

/** One client: asks the target for a token as the suite would, and learns what it demands. */
export async function learnClient(probe: ClientProbe, poster: TokenPoster, ask?: AskLine): Promise<Learned> {
  const form: Record<string, string> = {
    grant_type: probe.grant,
    client_id: probe.clientId,
    client_secret: probe.clientSecret,
    ...(probe.user ? { username: probe.user.username, password: probe.user.password } : {}),
  };
  const declared = parametersFor(probe.declared, probe.grant);
  const shown = (params: Record<string, string>) =>
    Object.keys(params)
      .map((k) => `${k}=…`)
      .join('&');
  if (Object.keys(declared).length > 0) {
    const answer = await poster.post(probe.tokenUrl, { ...form, ...declared });
    const token = accessTokenOf(answer);
    return token
      ? {
          parameters: probe.declared!,
          verified: true,
          token,
          lines: [`  ${probe.name} (${probe.grant}): a token with ${shown(declared)} as given: verified`],
        }
      : {
          parameters: probe.declared!,
          verified: false,
          lines: [
            `  ${probe.name} (${probe.grant}): refused with ${shown(declared)} as given (${describeRefusal(answer)}): written as given, not verified`,
          ],
        };
  }
  const plain = await poster.post(probe.tokenUrl, form);
  const token = accessTokenOf(plain);
  if (token)
    return { verified: true, token, lines: [`  ${probe.name} (${probe.grant}): a token without extra parameters`] };
  const scope = pointsAtScope(plain);
  const lines = [
    `  ${probe.name} (${probe.grant}): no token (${describeRefusal(plain)})${scope ? ': the answer names `scope`, this deployment demands one' : ''}`,
  ];
  const typed = ask
    ? parseTyped(
        await ask(
          `The target issued no token to ${probe.name} (${describeRefusal(plain)}${scope ? ', naming scope' : ''}). The parameters it demands, NAME=VALUE joined by & (e.g. scope=people.read; empty: none): `,
        ),
      )
    : undefined;
  if (!typed) {
    lines.push(
      `  → if the deployment demands parameters (a scope, an audience), give them: --token-parameter ${probe.name}.${scope ? 'scope' : 'NAME'}=VALUE (init tries them before writing)`,
    );
    return { verified: false, lines };
  }
  const retried = await poster.post(probe.tokenUrl, { ...form, ...typed });
  const learnedToken = accessTokenOf(retried);
  const parameters: ClientTokenParameters = { kind: 'per-grant', grants: { [probe.grant]: typed } };
  if (learnedToken) {
    lines.push(`  ${probe.name} (${probe.grant}): a token with ${shown(typed)}: verified, written`);
    return { parameters, verified: true, token: learnedToken, lines };
  }
  lines.push(
    `  ${probe.name} (${probe.grant}): refused with ${shown(typed)} too (${describeRefusal(retried)}): written as given, not verified`,
  );
  return { parameters, verified: false, lines };
}
