// The restart control of the reference servers a run started (capabilities.restartControlUrl; the
// protocol is in profiles/README.md): a loopback HTTP endpoint of the process that owns them, one
// path per server. POST starts a restart of that server (its process stopped and started again on
// the same store, port and certificate) and answers 202 with the restart's number; GET ?restart=n
// answers as soon as restart n is over — at once when it already is, else after a few seconds with
// `serving: false` (a long poll: the caller asks again, nothing sleeps). Only the run's own servers
// are restartable: a real target's restart is its deployment's business (across runs: the state file).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReferenceServer } from './start-reference.ts';

/** How long a GET waits for a restart under way before it answers `serving: false`. */
const longPollMs = 5_000;

export interface RestartControl {
  /** Makes a server restartable under `name` (one started with a data file); returns its restart control URL. */
  register(name: string, server: Restartable): string;
  close(): Promise<void>;
}

/** What the control restarts: a started reference server, or whatever stands for the target (the self-validation's fault in force). */
export type Restartable = Pick<ReferenceServer, 'restart'>;

interface Restarts {
  server: Restartable;
  /** Number of the last restart asked for, and the promise of the last one (restarts run one after the other). */
  count: number;
  last: Promise<void>;
  done: number;
  failure?: string;
}

/** Notified after each restart of a server (the self-validation's faults that simulate a volatile store). */
export type OnRestarted = (name: string) => void;

export async function startRestartControl(onRestarted?: OnRestarted): Promise<RestartControl> {
  const state = new Map<string, Restarts>();
  const answer = (res: ServerResponse, status: number, body: unknown): void => {
    res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(`${JSON.stringify(body)}\n`);
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://restart.invalid');
    const name = decodeURIComponent(url.pathname.replace(/^\/restart\//, ''));
    const r = url.pathname.startsWith('/restart/') ? state.get(name) : undefined;
    req.resume();
    if (!r) return answer(res, 404, { error: `no restartable server at ${url.pathname}` });
    if (req.method === 'POST') {
      const n = ++r.count;
      r.last = r.last
        .then(() => r.server.restart!())
        .then(
          () => {
            r.done = n;
            onRestarted?.(name);
          },
          (error: unknown) => {
            r.failure = (error as Error).message;
          },
        );
      return answer(res, 202, { restart: n });
    }
    if (req.method !== 'GET') return answer(res, 405, { error: 'POST restarts, GET ?restart=n waits for it' });
    const n = Number(url.searchParams.get('restart') ?? r.count);
    const report = () =>
      r.failure !== undefined
        ? answer(res, 500, { restart: n, serving: false, error: r.failure })
        : answer(res, 200, { restart: n, serving: r.done >= n });
    if (r.done >= n || r.failure !== undefined) return report();
    const timer = setTimeout(report, longPollMs);
    void r.last.then(() => {
      clearTimeout(timer);
      if (!res.headersSent) report();
    });
  };
  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    register(name, server) {
      if (!server.restart)
        throw new Error(
          `reference server ${name} has no store that outlives its process (started without a data file): it cannot be restarted`,
        );
      state.set(name, { server, count: 0, last: Promise.resolve(), done: 0 });
      return `${origin}/restart/${encodeURIComponent(name)}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
