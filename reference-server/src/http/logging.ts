// Logs go to stderr (never stdout: stdout carries the one `listening` line) and never contain a
// secret, a password or a token: requests are logged as method + path (no query string, no
// headers, no body), responses as status, errors with their message and stack only. The redact
// list is a second line of defence for anything logged by hand.
import { pino, type DestinationStream, type Logger } from 'pino';

interface LoggedRequest {
  method?: string;
  url?: string;
}
interface LoggedReply {
  statusCode?: number;
}

/** The path of a request URL, without the query string (whose values could be credentials). */
export function pathOnly(url: string | undefined): string {
  if (url === undefined) return '';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

export const logSerializers = {
  req: (req: LoggedRequest) => ({ method: req.method, path: pathOnly(req.url) }),
  res: (reply: LoggedReply) => ({ statusCode: reply.statusCode }),
  err: pino.stdSerializers.err,
};

export const redactPaths = [
  'client_secret',
  'password',
  'access_token',
  'refresh_token',
  'authorization',
  '*.client_secret',
  '*.password',
  '*.access_token',
  '*.refresh_token',
  '*.authorization',
  '*.headers',
];

export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: 'reference-server' },
      serializers: logSerializers,
      redact: { paths: redactPaths, censor: '[redacted]' },
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}
