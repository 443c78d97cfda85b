// `init` beyond the profile's shape: the output folder is created, the people identifiers are asked
// of the target, and the outlook says what the profile will verify and what it will SKIP and why.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { initMain } from '../commands/init.command.ts';
import type { ListedCheck } from '../commands/run-selection.ts';
import { findPeople } from '../init/find-people.ts';
import { outlookLines, profileOutlook } from '../init/profile-outlook.ts';
import type { RawAnswer, TokenPoster } from '../preflight/token-post.ts';
import { validateProfile } from '../../core/profile/load-profile.ts';
import { parseJsonc } from '../../core/profile/jsonc.ts';
import { capturedIo } from './support/captured-io.ts';

const dir = mkdtempSync(join(tmpdir(), 'tc-init-outlook-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const capture = capturedIo;

const check = (id: string, needs: string[], extra: { type: string; description: string }[] = []): ListedCheck => ({
  file: 'specs/x.spec.ts',
  title: `${id} check`,
  project: 'conformance',
  requirementIds: [id],
  annotations: [
    { type: 'requirement', description: id },
    ...needs.map((n) => ({ type: 'needs', description: n })),
    ...extra,
  ],
});

void describe('init: the output folder, the people identifiers, the outlook', () => {
  void test('--out in a folder that does not exist: the folder is created, the profile written (no stack trace)', async () => {
    const file = join(dir, 'conformance', 'nested', 'staging.jsonc');
    const c = capture();
    const code = await initMain(
      [
        '--out',
        file,
        '--name',
        'staging',
        '--auth-url-us',
        'https://auth.example.com',
        '--client',
        'usClient=abc',
        '--no-outlook',
      ],
      c.io,
    );
    assert.equal(code, 0, c.err.join('\n'));
    assert.match(readFileSync(file, 'utf8'), /"name": "staging"/);
  });

  void test('everything a full run benefits from becomes the profile: people, lifetimes, Basic, burnable user, rate limits, state file and key', async () => {
    const file = join(dir, 'full.jsonc');
    const c = capture();
    const code = await initMain(
      [
        '--out',
        file,
        '--name',
        'full',
        '--auth-url-us',
        'https://auth.example.com',
        '--base-url',
        'https://api.example.com',
        '--client',
        'usClient=abc',
        '--burnable-user',
        'acme\\dave',
        '--person-existing',
        'E-1',
        '--person-missing',
        'E-9',
        '--person-malformed=-E1',
        '--cc-lifetime',
        '3600',
        '--pw-lifetime',
        '600',
        '--basic',
        '--rate-limit',
        '50/1000/60',
        '--state',
        'full.state',
        '--no-outlook',
      ],
      c.io,
    );
    assert.equal(code, 0, c.err.join('\n'));
    const env = Object.fromEntries(
      c.out
        .filter((l) => l.startsWith('export '))
        .map((l) => [l.slice(7).split('=')[0]!, 'a-long-enough-secret-value']),
    );
    assert.ok('FULL_STATE_KEY' in env, c.out.join('\n'));
    const { profile } = validateProfile(parseJsonc(readFileSync(file, 'utf8')), file, { env });
    assert.deepEqual(profile.resources.people, { existing: 'E-1', missing: 'E-9', malformed: '-E1' });
    assert.deepEqual(
      [profile.expectations.ccLifetime, profile.expectations.pwLifetime, profile.capabilities.supportsBasic],
      [3600, 600, true],
    );
    assert.deepEqual(profile.capabilities.rateLimit, { spikePerSecond: 50, quotaPerWindow: 1000, windowSeconds: 60 });
    assert.deepEqual(
      profile.capabilities.load,
      { allowed: true, maxRequestsPerSecond: 110, maxRequests: 2400 },
      "known rate limits are checked by passing them: room for a burst past the spike and one window's quota",
    );
    assert.equal(profile.credentials.users.burnableUser?.username, 'acme\\dave');
    assert.deepEqual(profile.state?.key, { env: 'FULL_STATE_KEY' });
  });

  void test('a missing identifier without an existing one, a bad --rate-limit or lifetime: one line, exit 2, nothing written', async () => {
    for (const extra of [
      ['--person-missing', 'E-9'],
      ['--rate-limit', '50/1000'],
      ['--rate-limit', 'spike=5,spike=6'],
      ['--rate-limit', 'burst=5'],
      ['--rate-limit', 'spike=0'],
      ['--rate-limit', 'quota=100,'],
      ['--cc-lifetime', '1h'],
    ]) {
      const c = capture();
      assert.equal(
        await initMain(
          [
            '--out',
            join(dir, 'bad.jsonc'),
            '--name',
            'bad',
            '--auth-url-us',
            'https://a.example.com',
            ...extra,
            '--no-outlook',
          ],
          c.io,
        ),
        2,
        extra.join(' '),
      );
      assert.equal(c.err.length, 1, c.err.join('\n'));
    }
  });

  void test('--rate-limit takes only the numbers known: each is in the profile alone, with a load budget that passes it', async () => {
    for (const [flag, rateLimit, load] of [
      ['spike=5', { spikePerSecond: 5 }, { maxRequestsPerSecond: 20, maxRequests: 220 }],
      [
        'quota=100,window=60',
        { quotaPerWindow: 100, windowSeconds: 60 },
        { maxRequestsPerSecond: 12, maxRequests: 400 },
      ],
      [
        ' window=60 , spike=5',
        { windowSeconds: 60, spikePerSecond: 5 },
        { maxRequestsPerSecond: 20, maxRequests: 220 },
      ],
    ] as const) {
      const file = join(dir, `partial-rate-${flag.replace(/\W+/g, '-')}.jsonc`);
      const c = capture();
      const code = await initMain(
        [
          '--out',
          file,
          '--name',
          'partial',
          '--auth-url-us',
          'https://a.example.com',
          '--client',
          'usClient=abc',
          '--rate-limit',
          flag,
          '--no-outlook',
        ],
        c.io,
      );
      assert.equal(code, 0, c.err.join('\n'));
      const { profile } = validateProfile(parseJsonc(readFileSync(file, 'utf8')), file, {
        env: { PARTIAL_US_CLIENT_SECRET: 'a-long-enough-secret-value' },
      });
      assert.deepEqual(profile.capabilities.rateLimit, rateLimit, flag);
      assert.deepEqual(profile.capabilities.load, { allowed: true, ...load }, flag);
    }
  });

  void test('--find-people keeps the candidate the target answers 200 for and derives a missing and a malformed one it answers as the spec says', async () => {
    const asked: string[] = [];
    const answers: Record<string, RawAnswer> = {
      'E-1000': { status: 404, body: '{"code":"000-5003"}' },
      'E-1001': { status: 200, body: '{}' },
      'E-9999': { status: 404, body: '{"code":"000-5003"}' },
      '-E1001': { status: 400, body: '{"code":"000-5001"}' },
    };
    const poster: TokenPoster = {
      post: () => Promise.resolve({ status: 200, body: '{"access_token":"t"}' }),
      get: (url) => {
        const id = decodeURIComponent(url.split('/').at(-1)!);
        asked.push(id);
        return Promise.resolve(answers[id] ?? { status: 500, body: '' });
      },
      close: () => Promise.resolve(),
    };
    const found = await findPeople(
      { authUrlUs: 'https://a', baseUrl: 'https://b', clientId: 'c', clientSecret: 's' },
      { existing: ['E-1000', 'E-1001'] },
      poster,
    );
    assert.deepEqual([found.existing, found.missing, found.malformed], ['E-1001', 'E-9999', '-E1001']);
    assert.deepEqual(asked, ['E-1000', 'E-1001', 'E-9999', '-E1001']);
  });

  void test('the outlook: verifiable, over later runs with a state file, and what SKIPs with what would make it verifiable', () => {
    const { profile } = validateProfile(
      { name: 'o', authUrlUs: 'https://a.example.com', state: { file: 's.state', key: { env: 'K' } } },
      join(dir, 'o.json'),
      { env: { K: 'k' } },
    );
    const checks = [
      check('GRANT-CC-001', ['us']),
      check('GRANT-RT-003', ['us', 'user:burnableUser']),
      check('STATE-AT-EXP-001', ['us', 'clock-control'], [{ type: 'obligation', description: 'records' }]),
      check('STATE-AT-EXP-002', ['us', 'clock-control']),
      check('GRANT-CC-002', ['eu']),
    ];
    const o = profileOutlook(profile, checks, [
      'GRANT-CC-001',
      'GRANT-RT-003',
      'STATE-AT-EXP-001',
      'STATE-AT-EXP-002',
      'GRANT-CC-002',
    ]);
    assert.deepEqual(
      [o.verifiable, o.overRuns, o.notApplicable],
      [['GRANT-CC-001'], ['STATE-AT-EXP-001'], ['GRANT-CC-002']],
    );
    const lines = outlookLines(o);
    assert.match(
      lines[0]!,
      /^This profile lets a run verify up to 1 of 5 requirements, and 1 more over later runs .*; 1 do not apply/,
    );
    assert.ok(
      lines.some((l) =>
        /1 × profile has no credentials\.users\.burnableUser — declare a burnable user .*: GRANT-RT-003/.test(l),
      ),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) =>
        /1 × target has no clock control — add clock control or a state file .*: STATE-AT-EXP-002/.test(l),
      ),
      lines.join('\n'),
    );
  });
});
