// A small gateway in front of one protected route, GET /v1/people/er/{identifier}, shared by the
// independent targets. It accepts the access tokens of either region by asking the target's own
// token store (`findToken`: what the library's introspection does internally — an expired, unknown
// or revoked token is not found) and answers the spec's 000- codes where a simple gateway can
// tell: a JSON body {code, message}, the statuses of the reference interpretation.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { peopleReaderRole, type TargetClient, type TargetUser } from './principals.ts';

/** What the gateway needs of a live access token: whose it is. */
export interface LiveToken {
  clientId: string;
  /** The user's username for a password-grant token; undefined for client_credentials. */
  accountId?: string;
}
/** The target's own lookup of an access token: undefined when it is unknown, expired or revoked. */
export type FindToken = (value: string) => Promise<LiveToken | undefined>;

const messages: Record<string, [number, string]> = {
  '000-1000': [400, 'Bad Request'],
  '000-1001': [400, 'Invalid Host'],
  '000-1002': [400, 'Invalid Target'],
  '000-1010': [400, 'Invalid URI'],
  '000-1020': [400, 'Invalid/missing version'],
  '000-1100': [403, 'Forbidden'],
  '000-1101': [403, 'Forbidden'],
  '000-1201': [401, 'Unauthorized'],
  '000-1202': [401, 'Unauthorized'],
  '000-1205': [401, 'token parse error'],
  '000-2100': [400, 'Malformed request syntax'],
  '000-2102': [400, 'Malformed request syntax'],
  '000-2110': [400, 'Malformed request syntax'],
  '000-4000': [403, 'Forbidden: Invalid path'],
  '000-5001': [400, 'Bad Request'],
  '000-5003': [404, 'Not Found'],
  '000-5004': [404, 'Not Found'],
};

/** The backend's people records (the profile's resources.people.existing). */
const people = new Map([['E-1001', { identifier: 'E-1001', name: 'Ada Lovelace' }]]);
const identifierPattern = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;
/** RFC 6750 §2.1 b64token. */
const b64token = /^[A-Za-z0-9\-._~+/]+=*$/;

function errorBody(code: string): [number, string] {
  const [status, message] = messages[code]!;
  return [status, JSON.stringify({ code, message })];
}

function reject(res: ServerResponse, code: string, challenge?: string): void {
  const [status, body] = errorBody(code);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (status === 401) headers['www-authenticate'] = challenge ?? 'Bearer';
  res.writeHead(status, headers).end(body);
}

/**
 * Node's HTTP parser refuses what it cannot frame (conflicting Content-Length, broken chunking)
 * before any handler runs: answer it with 000-1000 instead of Node's empty 400.
 */
export function rejectUnframable(_error: Error, socket: Duplex): void {
  if (!socket.writable) return;
  const [, body] = errorBody('000-1000');
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Whether a query string parses: valid percent-escapes, no parameter repeated. */
function queryParses(query: string): boolean {
  const names = new Set<string>();
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    try {
      const name = decodeURIComponent(pair.split('=', 1)[0]!.replace(/\+/g, ' '));
      decodeURIComponent((pair.split('=')[1] ?? '').replace(/\+/g, ' '));
      if (names.has(name)) return false;
      names.add(name);
    } catch {
      return false;
    }
  }
  return true;
}

/** Path segments after percent-decoding; undefined for a malformed path (bad escape, control character, dot-segment). */
function decodeSegments(path: string): string[] | undefined {
  const segments = path.split('/').slice(1);
  const decoded: string[] = [];
  for (const raw of segments) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    if (segment === '.' || segment === '..' || /[\u0000-\u001f\u007f]/.test(segment)) return undefined;
    decoded.push(segment);
  }
  return decoded;
}

/** Whether an Accept header admits JSON; undefined when it is not a media-range list. */
function acceptsJson(accept: string): boolean | undefined {
  const token = "[a-z0-9!#$%&'*+.^_`|~-]+";
  const range = new RegExp(`^${token}/${token}(\\s*;\\s*${token}=(${token}|"[^"]*"))*$`);
  const ranges = accept
    .toLowerCase()
    .split(',')
    .map((r) => r.trim());
  if (ranges.some((r) => !range.test(r))) return undefined;
  return ranges
    .map((r) => r.split(';')[0]!)
    .some((r) => r === 'application/json' || r === 'application/*' || r === '*/*');
}

/**
 * `behindProxy`: the gateway is reached through a proxy on another port (the bench's latency
 * proxy), which forwards the client's Host unchanged, as a reverse proxy in front of a real gateway
 * does: any port of its own host names is then served (a Host naming another host still is not).
 */
export function createGateway(
  origin: string,
  findToken: FindToken,
  clients: TargetClient[],
  users: TargetUser[],
  behindProxy = false,
): RequestListener {
  const { port } = new URL(origin);
  const servedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const served = (host: string): boolean =>
    servedHosts.has(host) || (behindProxy && /^(127\.0\.0\.1|localhost):\d{1,5}$/.test(host));
  const clientRoles = new Map(clients.filter((c) => c.dataServicesRole).map((c) => [c.clientId, c.dataServicesRole!]));
  const userRoles = new Map(users.map((u) => [u.username, u.role]));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const hosts = req.headersDistinct.host ?? [];
    if (hosts.length !== 1 || !served(hosts[0]!.toLowerCase())) return reject(res, '000-1001');
    const target = req.url ?? '';
    if (!target.startsWith('/')) return reject(res, '000-1002');
    const queryAt = target.indexOf('?');
    const path = queryAt < 0 ? target : target.slice(0, queryAt);
    if (queryAt >= 0 && !queryParses(target.slice(queryAt + 1))) return reject(res, '000-2110');
    const segments = decodeSegments(path);
    if (!segments) return reject(res, '000-1010');
    if (segments[0] !== 'v1') return reject(res, '000-1020');
    const [, collection, kind, identifier, sub, ...rest] = segments;
    const exposed =
      collection === 'people' &&
      kind === 'er' &&
      identifier !== undefined &&
      rest.length === 0 &&
      (sub === undefined || sub === 'history');
    if (!exposed || req.method !== 'GET') return reject(res, '000-4000');
    if (Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined)
      return reject(res, '000-1000');

    const authorizations = req.headersDistinct.authorization ?? [];
    if (authorizations.length > 1) return reject(res, '000-2102');
    const accept = req.headers.accept;
    if (accept !== undefined) {
      const json = acceptsJson(accept);
      if (json === undefined) return reject(res, '000-2100');
      if (!json) return reject(res, '000-2102');
    }
    const authorization = authorizations[0];
    const match = authorization === undefined ? null : /^Bearer(?: (.*))?$/i.exec(authorization);
    if (!match) return reject(res, '000-1201');
    const value = match[1] ?? '';
    if (!b64token.test(value))
      return reject(res, '000-1205', 'Bearer error="invalid_token", error_description="token parse error"');
    const token = await findToken(value);
    if (!token)
      return reject(res, '000-1202', 'Bearer error="invalid_token", error_description="the access token is not valid"');
    const clientRole = clientRoles.get(token.clientId);
    if (clientRole === undefined) return reject(res, '000-1100');
    const role = token.accountId === undefined ? clientRole : userRoles.get(token.accountId);
    if (role !== peopleReaderRole) return reject(res, '000-1101');

    if (sub === 'history') return reject(res, '000-5004');
    if (!identifierPattern.test(identifier)) return reject(res, '000-5001');
    const person = people.get(identifier);
    if (!person) return reject(res, '000-5003');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(person));
  }

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`gateway error: ${String(error)}\n`);
      if (!res.headersSent)
        res
          .writeHead(502, { 'content-type': 'application/json' })
          .end(JSON.stringify({ code: '000-1004', message: 'Invalid Gateway Error' }));
    });
  };
}
