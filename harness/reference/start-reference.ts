// Starts the bundled reference server as a child process, exactly as any target would run: no
// import of its code. Reads its one `listening` JSON line from stdout; its logs (stderr) go to a
// file outside reports/. stop() sends SIGTERM and waits.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from '../catalogue/catalogue.ts';
import type { TargetProfile } from '../profile/profile.schema.ts';

export interface ListeningLine {
  event: 'listening';
  authUrlUs: string;
  authUrlEu: string;
  baseUrl: string;
  caFile?: string;
  env?: string;
  testControls?: boolean | Record<string, unknown>;
}

export interface ReferenceServer {
  listening: ListeningLine;
  logFile: string;
  stop(): Promise<void>;
}

export class ReferenceStartError extends Error {}

/** The reference server's test-control paths (reference-server/src/http/test-clock-routes.ts, gateway/test-controls.ts). */
export const referenceControlPaths = { clock: '/__test/clock', faults: '/__test/faults' } as const;

export async function startReference(options: { logDir: string; extraArgs?: string[]; timeoutMs?: number }): Promise<ReferenceServer> {
  const logFile = join(options.logDir, 'reference-server.log');
  const log = createWriteStream(logFile, { mode: 0o600 });
  const args = [join(repoRoot, 'bin', 'token-conformance.js'), 'serve', '--port', '0', '--data', ':memory:', '--test-controls', ...(options.extraArgs ?? [])];
  const child: ChildProcess = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  child.stderr!.pipe(log);
  let stderrTail = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2000);
  });
  const tail = () => (stderrTail.trim() ? `\n${stderrTail.trim().split('\n').slice(-10).join('\n')}` : '');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const listening = await new Promise<ListeningLine>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new ReferenceStartError(`the reference server did not report 'listening' within ${(options.timeoutMs ?? 30_000) / 1000} s${tail()}`));
    }, options.timeoutMs ?? 30_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        log.write(`${line}\n`);
        return;
      }
      if (parsed && typeof parsed === 'object' && (parsed as { event?: unknown }).event === 'listening') {
        clearTimeout(timer);
        resolve(parsed as ListeningLine);
      } else log.write(`${line}\n`);
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new ReferenceStartError(`could not start the reference server: ${e.message}`));
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new ReferenceStartError(`the reference server exited with code ${code} before listening${tail()}`));
    });
  });

  return {
    listening,
    logFile,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      log.end();
    },
  };
}

/** The profile with the started server's addresses, CA and test-control URLs. */
export function applyListening(profile: TargetProfile, l: ListeningLine): TargetProfile {
  const controls = l.testControls;
  const pick = (re: RegExp): string | undefined => {
    if (!controls || typeof controls !== 'object') return undefined;
    const hit = Object.entries(controls).find(([k, v]) => re.test(k) && typeof v === 'string');
    return hit?.[1] as string | undefined;
  };
  const withControls = controls !== false && controls !== undefined;
  return {
    ...profile,
    authUrlUs: l.authUrlUs,
    authUrlEu: l.authUrlEu,
    baseUrl: l.baseUrl,
    ...(l.caFile ? { caFile: l.caFile } : {}),
    ...(l.env === 'sandbox' || l.env === 'production' ? { environment: l.env } : {}),
    capabilities: {
      ...profile.capabilities,
      ...(withControls ? {
        clockControlUrl: pick(/clock/i) ?? `${l.authUrlUs.replace(/\/+$/, '')}${referenceControlPaths.clock}`,
        faultControlUrl: pick(/fault/i) ?? `${l.baseUrl.replace(/\/+$/, '')}${referenceControlPaths.faults}`,
      } : {}),
    },
  };
}

/** Server flags that make the started server match the profile's declared thresholds. */
export function referenceArgsFor(profile: TargetProfile): string[] {
  const r = profile.capabilities.rateLimit;
  return r ? ['--rate-spike', String(r.spikePerSecond), '--rate-quota', String(r.quotaPerWindow), '--rate-window', String(r.windowSeconds)] : [];
}
