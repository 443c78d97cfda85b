// The "Try the service by hand" walkthrough (docs/try-it-by-hand.md) runs as written: its curl block,
// executed by bash against a reference server started as the document says (only the port is a free one).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..', '..');

/** The shell blocks of one section of docs/try-it-by-hand.md. */
function shellBlocks(heading: string): string[] {
  const doc = readFileSync(join(root, 'docs', 'try-it-by-hand.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith(heading));
  assert.ok(section, `docs/try-it-by-hand.md has a section "${heading}"`);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

void test('docs/try-it-by-hand.md "Try the service by hand": every call answers as its comment says', async () => {
  const [serve, walkthrough] = shellBlocks('Try the service by hand');
  assert.match(serve!, /^npx token-conformance serve --http --port 8080 --data :memory: --test-controls\n$/);
  const server = spawn(
    process.execPath,
    [
      join(root, 'bin', 'token-conformance.js'),
      'serve',
      '--http',
      '--port',
      '0',
      '--data',
      ':memory:',
      '--test-controls',
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise((resolve) => server.once('exit', resolve));
  const pwFile = join(root, 'reports', `readme-pw-${process.pid}.json`);
  try {
    const origin = await new Promise<string>((resolve, reject) => {
      createInterface({ input: server.stdout }).on('line', (l) => {
        if (l.includes('"listening"')) resolve((JSON.parse(l) as { authUrlUs: string }).authUrlUs);
      });
      server.once('exit', (code) => reject(new Error(`serve exited (${code})`)));
    });
    assert.match(walkthrough!, /^T=http:\/\/127\.0\.0\.1:8080\n/);
    mkdirSync(join(root, 'reports'), { recursive: true });
    const script = walkthrough!
      .replace(/^T=http:\/\/127\.0\.0\.1:8080\n/, `T=${origin}\n`)
      .replaceAll('/tmp/pw.json', pwFile);
    // curl prints bodies without a newline: a wrapper ends each with one (the script runs unchanged).
    const out = execFileSync(
      'bash',
      ['-c', `set -eu\ncurl() { command curl "$@"; echo; }\ncd ${JSON.stringify(root)}\n${script}`],
      { encoding: 'utf8' },
    );
    const lines = out.split('\n').filter((l) => l.trim() !== '');
    const json = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    // In order: cc token, password token (tee), refresh-free people call, 000-1201, 000-1205,
    // refresh, invalid_grant, revoked 000-1202, clock moved, expired 000-1202.
    const shape = json.map((j) =>
      'access_token' in j
        ? `token${'refresh_token' in j ? '+refresh' : ''}`
        : 'code' in j
          ? String(j.code)
          : 'error' in j
            ? String(j.error)
            : 'identifier' in j || 'id' in j
              ? 'person'
              : Object.keys(j).join(','),
    );
    assert.deepEqual(
      shape.filter((s) => !/^(now|advanced|clock)/.test(s)),
      [
        'token',
        'token+refresh',
        'person',
        '000-1201',
        '000-1205',
        'token+refresh',
        'invalid_grant',
        '000-1202',
        '000-1202',
      ],
      out,
    );
  } finally {
    rmSync(pwFile, { force: true });
    server.kill('SIGTERM');
    await exited;
  }
});
