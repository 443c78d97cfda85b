// An end-to-end check of its own test stage (`npm test -- obligations`, scripts/test-stages.ts):
// many full runs of the suite, so named .check.ts to stay out of the unit stage.
// What it proves: against the reference server run WITHOUT clock control in the profile, the
// time-dependent checks record obligations (PENDING, an encrypted state file, no token in plain
// text anywhere); the test moves the server's clock from outside (its control endpoint, which the
// profile does not know) and later runs settle them to PASS — or, with a planted fault (tokens
// that never expire; a late refresh honoured, i.e. a refresh token's lifetime extended), to FAIL
// under the right IDs only. A wrong key, a truncated state file and a concurrent second run are
// refused with exit 2 and the state file byte-identical.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Agent, request } from 'undici';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { loadProfile } from '../../core/profile/load-profile.ts';
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import {
  applyListening,
  referenceArgsFor,
  startReference,
  type ReferenceServer,
} from '../reference/start-reference.ts';
import { startProxy, type ProxyFault, type RunningProxy } from '../../self-validation/proxy.ts';
import {
  bearerOf,
  field,
  freshToken,
  grantOf,
  isToken,
  targetNow,
  tokenBody,
  withBearer,
} from '../../self-validation/faults/helpers.ts';
import { recordIssuance, type Issued } from '../../self-validation/faults/lifecycle.ts';
import { lockState } from '../obligations/state-file.ts';
import { runCli as runCliWith } from './support/run-cli.ts';
import { asStagingTarget, throughProxy } from './support/staging-profile.ts';

const keyEnv = 'TOKEN_CONFORMANCE_TEST_STATE_KEY';
const key = 'obligations-test-key-0123456789abcdef';

/** The time-dependent checks (the IDs whose checks record obligations), and their settling checks. */
const timeDependent = [
  'STATE-AT-EXP-001',
  'STATE-AT-EXP-002',
  'STATE-RT-UNUSED-002',
  'STATE-RT-EXP-001',
  'STATE-RT-EXP-002',
  'STATE-RT-EXP-003',
  'LIMIT-AT-LIFETIME-001',
  'LIMIT-RT-LIFETIME-001',
  'ERR-GW-1202',
  'BEARER-020',
];
const grep = `@(${timeDependent.join('|')})\\b`;
/** Only the spec files that hold them: Playwright loads no other spec. */
const specs = [
  'specs/lifecycle/access-token.spec.ts',
  'specs/lifecycle/refresh-token.spec.ts',
  'specs/limits/lifetimes.spec.ts',
  'specs/gateway/authentication.spec.ts',
  'specs/bearer/bearer-challenge.spec.ts',
  'specs/obligations/settle.spec.ts',
];

interface Check {
  title: string;
  status: string;
  annotations: { type: string; description?: string }[];
}
interface RunResult {
  code: number;
  out: string;
  checks: Check[];
}

const runCli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCliWith(args, { [keyEnv]: key, ...env });

class Target {
  readonly dir = mkdtempSync(join(tmpdir(), 'obligations-test-'));
  readonly stateFile = join(this.dir, 'state.json');
  readonly profileFile = join(this.dir, 'profile.json');
  readonly reports = join(this.dir, 'reports');
  server?: ReferenceServer;
  proxy?: RunningProxy;
  private agent?: Agent;
  private clockUrl = '';

  constructor(private readonly withState = true) {}

  async start(
    fault?: ProxyFault,
    serverArgs: string[] = [],
    patch: (p: TargetProfile) => TargetProfile = (p) => p,
  ): Promise<void> {
    const reference = patch(loadProfile(join(repoRoot, 'profiles', 'reference.json')).profile);
    this.server = await startReference({
      logDir: this.dir,
      extraArgs: [...referenceArgsFor(reference), ...serverArgs],
    });
    const listening = applyListening(reference, this.server.listening);
    this.clockUrl = listening.capabilities.clockControlUrl!;
    this.agent = new Agent({ connect: { ca: readFileSync(listening.caFile!, 'utf8') } });
    let profile: TargetProfile = listening;
    if (fault) {
      const upstream = new URL(listening.authUrlUs!).origin;
      this.proxy = await startProxy({
        upstream,
        upstreamCa: readFileSync(listening.caFile!, 'utf8'),
        fault,
        dir: this.dir,
      });
      profile = throughProxy(profile, upstream, this.proxy);
    }
    // The profile a staging target would have: no clock control, no fault control; a state key.
    writeFileSync(
      this.profileFile,
      JSON.stringify(asStagingTarget(profile, this.withState ? keyEnv : undefined), null, 2),
    );
  }

  /** Deactivates a user from outside (the reference's principal control), as an administrator would. */
  async deactivate(tenant: string, userName: string): Promise<void> {
    const url = new URL('/__test/principals/deactivate', this.clockUrl).toString();
    const res = await request(url, {
      method: 'POST',
      dispatcher: this.agent!,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'user', tenant, userName }),
    });
    await res.body.dump();
    assert.equal(res.statusCode, 200);
  }

  /** Moves the server's clock from outside, through its control endpoint (the profile does not know it). */
  async advance(seconds: number): Promise<void> {
    const res = await request(this.clockUrl, {
      method: 'POST',
      dispatcher: this.agent!,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: seconds }),
    });
    await res.body.dump();
    assert.equal(res.statusCode, 200);
  }

  async run(extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
    const { code, out } = await runCli(
      [
        'run',
        '--target',
        this.profileFile,
        ...(this.withState ? ['--state', this.stateFile] : []),
        '--reports',
        this.reports,
        '--grep',
        grep,
        '--reporter',
        'list',
        ...specs.flatMap((s) => ['--spec', s]),
        ...extra,
      ],
      env,
    );
    return { code, out, checks: checksOf(this.reports) };
  }

  async stop(): Promise<void> {
    await this.proxy?.close();
    await this.server?.stop();
    await this.agent?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const unescapeXml = (v: string) =>
  v
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * The checks of a run with their annotations: Playwright's JUnit files carry every annotation as a
 * property (checks.json carries `pending`/`settled` once the reporter reads them; not needed here).
 */
function checksOf(reports: string): Check[] {
  const checks: Check[] = [];
  for (const name of ['junit.xml', 'junit-time-travel.xml']) {
    const file = join(reports, name);
    if (!existsSync(file)) continue;
    for (const chunk of readFileSync(file, 'utf8').split('<testcase ').slice(1)) {
      const body = chunk.slice(0, chunk.indexOf('</testcase>') >= 0 ? chunk.indexOf('</testcase>') : undefined);
      const title = unescapeXml(/name="([^"]*)"/.exec(body)?.[1] ?? '');
      const annotations = [...body.matchAll(/<property name="([^"]*)" value="([^"]*)"/g)].map((m) => ({
        type: m[1]!,
        description: unescapeXml(m[2]!),
      }));
      const status =
        body.includes('<failure') || body.includes('<error ')
          ? 'failed'
          : body.includes('<skipped')
            ? 'skipped'
            : 'passed';
      checks.push({ title, status, annotations });
    }
  }
  return checks;
}

const annotationsOf = (checks: Check[], type: string) =>
  checks.flatMap((c) =>
    c.annotations
      .filter((a) => a.type === type)
      .map((a) => ({ check: c, value: JSON.parse(a.description ?? '{}') as Record<string, string> })),
  );
const requirementsOf = (c: Check) =>
  c.annotations.filter((a) => a.type === 'requirement').map((a) => a.description ?? '');

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

/** The tokens the run saw are not in the state file or anywhere under the reports directory. */
function assertNoPlainToken(t: Target, tokens: string[]): void {
  assert.ok(tokens.length > 0, 'the run saw tokens');
  for (const file of [t.stateFile, ...filesUnder(t.reports)]) {
    const text = readFileSync(file, 'latin1');
    for (const token of tokens) assert.ok(!text.includes(token), `${file} holds a token in plain text`);
  }
}

/** Outcome by requirement of the settled obligations of a run: 'STATE-AT-EXP-001' → ['PASS', …]. */
function settlements(r: RunResult): Map<string, string[]> {
  const byId = new Map<string, string[]>();
  for (const { check, value } of annotationsOf(r.checks, 'settled')) {
    for (const id of requirementsOf(check)) byId.set(id, [...(byId.get(id) ?? []), value.outcome!]);
  }
  return byId;
}

/** The requirements named by `broke` annotations of the run's failed checks. */
function broken(r: RunResult): string[] {
  return [
    ...new Set(
      r.checks
        .filter((c) => c.status === 'failed')
        .flatMap((c) =>
          c.annotations.filter((a) => a.type === 'broke').map((a) => (a.description ?? '').split(' ')[0]!),
        ),
    ),
  ].sort();
}

const day = 24 * 3600;
const show = (r: RunResult) => (process.env.OBLIGATIONS_TEST_VERBOSE ? console.log(r.out) : undefined);

void describe('obligations against a target without clock control', () => {
  const t = new Target();
  const seen = join(t.dir, 'seen.txt');
  before(() => t.start());
  after(() => (process.env.KEEP_OBLIGATIONS_TEST ? undefined : t.stop()));

  void test('run 1 records obligations (PENDING, encrypted state); the clock moves; later runs settle them to PASS', async () => {
    const one = await t.run(['--keep-seen-tokens', seen]);
    show(one);
    assert.equal(one.code, 0, one.out);
    const pending = annotationsOf(one.checks, 'pending');
    assert.deepEqual(
      [...new Set(pending.flatMap(({ check }) => requirementsOf(check)))].sort(),
      [...timeDependent].sort(),
      `every time-dependent requirement is PENDING:\n${one.out}`,
    );
    assert.ok(
      pending.every(({ value }) => value.obligation && !Number.isNaN(Date.parse(value.due!)) && value.what),
      'each pending annotation names its obligation, due time and what',
    );
    assert.match(one.out, /state .*state\.json written: 0 settled .*, 13 recorded, 13 open obligations/);
    assertNoPlainToken(
      t,
      readFileSync(seen, 'utf8')
        .split('\n')
        .filter((l) => l.length >= 8),
    );

    // +1 h: the client_credentials tokens (3600 s) expired; the window of "accepted until 3595 s" closed unseen.
    await t.advance(3600 + 100);
    const two = await t.run();
    show(two);
    assert.equal(two.code, 0, two.out);
    // The settled credentials (run 1's tokens) are in no report of the run that sent them again.
    assertNoPlainToken(
      t,
      readFileSync(seen, 'utf8')
        .split('\n')
        .filter((l) => l.length >= 8),
    );
    const s2 = settlements(two);
    for (const id of ['STATE-AT-EXP-001', 'STATE-AT-EXP-002', 'ERR-GW-1202', 'BEARER-020'])
      assert.deepEqual(s2.get(id), ['PASS'], `${id} settled PASS:\n${two.out}`);
    assert.deepEqual(s2.get('LIMIT-AT-LIFETIME-001'), ['VOID'], 'the closed window reads VOID (expired)');
    assert.ok(
      two.checks.some(
        (c) =>
          c.status === 'skipped' &&
          c.annotations.some((a) => a.type === 'settled' && a.description?.includes('expired')),
      ),
      'VOID is a SKIP with "expired"',
    );

    // +4 days: inside the password access token's last half (604800 s).
    await t.advance(4 * day - 3700);
    const three = await t.run();
    show(three);
    assert.equal(three.code, 0, three.out);
    assert.ok(
      settlements(three).get('LIMIT-AT-LIFETIME-001')?.includes('PASS'),
      `LIMIT-AT-LIFETIME-001 settled PASS:\n${three.out}`,
    );

    // +8 days: the password access token expired, its refresh token (7 days after that, and its
    // refresh_token_expires_in) still valid.
    await t.advance(4 * day);
    const four = await t.run();
    show(four);
    assert.equal(four.code, 0, four.out);
    const s4 = settlements(four);
    for (const id of ['STATE-AT-EXP-001', 'STATE-RT-UNUSED-002', 'LIMIT-RT-LIFETIME-001', 'STATE-RT-EXP-003'])
      assert.ok(s4.get(id)?.includes('PASS'), `${id} settled PASS:\n${four.out}`);

    // +15 days: the refresh token's 7 days after its access token's 7 days are over (the rotated
    // token's too, and the announced refresh_token_expires_in).
    await t.advance(7 * day);
    const five = await t.run();
    show(five);
    assert.equal(five.code, 0, five.out);
    for (const id of ['STATE-RT-EXP-001', 'STATE-RT-EXP-002', 'STATE-RT-EXP-003'])
      assert.ok(settlements(five).get(id)?.includes('PASS'), `${id} settled PASS:\n${five.out}`);
    for (const r of [two, three, four, five]) assert.deepEqual(broken(r), [], 'no FAIL against the correct target');
  });

  void test('a wrong key, a missing key, a truncated state file and a concurrent run are refused; the state file stays byte-identical', async () => {
    const before = readFileSync(t.stateFile);
    const wrong = await t.run([], { [keyEnv]: 'another-key-0123456789abcdef' });
    assert.equal(wrong.code, 2, wrong.out);
    assert.match(wrong.out, /does not open state file .* \(wrong key\)/);
    const missing = await t.run([], { [keyEnv]: '' });
    assert.equal(missing.code, 2, missing.out);
    assert.match(missing.out, new RegExp(`${keyEnv} .* is not set`));
    assert.deepEqual(readFileSync(t.stateFile), before, 'the state file is untouched by a wrong or missing key');

    const lock = lockState(t.stateFile);
    try {
      const concurrent = await t.run();
      assert.equal(concurrent.code, 2, concurrent.out);
      assert.match(concurrent.out, new RegExp(`another run \\(pid ${process.pid}.*is using state file`));
    } finally {
      lock.release();
    }
    assert.deepEqual(readFileSync(t.stateFile), before, 'the state file is untouched by a refused concurrent run');

    const truncated = join(t.dir, 'truncated.json');
    writeFileSync(truncated, before.subarray(0, Math.floor(before.length / 2)));
    const cut = readFileSync(truncated);
    const damaged = await runCli([
      'run',
      '--target',
      t.profileFile,
      '--state',
      truncated,
      '--reports',
      t.reports,
      '--grep',
      grep,
      ...specs.flatMap((f) => ['--spec', f]),
    ]);
    assert.equal(damaged.code, 2, damaged.out);
    assert.equal(
      damaged.out.split('\n').filter((l) => l.includes('state file')).length,
      1,
      `one line:\n${damaged.out}`,
    );
    assert.deepEqual(readFileSync(truncated), cut, 'the truncated file is left as it was');
  });

  void test('a refusal of a user the target no longer knows (deactivated since) settles VOID, not PASS', async () => {
    await t.deactivate('acme', 'alice');
    await t.advance(16 * day);
    const r = await t.run();
    show(r);
    const voided = annotationsOf(r.checks, 'settled').filter(
      ({ check, value }) => requirementsOf(check).includes('STATE-RT-EXP-001') && value.outcome === 'VOID',
    );
    assert.ok(
      voided.length > 0 && voided.every(({ value }) => /no longer knows the credentials/.test(value.reason ?? '')),
      `STATE-RT-EXP-001 of the deactivated user settles VOID:\n${r.out}`,
    );
    assert.ok(
      !(settlements(r).get('STATE-RT-EXP-001') ?? []).includes('PASS'),
      'no PASS from a refusal of a user the target no longer knows',
    );
  });
});

/** Planted faults (through the fault-injecting proxy): access tokens that never expire, and a refresh token honoured after its 7 days. */
function neverExpiring(
  clientId: string,
  clientSecret: string,
  user: { username: string; password: string },
): ProxyFault {
  return {
    onResponse: async (res, _req, ctx) => {
      await recordIssuance(res, ctx);
      return res;
    },
    async onRequest(req, ctx) {
      const now = await targetNow(ctx);
      if (now === undefined) return req;
      if (ctx.kind === 'gateway') {
        const issued = ctx.state.get(`at:${bearerOf(req) ?? ''}`) as Issued | undefined;
        if (!issued || now < issued.at + issued.expiresIn * 1000) return req;
        const token = await freshToken(ctx, clientId, clientSecret);
        return token ? withBearer(req, token) : req;
      }
      if (isToken(ctx) && grantOf(req) === 'refresh_token') {
        const issued = ctx.state.get(`rt:${field(req, 'refresh_token') ?? ''}`) as Issued | undefined;
        // The spec's end (anchor access-token-expiry): 7 days after the access token's expiry.
        if (!issued || now < issued.at + issued.expiresIn * 1000 + 7 * day * 1000) return req;
        const form = new URLSearchParams({
          grant_type: 'password',
          username: user.username,
          password: user.password,
          client_id: field(req, 'client_id') ?? '',
          client_secret: field(req, 'client_secret') ?? '',
        });
        const res = await ctx.forward({ ...req, body: Buffer.from(form.toString()) });
        return tokenBody(res) ? { respond: res } : req;
      }
      return req;
    },
  };
}

void describe('obligations against a target with a planted fault (tokens that never expire, a refresh token extended)', () => {
  const t = new Target();
  before(async () => {
    const reference = loadProfile(join(repoRoot, 'profiles', 'reference.json'));
    const secret = (path: string) => reference.secrets.find((x) => x.path === path)!.value;
    const usClient = reference.profile.credentials.clients.usClient!;
    await t.start(
      neverExpiring(usClient.clientId, secret('credentials.clients.usClient.clientSecret'), {
        username: reference.profile.credentials.users.user!.username,
        password: secret('credentials.users.user.password'),
      }),
    );
  });
  after(() => (process.env.KEEP_OBLIGATIONS_TEST ? undefined : t.stop()));

  void test('the obligations settle to FAIL under the IDs the fault breaks, and only those', async () => {
    const one = await t.run();
    show(one);
    assert.equal(one.code, 0, one.out);
    await t.advance(3600 + 100);
    const two = await t.run();
    show(two);
    assert.equal(two.code, 1, two.out);
    assert.deepEqual(broken(two), ['BEARER-020', 'ERR-GW-1202', 'STATE-AT-EXP-001'], two.out);
    const s2 = settlements(two);
    for (const id of ['BEARER-020', 'ERR-GW-1202', 'STATE-AT-EXP-001'])
      assert.deepEqual(s2.get(id), ['FAIL'], `${id} settled FAIL`);
    assert.ok(
      two.checks
        .filter((c) => c.status === 'failed')
        .every((c) =>
          c.annotations.some((a) => a.type === 'broke' && /recorded in run .* settled at /.test(a.description ?? '')),
        ),
      'a FAIL says when it was recorded and settled',
    );

    await t.advance(15 * day);
    const three = await t.run();
    show(three);
    assert.equal(three.code, 1, three.out);
    // Every refresh token honoured after its end: the password grant's, the rotated one, and the
    // one past its refresh_token_expires_in.
    for (const id of ['STATE-RT-EXP-001', 'STATE-RT-EXP-002', 'STATE-RT-EXP-003'])
      assert.ok(broken(three).includes(id), `the refresh token honoured after its end FAILs ${id}:\n${three.out}`);
    const broke = [
      'BEARER-020',
      'ERR-GW-1202',
      'STATE-AT-EXP-001',
      'STATE-RT-EXP-001',
      'STATE-RT-EXP-002',
      'STATE-RT-EXP-003',
    ];
    assert.deepEqual(
      broken(three).filter((id) => !broke.includes(id)),
      [],
      'no other requirement FAILs',
    );
  });
});

/** A requirement's verdict in the run's conformance.json. */
function verdictOf(t: Target, id: string): string | undefined {
  const report = JSON.parse(readFileSync(join(t.reports, 'conformance.json'), 'utf8')) as {
    requirements: { id: string; verdict: string }[];
  };
  return report.requirements.find((r) => r.id === id)?.verdict;
}

/** Short lifetimes and capabilities.realTimeWaitSeconds: the check waits in real time instead (no state file needed). */
for (const [name, faulty] of [
  ['a correct target: PASS', false],
  ['tokens that never expire: FAIL', true],
] as const) {
  void describe(`real-time waits where the lifetimes are short (8 s client_credentials tokens), ${name}`, () => {
    const t = new Target(false);
    before(async () => {
      const reference = loadProfile(join(repoRoot, 'profiles', 'reference.json'));
      const secret = (path: string) => reference.secrets.find((x) => x.path === path)!.value;
      const usClient = reference.profile.credentials.clients.usClient!;
      const fault = faulty
        ? neverExpiring(usClient.clientId, secret('credentials.clients.usClient.clientSecret'), {
            username: '',
            password: '',
          })
        : undefined;
      await t.start(fault, ['--cc-lifetime', '8'], (p) => ({
        ...p,
        expectations: { ...p.expectations, ccLifetime: 8, clockSkewSeconds: 5 },
        capabilities: { ...p.capabilities, realTimeWaitSeconds: 20 },
      }));
    });
    after(() => t.stop());

    void test(`STATE-AT-EXP-001 of the client_credentials token is verified in one run (${faulty ? 'FAIL' : 'PASS'}); the password token's 7 days do not fit: SKIP without a state file`, async () => {
      const r = await t.run(['--grep', '@STATE-AT-EXP-001', '--spec', 'specs/lifecycle/access-token.spec.ts']);
      show(r);
      assert.equal(r.code, faulty ? 1 : 0, r.out);
      const cc = r.checks.find((c) => c.title.includes('a client_credentials access token is refused'))!;
      assert.ok(
        cc.annotations.some((a) => a.type === 'real-time-wait'),
        'the check waited in real time',
      );
      assert.equal(cc.status, faulty ? 'failed' : 'passed', r.out);
      const pw = r.checks.find((c) => c.title.includes('a password access token is refused'))!;
      assert.equal(pw.status, 'skipped', r.out);
      // A correct target's requirement reads SKIP: the password check of the same requirement was not verified.
      assert.equal(verdictOf(t, 'STATE-AT-EXP-001'), faulty ? 'FAIL' : 'SKIP', r.out);
    });
  });
}
