// The state file on its own: encrypted round trip, no plaintext credential, a wrong key, a damaged
// or foreign file, and the lock (a live holder refuses, a dead one's lock is stale and taken over).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Obligation } from '../../../core/obligations/obligation.ts';
import { emptyState, lockState, readState, StateFileError, writeState } from '../state-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'state-file-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const secret = 'state-file-test-secret-0123456789';
const credential = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.c2lnbmF0dXJlLXZhbHVlLWZvci10ZXN0';

function obligation(): Obligation {
  return {
    id: 'o-1',
    check: 'a › check',
    requirements: ['STATE-AT-EXP-001'],
    kind: 'expired-access-token-refused',
    expect: 'status-401',
    what: 'refused once expired',
    recordedRun: 'r1',
    recordedAt: new Date(0).toISOString(),
    issued: { localFrom: new Date(0).toISOString(), localTo: new Date(0).toISOString() },
    clock: 'local',
    notBefore: 3_600_000,
    credential: {
      kind: 'access-token',
      value: credential,
      region: 'us',
      client: 'usClient',
      clientId: 'c',
      grant: 'client_credentials',
      expiresIn: 3600,
    },
    principalFingerprint: 'f',
  };
}

void describe('state file', () => {
  const file = join(dir, 'state.json');

  void test('round trip, encrypted: the credential is not in the file', () => {
    writeState(file, secret, { ...emptyState('t'), obligations: [obligation()] });
    assert.ok(!readFileSync(file, 'utf8').includes(credential));
    assert.ok(!readFileSync(file, 'utf8').includes('refused once expired'), 'nothing of the content is in clear');
    assert.equal(readState(file, secret, 'KEY', 't').obligations[0]!.credential.value, credential);
    assert.ok(!existsSync(`${file}.tmp-${process.pid}`), 'no temporary file left');
  });

  void test('a missing file is an empty state', () => {
    assert.deepEqual(readState(join(dir, 'none.json'), secret, 'KEY', 't').obligations, []);
  });

  void test("a wrong key, a damaged, truncated, foreign or other target's file: StateFileError, one line", () => {
    const text = readFileSync(file, 'utf8');
    assert.throws(
      () => readState(file, 'another-secret-0123456789', 'KEY', 't'),
      (e: Error) => e instanceof StateFileError && /KEY .*wrong key/.test(e.message),
    );
    const envelope = JSON.parse(text) as { data: string };
    const damaged = join(dir, 'damaged.json');
    // One character of the ciphertext changed: always another one (the data is random, and may begin with A).
    const changed = envelope.data.startsWith('A') ? 'B' : 'A';
    writeFileSync(damaged, JSON.stringify({ ...envelope, data: `${changed}${envelope.data.slice(1)}` }));
    assert.throws(() => readState(damaged, secret, 'KEY', 't'), /damaged/);
    writeFileSync(damaged, text.slice(0, 40));
    assert.throws(() => readState(damaged, secret, 'KEY', 't'), /not a token-conformance state file/);
    writeFileSync(damaged, '{"hello":"world"}');
    assert.throws(() => readState(damaged, secret, 'KEY', 't'), /not a token-conformance state file/);
    assert.throws(() => readState(file, secret, 'KEY', 'other'), /belongs to target "t"/);
    for (const f of [file, damaged]) assert.doesNotThrow(() => readFileSync(f), 'files left in place');
  });

  void test("the lock: a live holder refuses a second taker; a gone holder's lock is stale and taken over", () => {
    const first = lockState(file);
    assert.throws(
      () => lockState(file),
      (e: Error) => e instanceof StateFileError && e.message.includes(`pid ${process.pid}`),
    );
    first.release();
    // A pid that is gone: a child that has exited.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    writeFileSync(
      `${file}.lock`,
      JSON.stringify({ pid: Number(gone), host: hostname(), since: new Date().toISOString() }),
    );
    const taken = lockState(file);
    assert.match(taken.note ?? '', /stale lock/);
    taken.release();
    assert.ok(!existsSync(`${file}.lock`));
  });
});
