// LIMIT-RATE-004 against a rate limit keyed on the forwarded address, with clock control and without
// (a staging target's profile), and against a target that refuses every call: the check sees calls
// the limit lets through before it judges the calls beyond, so that a refusal of everything never
// reads PASS. One reference server on the self-validation's thresholds, one switching proxy in front
// with the planted faults:
//   - `forwarded-address-rate-key` with a clock, after every check that spends the rateLimitClient's
//     quota on that clock (they run first, in file order, as in a whole run): FAIL, beside PASSes of
//     LIMIT-RATE-001 and ERR-GW-2000;
//   - the same fault without clock control, or with a profile that declares the spike limit alone:
//     the spike limit in real time, FAIL;
//   - `every-protected-call-rate-limited`, with a clock and without: BLOCKED by BEARER-001 (which
//     FAILs in the same run), never PASS;
//   - no fault, without clock control: PASS in real time.
// Then each rate-limit number on its own, on the clean target: the spike limit alone, the quota and
// its window alone; the checks that need a number left out SKIP naming it.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { loadProfile } from '../../core/profile/load-profile.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import {
  applyListening,
  referenceArgsFor,
  startReference,
  type ReferenceServer,
} from '../reference/start-reference.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { unjudgedBlocks } from '../reporter/unjudged-blocks.ts';
import { faults } from '../../self-validation/faults/index.ts';
import { startSwitchingProxy, type SwitchingProxy } from '../../self-validation/proxy.ts';
import { rateLimitSpecs, selfValidationRateLimit } from '../../self-validation/run/rate-limits.ts';
import { runCli } from './support/run-cli.ts';
import { asStagingTarget, throughProxy } from './support/staging-profile.ts';

const id = 'LIMIT-RATE-004';
const planted = ['forwarded-address-rate-key', 'every-protected-call-rate-limited'] as const;
type Member = (typeof planted)[number] | 'clean';

const dir = mkdtempSync(join(tmpdir(), 'tc-forwarded-address-limit-'));
let server: ReferenceServer | undefined;
let proxy: SwitchingProxy | undefined;
let withClock: TargetProfile;

before(async () => {
  const reference = loadProfile(join(repoRoot, 'profiles', 'reference.json')).profile;
  const limited = {
    ...reference,
    capabilities: { ...reference.capabilities, rateLimit: { ...selfValidationRateLimit } },
  };
  server = await startReference({ logDir: dir, extraArgs: referenceArgsFor(limited) });
  const direct = applyListening(limited, server.listening);
  const upstream = new URL(direct.authUrlUs!).origin;
  const upstreamCa = readFileSync(direct.caFile!, 'utf8');
  const env = { clients: {}, users: {} };
  proxy = await startSwitchingProxy({
    members: [
      { id: 'clean', upstream, upstreamCa },
      ...planted.map((f) => ({ id: f, upstream, upstreamCa, fault: faults.find((x) => x.id === f)!.create(env) })),
    ],
    dir,
  });
  // The clock control through the proxy too (its certificate is the one the profile trusts); the faults leave it alone.
  const through = throughProxy(direct, upstream, proxy);
  const capabilities = { ...through.capabilities };
  delete capabilities.faultControlUrl;
  capabilities.clockControlUrl = `${proxy.url}${new URL(direct.capabilities.clockControlUrl!).pathname}`;
  withClock = { ...through, capabilities };
});

after(async () => {
  await proxy?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let runs = 0;

/** One run of `grep`'s checks of `specs` through `member`; the report. */
async function run(
  member: Member,
  profile: TargetProfile,
  grep: string,
  specs: string[],
  extra: string[] = [],
): Promise<{ report: ConformanceReport; out: string; verdict: (id: string) => string | undefined }> {
  await proxy!.select(member);
  runs += 1;
  const profileFile = join(dir, `profile-${runs}.json`);
  const reports = join(dir, `reports-${runs}`);
  writeFileSync(profileFile, JSON.stringify(profile, null, 2));
  const r = await runCli([
    'run',
    '--target',
    profileFile,
    '--reports',
    reports,
    '--grep',
    grep,
    ...specs.flatMap((s) => ['--spec', s]),
    ...extra,
  ]);
  assert.ok(existsSync(join(reports, 'conformance.json')), `the run wrote no report (exit ${r.code}):\n${r.out}`);
  const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceReport;
  return { report, out: r.out, verdict: (q) => report.requirements.find((x) => x.id === q)?.verdict };
}

const staging = (realTimeWaitSeconds?: number): TargetProfile => {
  const p = asStagingTarget(withClock);
  return realTimeWaitSeconds === undefined ? p : { ...p, capabilities: { ...p.capabilities, realTimeWaitSeconds } };
};

void describe(`${id}: the control first, with and without clock control`, () => {
  void test('a limit keyed on the forwarded address, after the checks that spend the same quota on the clock: FAIL', async () => {
    const r = await run('forwarded-address-rate-key', withClock, '@(LIMIT-RATE-00[14]|ERR-GW-2000)\\b', rateLimitSpecs);
    assert.equal(r.verdict(id), 'FAIL', r.out);
    assert.equal(r.verdict('LIMIT-RATE-001'), 'PASS', r.out);
    assert.equal(r.verdict('ERR-GW-2000'), 'PASS', r.out);
  });

  void test('the same limit on a target without clock control (the spike limit in real time): FAIL', async () => {
    const r = await run('forwarded-address-rate-key', staging(), '@LIMIT-RATE-00[14]\\b', rateLimitSpecs);
    assert.equal(r.verdict(id), 'FAIL', r.out);
    assert.match(r.report.requirements.find((x) => x.id === id)?.reason ?? '', /spikePerSecond .* in real time/);
  });

  void test('a profile that declares the spike limit alone, with clock control (the spike limit in real time): FAIL', async () => {
    const rateLimit = { spikePerSecond: selfValidationRateLimit.spikePerSecond };
    const spikeOnly = { ...withClock, capabilities: { ...withClock.capabilities, rateLimit } };
    const r = await run('forwarded-address-rate-key', spikeOnly, '@LIMIT-RATE-004\\b', rateLimitSpecs);
    assert.equal(r.verdict(id), 'FAIL', r.out);
    assert.match(
      r.report.requirements.find((x) => x.id === id)?.reason ?? '',
      /spikePerSecond .* in real time \(the profile declares no quota\)/,
    );
  });

  for (const clock of [true, false]) {
    void test(`a target that refuses every protected call, ${clock ? 'with' : 'without'} clock control: BLOCKED by BEARER-001, which FAILs`, async () => {
      // Without a clock the check may wait the fault's Retry-After of 1 s, then sees the limit still refuse.
      const r = await run(
        'every-protected-call-rate-limited',
        clock ? withClock : staging(2),
        `@(${id}|BEARER-001)\\b`,
        ['specs/limits/rate-limits.spec.ts', 'specs/bearer/bearer-credentials.spec.ts'],
        // The preflight stops a run whose every call is rate-limited (a setup problem): judged here on purpose.
        ['--skip-preflight'],
      );
      const result = r.report.requirements.find((x) => x.id === id);
      assert.equal(result?.verdict, 'BLOCKED', r.out);
      assert.ok(result?.blockedBy?.includes('BEARER-001'), JSON.stringify(result));
      assert.match(result?.reason ?? '', /no call was accepted before the limit/);
      assert.equal(r.verdict('BEARER-001'), 'FAIL', r.out);
      assert.deepEqual(unjudgedBlocks(r.report), []);
    });
  }

  void test('no fault, without clock control: PASS in real time', async () => {
    const r = await run('clean', staging(), `@${id}\\b`, ['specs/limits/rate-limits.spec.ts']);
    assert.equal(r.verdict(id), 'PASS', r.out);
  });
});

// Each rate-limit number on its own, against the clean target with clock control: a check runs on
// the numbers it needs and SKIPs naming the one the profile leaves out. The spike-only run leaves
// ERR-GW-2001 and LIMIT-RATE-002 out: their real-time bursts share the real-time quota window with
// the runs before, and a spent quota answers 000-2000 where ERR-GW-2001 wants the spike's code.
void describe('each rate-limit number on its own: the checks run on what is declared', () => {
  const quotaMissing = 'not declared: capabilities.rateLimit.quotaPerWindow, capabilities.rateLimit.windowSeconds';
  const spikeMissing = 'not declared: capabilities.rateLimit.spikePerSecond';
  const combinations: {
    name: string;
    rateLimit: Record<string, number>;
    grep: string;
    expected: [title: RegExp, verdict: string, reason?: string][];
  }[] = [
    {
      name: 'the spike limit alone: the spike checks run, the quota checks SKIP naming quotaPerWindow and windowSeconds',
      rateLimit: { spikePerSecond: selfValidationRateLimit.spikePerSecond },
      grep: '@(LIMIT-RATE-00[14]|ERR-GW-2000)\\b',
      expected: [
        [/LIMIT-RATE-001 protected calls of one client beyond spikePerSecond/, 'PASS'],
        [/LIMIT-RATE-001 protected calls of one client beyond quotaPerWindow/, 'SKIP', quotaMissing],
        [/ERR-GW-2000 .*\(clock-driven\)/, 'SKIP', quotaMissing],
        [/LIMIT-RATE-004 /, 'PASS'],
      ],
    },
    {
      name: 'the quota and its window alone: the quota checks run, the spike checks SKIP naming spikePerSecond',
      rateLimit: {
        quotaPerWindow: selfValidationRateLimit.quotaPerWindow,
        windowSeconds: selfValidationRateLimit.windowSeconds,
      },
      grep: '@(LIMIT-RATE-00[124]|ERR-GW-200[01])\\b',
      expected: [
        [/LIMIT-RATE-001 protected calls of one client beyond spikePerSecond/, 'SKIP', spikeMissing],
        [/LIMIT-RATE-002 /, 'SKIP', spikeMissing],
        [/ERR-GW-2001 /, 'SKIP', spikeMissing],
        [/LIMIT-RATE-001 protected calls of one client beyond quotaPerWindow/, 'PASS'],
        [/ERR-GW-2000 .*\(clock-driven\)/, 'PASS'],
        [/LIMIT-RATE-004 /, 'PASS'],
      ],
    },
  ];
  for (const c of combinations) {
    void test(c.name, async () => {
      const profile = { ...withClock, capabilities: { ...withClock.capabilities, rateLimit: c.rateLimit } };
      const r = await run('clean', profile, c.grep, rateLimitSpecs);
      const checks = r.report.requirements.flatMap((x) => x.checks);
      for (const [title, verdict, reason] of c.expected) {
        const found = checks.filter((x) => title.test(x.title));
        assert.equal(found.length, 1, `${title}: ${found.length} checks\n${r.out}`);
        assert.equal(found[0]!.verdict, verdict, `${title}: ${JSON.stringify(found[0])}\n${r.out}`);
        if (reason !== undefined) assert.equal(found[0]!.reason, reason, String(title));
      }
    });
  }
});
