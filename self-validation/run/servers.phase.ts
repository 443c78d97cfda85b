// Starting the faulted target: the shared reference servers, and the servers of the faults that
// need one besides them (still starting while the proxies and Playwright start).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedProfile } from '../../core/profile/load-profile.ts';
import { withOtherEnvironmentToken } from '../../core/profile/worker-profile.ts';
import {
  referenceArgsFor,
  startReference,
  startReferenceServers,
  type ReferenceServer,
  type ReferenceServers,
} from '../../harness/reference/start-reference.ts';
import type { Fault, FaultEnv } from '../fault.ts';
import type { FaultResult } from '../matrix.ts';
import type { Candidate } from './grouping.phase.ts';
import { problemResult, type Planning } from './planning.phase.ts';
import { withSelfValidationRateLimit } from './rate-limits.ts';
import type { Started } from './started.ts';

/** The shared sandbox server (and its production twin) and one fresh server per fault that needs its own. */
export interface Servers {
  shared: ReferenceServers;
  /** The reference profile, with the other environment's token when the production server gave one. */
  withToken: LoadedProfile;
  env: FaultEnv;
  /** The server of each fault that needs one besides the shared sandbox, still starting while Playwright starts (a rejection: it did not start). */
  freshOf: Map<string, Promise<ReferenceServer>>;
  /** Every fresh start settled (stopping waits for it: a server that starts late is stopped too). */
  freshSettled: Promise<unknown>;
  /** When each fresh server was up, in ms since the servers began starting. */
  freshUpMs: number[];
  /** How many servers were started besides the shared pair. */
  freshStarts?: number;
  seedHashCache: string;
}

function faultEnv(loaded: LoadedProfile, otherEnvironmentToken: string | undefined): FaultEnv {
  const secret = (path: string) => loaded.secrets.find((s) => s.path === path)?.value ?? '';
  const clients = Object.fromEntries(
    Object.entries(loaded.profile.credentials.clients)
      .filter(([, c]) => c)
      .map(([name, c]) => [
        name,
        { clientId: c.clientId, clientSecret: secret(`credentials.clients.${name}.clientSecret`) },
      ]),
  );
  const users = Object.fromEntries(
    Object.entries(loaded.profile.credentials.users)
      .filter(([, u]) => u)
      .map(([name, u]) => [name, { username: u.username, password: secret(`credentials.users.${name}.password`) }]),
  );
  return { clients, users, ...(otherEnvironmentToken ? { otherEnvironmentToken } : {}) };
}

/** Starts each item with at most `limit` starts under way at once (server starts are CPU-heavy on two cores); one promise per item. */
function startLimited<T, R>(items: T[], limit: number, start: (item: T) => Promise<R>): Promise<R>[] {
  let running = 0;
  const queue: (() => void)[] = [];
  const slot = () =>
    running < limit
      ? (running++, Promise.resolve())
      : new Promise<void>((resolve) =>
          queue.push(() => {
            running++;
            resolve();
          }),
        );
  const release = () => {
    running--;
    queue.shift()?.();
  };
  return items.map(async (item) => {
    await slot();
    try {
      return await start(item);
    } finally {
      release();
    }
  });
}

/**
 * The servers' logs go to the run's temporary directory and are removed with it (read only when a
 * server fails to start: its warnings and errors): a line per request of dozens of servers is CPU
 * for nothing (the server's serialisation, the runner's pipe to the file).
 */
const quietServer = ['--log-level', 'warn'];

/** The shared sandbox, with a production server for the other environment's token. */
export async function startServers(loaded: LoadedProfile, temp: string, started: Started): Promise<Servers> {
  // Every server of the run hashes the seed's secrets once between them (the shared pair while it
  // starts, the fresh ones from its hashes); otherwise each server pays scrypt's deliberate cost for
  // every seeded secret.
  const seedHashCache = join(temp, 'seed-hashes.json');
  const shared = await startReferenceServers({
    logDir: temp,
    profile: loaded.profile,
    seedHashCache,
    extraArgs: quietServer,
  });
  started.shared = shared;
  const withToken =
    shared.otherEnvironmentToken !== undefined
      ? withOtherEnvironmentToken(loaded, shared.otherEnvironmentToken)
      : loaded;
  const env = faultEnv(withToken, shared.otherEnvironmentToken);
  return { shared, withToken, env, seedHashCache, freshOf: new Map(), freshSettled: Promise.resolve(), freshUpMs: [] };
}

/**
 * The servers of the faults that need one besides the shared sandbox (needsFresh: a @clock/@serial
 * check moves a server's clock, switches its faults, spends quotas or locks users). The faults of
 * a group that need one only for that share one server, the group's: its checks run one at a time
 * on the group's one worker, as `run`'s serial pass runs every such check on one server. A fault
 * that declares `freshServer` (it burns state a later fault would see), runs on the
 * self-validation's rate limits or runs alone has a server of its own. They start while the proxies
 * and Playwright start: a fault's checks wait for its server at the fault switch
 * (fixtures/expected-failures.fixture.ts), not before the run; a fault whose server did not start
 * gets its problem (freshServerProblems).
 */
export function startFreshServers(
  parts: Candidate[][],
  planning: Planning,
  loaded: LoadedProfile,
  temp: string,
  started: Started,
  servers: Servers,
): void {
  const keyOf = (c: Candidate, part: Candidate[]) =>
    c.fault.freshServer !== undefined || c.rateLimits || part.length === 1 ? c.id : `group~${part[0]!.id}`;
  const byKey = new Map<string, Candidate[]>();
  for (const part of parts)
    for (const c of part)
      if (planning.needsFresh(c.fault)) byKey.set(keyOf(c, part), [...(byKey.get(keyOf(c, part)) ?? []), c]);
  const t0 = Date.now();
  const starts = startLimited([...byKey], 3, async ([key, members]) => {
    const dir = join(temp, `server-${key}`);
    mkdirSync(dir);
    // On a store file: the restart control (STATE-RT-USED-003) restarts it without losing what it issued.
    const profile = members[0]!.rateLimits ? withSelfValidationRateLimit(loaded.profile) : loaded.profile;
    const server = await startReference({
      logDir: dir,
      extraArgs: [...referenceArgsFor(profile), ...quietServer],
      seedHashCache: servers.seedHashCache,
      dataFile: join(dir, 'store.sqlite'),
    });
    started.servers.push(server);
    servers.freshUpMs.push(Date.now() - t0);
    // Started after everything was stopped (Ctrl-C): stopped at once.
    if (started.stopping) await server.stop();
    return server;
  });
  for (const p of starts) p.catch(() => undefined); // each failure is reported with its faults (freshServerProblems)
  [...byKey.entries()].forEach(([key, members], i) => {
    for (const c of members) {
      servers.freshOf.set(c.id, starts[i]!);
      if (key !== c.id) planning.onGroupServer.add(c.id);
    }
  });
  servers.freshSettled = Promise.allSettled(starts);
  servers.freshStarts = starts.length;
}

/** The faults whose own server did not start, with the reason: their results, whatever their checks did. */
export async function freshServerProblems(
  servers: Servers,
  planning: Planning,
  selected: Fault[],
  results: Map<string, FaultResult>,
): Promise<void> {
  for (const f of selected) {
    const start = servers.freshOf.get(f.id);
    const failure = start
      ? await start.then(
          () => undefined,
          (error: unknown) => error as Error,
        )
      : undefined;
    if (failure)
      results.set(f.id, problemResult(planning, f, `its reference server did not start: ${failure.message}`));
  }
}
