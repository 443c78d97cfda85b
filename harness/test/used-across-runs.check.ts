// STATE-RT-USED-003 across runs, in the obligations stage: against the reference
// server without clock or restart control in the profile, with a state file. Run 1 uses a refresh
// token and records it (PENDING; the state file holds it encrypted only); the server restarts on
// its store between the runs (as a redeploy would); run 2 replays it: refused, PASS. With the
// planted fault `consumption-forgotten-on-restart` in front (its proxy told of the restart), run 2
// settles FAIL under STATE-RT-USED-003 alone.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { loadProfile } from '../../core/profile/load-profile.ts';
import {
  applyListening,
  referenceArgsFor,
  startReference,
  type ReferenceServer,
} from '../reference/start-reference.ts';
import { startSwitchingProxy, type SwitchingProxy } from '../../self-validation/proxy.ts';
import { advisory2026Faults } from '../../self-validation/faults/advisories-2026.ts';
import { runCli } from './support/run-cli.ts';
import { asStagingTarget, throughProxy } from './support/staging-profile.ts';

const keyEnv = 'TOKEN_CONFORMANCE_TEST_STATE_KEY';
const key = 'used-across-runs-test-key-0123456789';
const id = 'STATE-RT-USED-003';
const specs = ['specs/lifecycle/used-across-restarts.spec.ts', 'specs/obligations/settle.spec.ts'];

class Target {
  readonly dir = mkdtempSync(join(tmpdir(), 'tc-used-across-runs-'));
  readonly stateFile = join(this.dir, 'state.json');
  readonly profileFile = join(this.dir, 'profile.json');
  readonly reports = join(this.dir, 'reports');
  readonly seen = join(this.dir, 'seen-tokens.txt');
  server?: ReferenceServer;
  proxy?: SwitchingProxy;

  async start(faulty: boolean): Promise<void> {
    const reference = loadProfile(join(repoRoot, 'profiles', 'reference.json')).profile;
    this.server = await startReference({
      logDir: this.dir,
      extraArgs: referenceArgsFor(reference),
      dataFile: join(this.dir, 'store.sqlite'),
    });
    let profile = applyListening(reference, this.server.listening);
    if (faulty) {
      const upstream = new URL(profile.authUrlUs!).origin;
      const fault = advisory2026Faults
        .find((f) => f.id === 'consumption-forgotten-on-restart')!
        .create({ clients: {}, users: {} });
      this.proxy = await startSwitchingProxy({
        members: [{ id: 'fault', upstream, upstreamCa: readFileSync(profile.caFile!, 'utf8'), fault }],
        dir: this.dir,
      });
      profile = throughProxy(profile, upstream, this.proxy);
    }
    // A staging target's profile: no clock, fault or restart control; a state key.
    writeFileSync(this.profileFile, JSON.stringify(asStagingTarget(profile, keyEnv), null, 2));
  }

  /** The target restarts between the runs: the server's process on its store (and the proxy of a fault hears of it). */
  async restart(): Promise<void> {
    await this.server!.restart!();
    await this.proxy?.restarted();
  }

  async run(): Promise<{ code: number; out: string; verdict: string | undefined }> {
    const r = await runCli(
      [
        'run',
        '--target',
        this.profileFile,
        '--state',
        this.stateFile,
        '--reports',
        this.reports,
        '--grep',
        `@${id}\\b`,
        '--keep-seen-tokens',
        this.seen,
        ...specs.flatMap((s) => ['--spec', s]),
      ],
      { [keyEnv]: key },
    );
    const report = JSON.parse(readFileSync(join(this.reports, 'conformance.json'), 'utf8')) as {
      requirements: { id: string; verdict: string }[];
    };
    return { ...r, verdict: report.requirements.find((q) => q.id === id)?.verdict };
  }

  async stop(): Promise<void> {
    await this.proxy?.close();
    await this.server?.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

for (const faulty of [false, true]) {
  void describe(`${id} across runs, the target restarted between them${faulty ? ', consumption forgotten on restart (planted fault)' : ''}`, () => {
    const t = new Target();
    after(() => t.stop());

    void test(`run 1 records the used refresh token (PENDING, encrypted); after the restart run 2 settles it ${faulty ? 'FAIL' : 'PASS'}`, async (tc) => {
      const closing = (out: string) => out.split('\n').find((l) => l.startsWith('CONFORMANCE')) ?? '(no closing line)';
      await t.start(faulty);
      const one = await t.run();
      assert.equal(one.code, 0, one.out);
      assert.equal(one.verdict, 'PENDING', one.out);
      tc.diagnostic(`run 1: ${closing(one.out)}`);
      assert.match(one.out, /state .*state\.json written: 0 settled .*, 1 recorded, 1 open obligation/);
      const state = readFileSync(t.stateFile, 'utf8');
      const tokens = readFileSync(t.seen, 'utf8')
        .split('\n')
        .filter((l) => l.length >= 8);
      assert.ok(
        tokens.length > 0 && tokens.every((token) => !state.includes(token)),
        'no token of the run in plain text in the state file',
      );

      await t.restart();
      const two = await t.run();
      assert.equal(two.code, faulty ? 1 : 0, two.out);
      assert.equal(two.verdict, faulty ? 'FAIL' : 'PASS', two.out);
      tc.diagnostic(`run 2: ${closing(two.out)}`);
      assert.match(
        two.out,
        new RegExp(`written: 1 settled \\(${faulty ? '0 PASS, 1 FAIL' : '1 PASS, 0 FAIL'}, 0 VOID\\), 1 recorded`),
      );
    });
  });
}
