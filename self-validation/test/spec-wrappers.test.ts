// The spec wrappers outlive a run: rewritten only when their text changes (so Playwright's transform
// cache, keyed by path and text, compiles them once), and a fault's directory holds exactly its
// current wrappers (its project loads every wrapper file there).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { writeSpecWrappers } from '../batch-specs.ts';

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();

void test('a wrapper whose text is unchanged is left as it is; a changed one is rewritten; files of an earlier selection are removed', (t) => {
  const specsDir = mkdtempSync(join(tmpdir(), 'sv-wrappers-'));
  t.after(() => rmSync(specsDir, { recursive: true, force: true }));
  const fault = { id: 'some-fault', expectBroken: ['TOKEN-RESP-001'] };
  const [first, second] = writeSpecWrappers(specsDir, fault, [
    'specs/token-responses/success-response-format.spec.ts',
    'specs/bearer/bearer-credentials.spec.ts',
  ]);
  const before = statSync(first!, { bigint: true });
  // A leftover of a crashed run and a wrapper of a spec the fault no longer selects.
  const faultDir = join(specsDir, 'sv~some-fault');
  mkdirSync(join(faultDir, 'specs', 'gateway'), { recursive: true });
  writeFileSync(join(faultDir, 'specs', 'gateway', 'authentication.spec.mts'), 'stale');
  writeFileSync(`${first}.123.tmp`, 'half');

  const again = writeSpecWrappers(specsDir, fault, ['specs/token-responses/success-response-format.spec.ts']);

  assert.deepEqual(again, [first]);
  const after = statSync(first!, { bigint: true });
  assert.equal(after.ino, before.ino, 'an unchanged wrapper is not rewritten');
  assert.equal(after.mtimeNs, before.mtimeNs);
  assert.deepEqual(filesUnder(faultDir), ['specs/token-responses/success-response-format.spec.mts']);
  assert.ok(second);

  writeSpecWrappers(specsDir, { ...fault, expectBroken: ['TOKEN-RESP-002'] }, [
    'specs/token-responses/success-response-format.spec.ts',
  ]);
  assert.match(readFileSync(first!, 'utf8'), /expectBroken: \["TOKEN-RESP-002"\]/);
  assert.deepEqual(filesUnder(faultDir), ['specs/token-responses/success-response-format.spec.mts']);
});

void test("another fault's wrappers are left alone", (t) => {
  const specsDir = mkdtempSync(join(tmpdir(), 'sv-wrappers-'));
  t.after(() => rmSync(specsDir, { recursive: true, force: true }));
  writeSpecWrappers(specsDir, { id: 'a', expectBroken: [] }, ['specs/bearer/bearer-credentials.spec.ts']);
  writeSpecWrappers(specsDir, { id: 'b', expectBroken: [] }, ['specs/gateway/authentication.spec.ts']);
  assert.deepEqual(filesUnder(specsDir), [
    'sv~a/specs/bearer/bearer-credentials.spec.mts',
    'sv~b/specs/gateway/authentication.spec.mts',
  ]);
});
