// The run manifest: what `run` writes is what every reader gets back, typed; a run without one reads
// the defaults; a bad file is one clear error naming it, never a half-read run.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { readRunManifest, runManifestEnvVar, RunManifestError, writeRunManifest } from '../run/run-manifest.ts';

void describe('run manifest', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tc-run-manifest-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  void test('written once, read back typed, named by one variable, private to the user', () => {
    const env = writeRunManifest(dir, {
      profile: '/p.json',
      level: 'must',
      strict: true,
      seed: 7,
      shard: '1/2',
      filtered: true,
    });
    assert.deepEqual(Object.keys(env), [runManifestEnvVar]);
    const read = readRunManifest(env);
    assert.deepEqual(
      {
        profile: read.profile,
        level: read.level,
        strict: read.strict,
        seed: read.seed,
        shard: read.shard,
        filtered: read.filtered,
        quiet: read.quiet,
      },
      { profile: '/p.json', level: 'must', strict: true, seed: 7, shard: '1/2', filtered: true, quiet: false },
    );
    assert.equal(statSync(env[runManifestEnvVar]).mode & 0o777, 0o600);
  });

  void test('no manifest named: the defaults (a direct Playwright run before its global setup)', () => {
    assert.deepEqual(readRunManifest({}), {
      level: 'all',
      strict: false,
      filtered: false,
      verifiedByRun: false,
      keepWorkerAfterFailedCheck: false,
      quiet: false,
      // Allure results only when asked for (`run --allure`).
      allure: false,
    });
  });

  void test('an unknown setting is refused when written; an unreadable or invalid file is one error naming it', () => {
    assert.throws(() => writeRunManifest(dir, { levl: 'must' } as never), /levl/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"level":"most"}');
    assert.throws(
      () => readRunManifest({ [runManifestEnvVar]: bad }),
      (e: Error) => e instanceof RunManifestError && e.message.includes(bad) && /level/.test(e.message),
    );
    writeFileSync(bad, 'not json');
    assert.throws(
      () => readRunManifest({ [runManifestEnvVar]: bad }),
      (e: Error) => e instanceof RunManifestError && e.message.startsWith(`${runManifestEnvVar} names ${bad}`),
    );
  });
});
