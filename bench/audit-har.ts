// The audit row of the bench: a HAR of `mib` MiB generated at bench time (never committed) — token
// requests of every grant, protected calls, refusals, and now and then a large response body —
// then `token-conformance audit` of it in a child process: wall time and the child's peak RSS.
// Run at two sizes, the peak shows whether memory stays bounded as the file grows (streamed).
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { harEntry, writeHarEntries } from '../harness/audit/har-writer.ts';
import type { HeaderList, RecordedExchange } from '../harness/audit/index.ts';

export interface AuditHarResult {
  harMiB: number;
  exchanges: number;
  seconds: number;
  peakRssMiB: number;
  exitCode: number;
}

const origin = 'https://127.0.0.1:8443';
const json = (status: number, body: unknown, extra: HeaderList = []) => ({
  status,
  headers: [
    ['content-type', 'application/json'],
    ['cache-control', 'no-store'],
    ['pragma', 'no-cache'],
    ['strict-transport-security', 'max-age=31536000'],
    ...extra,
  ] as HeaderList,
  body: { text: JSON.stringify(body), size: 0 },
});

/** Synthetic but plausible traffic: one client's cycle of grants and calls, repeated with fresh tokens. */
function* traffic(targetBytes: number): Generator<RecordedExchange> {
  let t = Date.UTC(2026, 0, 1);
  let i = 0;
  let bytes = 0;
  const big = 'x'.repeat(256 * 1024);
  const post = (form: string, response: ReturnType<typeof json>): RecordedExchange => ({
    index: i,
    startedAt: new Date((t += 50)).toISOString(),
    durationMs: 5,
    request: {
      method: 'POST',
      url: `${origin}/api/v1/auth/oauth2/token`,
      headers: [['content-type', 'application/x-www-form-urlencoded']],
      body: { text: form, size: form.length },
    },
    response,
  });
  const get = (token: string | undefined, response: ReturnType<typeof json>): RecordedExchange => ({
    index: i,
    startedAt: new Date((t += 50)).toISOString(),
    durationMs: 5,
    request: {
      method: 'GET',
      url: `${origin}/v1/people/er/E-1001`,
      headers: [
        ['accept', 'application/json'],
        ...(token ? [['authorization', `Bearer ${token}`] as [string, string]] : []),
      ],
      body: { size: 0 },
    },
    response,
  });
  while (bytes < targetBytes) {
    const n = i;
    const at = `eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1cy1jYy1jbGllbnQiLCJuIjo${n}fQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbi0wMTIzNDU2Nzg5`;
    const rt = `rt-${n}-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789`;
    const rt2 = `rt2-${n}-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789`;
    const cycle = [
      post(
        'grant_type=client_credentials&client_id=us-cc-client&client_secret=us-cc-secret.sandbox~0001',
        json(200, { access_token: `${at}cc`, token_type: 'Bearer', expires_in: 3600 }),
      ),
      get(`${at}cc`, json(200, { identifier: 'E-1001', name: 'Ada Lovelace' })),
      post(
        'grant_type=password&client_id=us-pw-client&client_secret=us-pw-secret.sandbox~0004&username=acme%5Calice&password=Alice-pass-2024%21',
        json(200, {
          access_token: `${at}pw`,
          token_type: 'Bearer',
          expires_in: 604800,
          refresh_token: rt,
          scope: 'email openid profile company',
        }),
      ),
      post(
        `grant_type=refresh_token&client_id=us-pw-client&client_secret=us-pw-secret.sandbox~0004&refresh_token=${rt}`,
        json(200, {
          access_token: `${at}rt`,
          token_type: 'Bearer',
          expires_in: 604800,
          refresh_token: rt2,
          scope: 'email openid profile company',
        }),
      ),
      get(
        `${at}rt`,
        n % 200 === 0
          ? json(200, { identifier: 'E-1001', notes: big })
          : json(200, { identifier: 'E-1001', name: 'Ada Lovelace' }),
      ),
      get(
        undefined,
        json(401, { code: '000-1201', message: 'Unauthorized' }, [['www-authenticate', 'Bearer realm="api"']]),
      ),
    ];
    for (const e of cycle) {
      i += 1;
      bytes += (e.request.body.text?.length ?? 0) + (e.response?.body.text?.length ?? 0) + 700;
      yield e;
    }
  }
}

export async function generateHar(file: string, mib: number): Promise<number> {
  return writeHarEntries(
    file,
    (function* () {
      for (const e of traffic(mib * 1024 * 1024)) yield harEntry(e);
    })(),
    'token-conformance bench',
  );
}

/** Audits `har` in a child process; its peak RSS comes from the child itself (process.resourceUsage). */
export function auditInChild(
  root: string,
  har: string,
  out: string,
): Promise<Omit<AuditHarResult, 'harMiB' | 'exchanges'>> {
  const script = `const { auditMain } = await import(${JSON.stringify(join(root, 'harness', 'commands', 'audit.command.ts'))});
const code = await auditMain([${JSON.stringify(har)}, '--out', ${JSON.stringify(out)}], { out: () => {}, err: (l) => process.stderr.write(l + '\\n') });
process.stdout.write(JSON.stringify({ code, maxRssKiB: process.resourceUsage().maxRSS }));`;
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.on('error', reject);
    child.on('exit', (exitCode) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      try {
        const r = JSON.parse(stdout) as { code: number; maxRssKiB: number };
        resolve({ seconds, peakRssMiB: r.maxRssKiB / 1024, exitCode: exitCode === 0 ? r.code : (exitCode ?? 1) });
      } catch {
        reject(new Error(`the audit child exited ${exitCode} without its result`));
      }
    });
  });
}

export async function measureAuditHar(root: string, tempDir: string, mib: number): Promise<AuditHarResult> {
  const har = join(tempDir, `bench-${mib}mib.har`);
  const exchanges = await generateHar(har, mib);
  const run = await auditInChild(root, har, join(tempDir, `audit-${mib}`));
  return { harMiB: statSync(har).size / (1024 * 1024), exchanges, ...run };
}
