// A hostile target for tests: a loopback HTTP server that answers every string it controls with
// the text payloads (error, error_description, error_uri, token_type, scope, header values, the
// gateway's code and message), and a profile that points the suite at it. It issues tokens to the
// profile's clients so that checks get past their first request and carry its text further.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../../../core/catalogue/catalogue.ts';
import { parseJsonc } from '../../../../core/profile/jsonc.ts';
import type { TargetProfile } from '../../../../core/profile/profile.schema.ts';
import { tokenPaths } from '../../../../schemas/token-paths.ts';
import { allTextPayloads } from './text-payloads.ts';

export interface TextTargetOptions {
  /** The access token the target issues (default: a fresh random-looking value per request). */
  accessToken?: () => string;
  /** Text the target puts in every error's description (default: the whole corpus). */
  errorText?: string;
}

export interface TextTarget {
  origin: string;
  /** The reference profile with every address moved here, no clock or fault control. */
  profile: TargetProfile;
  /** Tokens issued so far. */
  issued: string[];
  close(): Promise<void>;
}

/** Header values cannot carry controls or line breaks: the printable payloads only. */
const headerText = allTextPayloads.replace(/[^\t\u0020-\u007e]/g, '').slice(0, 2000);

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.once('end', () => resolve(body));
    req.once('error', reject);
  });

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'www-authenticate': `Bearer error="${headerText.replace(/"/g, "'")}"`,
    'x-target-says': headerText,
  });
  res.end(JSON.stringify(body));
}

export async function startTextTarget(options: TextTargetOptions = {}): Promise<TextTarget> {
  const text = options.errorText ?? allTextPayloads;
  const issued: string[] = [];
  let count = 0;
  const nextToken = options.accessToken ?? (() => `Hx${(count += 1)}q${Math.random().toString(36).slice(2)}Z9k`);
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'POST' && (path === tokenPaths.us || path === tokenPaths.eu)) {
      const form = new URLSearchParams(body);
      const grant = form.get('grant_type');
      const secret = form.get('client_secret') ?? '';
      if ((grant === 'client_credentials' || grant === 'password') && secret.length > 0 && !secret.includes('wrong')) {
        const token = nextToken();
        issued.push(token);
        send(res, 200, { access_token: token, token_type: text, expires_in: 3600, scope: text });
        return;
      }
      send(res, 400, { error: text, error_description: text, error_uri: `http://evil.example/${text}` });
      return;
    }
    send(res, 401, { code: text, message: text });
  };
  const server: Server = createServer((req, res) => {
    answer(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const reference = parseJsonc(readFileSync(join(repoRoot, 'profiles', 'reference.json'), 'utf8')) as TargetProfile;
  const capabilities = { ...reference.capabilities };
  delete capabilities.clockControlUrl;
  delete capabilities.faultControlUrl;
  const profile: TargetProfile = {
    ...reference,
    name: 'hostile text target',
    local: true,
    authUrlUs: origin,
    authUrlEu: origin,
    baseUrl: origin,
    capabilities,
  };
  return {
    origin,
    profile,
    issued,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
