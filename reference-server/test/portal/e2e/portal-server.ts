// One reference server per Playwright worker, as a person would run it: the real binary over HTTPS
// (its generated certificate), test controls on (the clock), a temporary store file seeded from the
// bundled seed at a cheap scrypt cost (the cost is in each hash, so the server verifies it cheaply
// and starts in about a second), and a low sign-in lock (3 failures) so the throttling test is short.
// Its log (stderr) is kept in the test output folder.
import { spawn } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { createWriteStream, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { seededStoreFile } from '../../reliability/support/server-process.ts';

const root = join(import.meta.dirname, '..', '..', '..', '..');

export interface PortalServer {
  baseUrl: string;
  caFile: string;
  /** base64 SHA-256 of the certificate's public key (SPKI), for Chromium's pin list. */
  spkiHash: string;
  /** A JSON request to the server, trusting its certificate (never turning verification off). */
  call(
    method: 'GET' | 'POST',
    path: string,
    options?: { form?: Record<string, string>; json?: unknown; bearer?: string },
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /** The server's log so far (stderr, pino JSON lines). */
  log(): string;
  stop(): Promise<void>;
}

const START_SAFETY_NET_MS = 180_000;

export async function startPortalServer(logFile: string, env: NodeJS.ProcessEnv = {}): Promise<PortalServer> {
  const { dir, file } = await seededStoreFile();
  const child = spawn(
    process.execPath,
    [
      join(root, 'bin', 'token-conformance.js'),
      'serve',
      '--port',
      '0',
      '--data',
      file,
      '--test-controls',
      '--lockout-user',
      '3',
    ],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TC_LOG_LEVEL: 'info', ...env },
    },
  );
  const log = createWriteStream(logFile);
  child.stderr.pipe(log);
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = await new Promise<{ baseUrl: string; caFile: string }>((resolve, reject) => {
    // The start is awaited on its events (the listening line, the exit); this is only a safety net
    // against a start that never ends, far above a start on a busy machine.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `the reference server printed no listening line within ${START_SAFETY_NET_MS / 1000} s (waited for its {"event":"listening"} line on stdout; its log: ${logFile})`,
        ),
      );
    }, START_SAFETY_NET_MS);
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line) as { baseUrl: string; caFile: string });
    });
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the reference server exited with ${code} before listening (log: ${logFile})`));
    });
  });
  const ca = readFileSync(listening.caFile, 'utf8');
  const spki = new X509Certificate(ca).publicKey.export({ type: 'spki', format: 'der' });
  const agent = new Agent({ connect: { ca } });
  return {
    baseUrl: listening.baseUrl,
    caFile: listening.caFile,
    spkiHash: createHash('sha256').update(spki).digest('base64'),
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { accept: 'application/json' };
      let body: string | undefined;
      if (options.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(options.form).toString();
      } else if (options.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(options.json);
      }
      if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
      const r = await request(`${listening.baseUrl}${path}`, { method, headers, body, dispatcher: agent });
      const text = await r.body.text();
      return { status: r.statusCode, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    async stop() {
      await agent.close();
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exit;
        clearTimeout(timer);
      }
      await new Promise<void>((resolve) => log.end(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
