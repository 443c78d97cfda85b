// Clock sandboxes declared by a profile (capabilities.clockSandboxes): the profile rules, the
// sandbox's own profile, and `run` against a target with two sandboxes (three reference servers
// started here with `serve --test-controls`): the time-travel checks are spread over both
// sandboxes and never sent to the target; a sandbox that does not answer is refused with exit 2
// before any check runs. The claiming of a clock target by a worker: clock-targets.test.ts.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { clockSandboxLabel, clockSandboxProfile } from '../../core/profile/clock-sandboxes.ts';
import { loadProfile, ProfileError, validateProfile } from '../../core/profile/load-profile.ts';
import { runMain } from '../commands/run.command.ts';
import { applyListening, startReference, type ReferenceServer } from '../reference/start-reference.ts';

const referenceProfile = join(repoRoot, 'profiles', 'reference.json');
const sandbox = {
  authUrlUs: 'https://b.example.com',
  authUrlEu: 'https://b-eu.example.com',
  baseUrl: 'https://b-api.example.com',
  clockControlUrl: 'https://b.example.com/__test/clock',
};
const base = {
  name: 'x',
  authUrlUs: 'https://a.example.com',
  authUrlEu: 'https://a-eu.example.com',
  baseUrl: 'https://a-api.example.com',
  capabilities: { clockControlUrl: 'https://a.example.com/__test/clock' },
};

void describe('capabilities.clockSandboxes: the profile', () => {
  void test('a sandbox declares the addresses the profile declares, under the same rules', () => {
    const ok = validateProfile(
      { ...base, capabilities: { ...base.capabilities, clockSandboxes: [sandbox] } },
      'p.json',
      { env: {} },
    );
    assert.equal(ok.profile.capabilities.clockSandboxes?.length, 1);
    const problems = (raw: unknown) => {
      try {
        validateProfile(raw, 'p.json', { env: {} });
        return '';
      } catch (error) {
        assert.ok(error instanceof ProfileError);
        return error.message;
      }
    };
    const withoutEu = { ...sandbox, authUrlEu: undefined };
    assert.match(
      problems({ ...base, capabilities: { ...base.capabilities, clockSandboxes: [withoutEu] } }),
      /clockSandboxes\[0\]\.authUrlEu: required, because the profile has authUrlEu/,
    );
    assert.match(
      problems({
        ...base,
        capabilities: {
          ...base.capabilities,
          clockSandboxes: [{ ...sandbox, faultControlUrl: 'https://b.example.com/f' }],
        },
      }),
      /clockSandboxes\[0\]\.faultControlUrl: the profile has no capabilities\.faultControlUrl/,
    );
    assert.match(
      problems({
        ...base,
        capabilities: {
          ...base.capabilities,
          clockSandboxes: [{ ...sandbox, clockControlUrl: 'http://b.example.com/c' }],
        },
      }),
      /clockSandboxes\[0\]\.clockControlUrl: plain HTTP .* refused/,
    );
    assert.match(
      problems({
        ...base,
        capabilities: {
          ...base.capabilities,
          clockSandboxes: [{ ...sandbox, authUrlUs: 'https://b.example.com/api/v1/auth/oauth2/token' }],
        },
      }),
      /clockSandboxes\[0\]\.authUrlUs: expected the server's origin/,
    );
    assert.match(
      problems({
        ...base,
        capabilities: { ...base.capabilities, clockSandboxes: [{ authUrlUs: 'https://b.example.com' }] },
      }),
      /clockControlUrl/,
    );
  });

  void test("a sandbox's profile: the target's, with the sandbox's addresses, controls and CA, declaring no sandbox itself", () => {
    const loaded = validateProfile(
      {
        ...base,
        plainHttpUrl: 'http://a.example.com',
        capabilities: { ...base.capabilities, clockSandboxes: [{ ...sandbox, name: 'box-b' }] },
      },
      'p.json',
      { env: {} },
    );
    const moved = clockSandboxProfile(loaded, loaded.profile.capabilities.clockSandboxes![0]!).profile;
    assert.deepEqual(
      [moved.authUrlUs, moved.authUrlEu, moved.baseUrl, moved.capabilities.clockControlUrl],
      [sandbox.authUrlUs, sandbox.authUrlEu, sandbox.baseUrl, sandbox.clockControlUrl],
    );
    assert.equal(moved.capabilities.clockSandboxes, undefined);
    assert.equal(moved.plainHttpUrl, undefined);
    assert.equal(moved.name, 'x', 'reports name the target');
    assert.equal(loaded.profile.authUrlUs, base.authUrlUs, "the target's profile is untouched");
    assert.equal(
      clockSandboxLabel(loaded.profile.capabilities.clockSandboxes![0]!, 0),
      '"box-b" (capabilities.clockSandboxes[0])',
    );
  });
});

/**
 * The sandboxes' meeting point. Playwright stops a worker that has no check left, which releases
 * its sandbox, so a worker that starts late on a loaded machine could take the sandbox of one
 * that already ended and leave the other unused. Once armed (the checks are about to start), a
 * new connection to a sandbox waits until the other sandbox has had one too: the first time-travel
 * worker holds its sandbox until the second has claimed the other. Never opened — only one
 * sandbox in use — the checks time out and fail.
 */
class SandboxMeeting {
  armed = false;
  private open = false;
  private readonly met = new Set<number>();
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly sandboxes: number) {}

  arrive(sandbox: number, go: () => void): void {
    if (!this.armed || this.open) return go();
    this.met.add(sandbox);
    this.waiting.push(go);
    if (this.met.size < this.sandboxes) return;
    this.open = true;
    for (const w of this.waiting.splice(0)) w();
  }
}

/** A TCP proxy on loopback in front of upstreamPort whose connections pass the meeting first (TLS passes through). */
async function meetingProxy(
  upstreamPort: number,
  sandbox: number,
  meeting: SandboxMeeting,
): Promise<{ port: number; server: Server }> {
  const server = createServer((client) => {
    client.pause();
    client.on('error', () => client.destroy());
    meeting.arrive(sandbox, () => {
      if (client.destroyed) return;
      const upstream = connect(upstreamPort, '127.0.0.1');
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/** A port on loopback where nothing listens (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// The runs below wait on their events; this bound is only a safety net against one that never ends
// (three servers and three runs share the machine with whatever else runs on it).
void describe('capabilities.clockSandboxes: run', { timeout: 900_000 }, () => {
  const temp = mkdtempSync(join(tmpdir(), 'tc-clock-sandboxes-'));
  let servers: ReferenceServer[] = [];
  let profileOf: (sandboxes: Record<string, unknown>[]) => string;
  let sandboxes: Record<string, unknown>[] = [];
  let written = 0;
  const meeting = new SandboxMeeting(2);
  const proxies: Server[] = [];

  before(async () => {
    const loaded = loadProfile(referenceProfile);
    servers = await Promise.all(
      [0, 1, 2].map((i) => {
        const logDir = join(temp, `server-${i}`);
        mkdirSync(logDir);
        return startReference({ logDir });
      }),
    );
    const [target, ...clocks] = servers.map((s) => applyListening(loaded.profile, s.listening));
    sandboxes = await Promise.all(
      clocks.map(async (p, i) => {
        // Every address of a reference server is its one port: the sandbox is declared at the proxy's.
        const proxy = await meetingProxy(Number(new URL(p.authUrlUs!).port), i, meeting);
        proxies.push(proxy.server);
        const at = (url: string | undefined) => {
          const u = new URL(url!);
          u.port = String(proxy.port);
          return u.toString().replace(/\/$/, '');
        };
        return {
          name: `box-${i}`,
          authUrlUs: at(p.authUrlUs),
          authUrlEu: at(p.authUrlEu),
          baseUrl: at(p.baseUrl),
          clockControlUrl: at(p.capabilities.clockControlUrl),
          faultControlUrl: at(p.capabilities.faultControlUrl),
          caFile: p.caFile,
        };
      }),
    );
    profileOf = (declared) => {
      const profile: Record<string, unknown> = {
        ...target,
        capabilities: { ...target!.capabilities, clockSandboxes: declared },
      };
      delete profile.$schema;
      const file = join(temp, `profile-${(written += 1)}.json`);
      writeFileSync(file, JSON.stringify(profile), { mode: 0o600 });
      return file;
    };
  });

  after(async () => {
    for (const proxy of proxies) proxy.close();
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(temp, { recursive: true, force: true });
  });

  void test('the time-travel checks spread over both declared sandboxes, none on the target', async () => {
    const reports = join(temp, 'reports-spread');
    const out: string[] = [];
    const err: string[] = [];
    const code = await runMain(
      [
        '--target',
        profileOf(sandboxes),
        '--spec',
        'specs/lifecycle/access-token.spec.ts',
        '--passes',
        'time-travel',
        '--reports',
        reports,
      ],
      {
        out: (l) => {
          out.push(l);
          // The line before the checks start (the reachability of the sandboxes is behind it).
          if (l.includes('clock sandbox(es) of the profile')) meeting.armed = true;
        },
        err: (l) => err.push(l),
      },
    );
    meeting.armed = false;
    const log = [...out, ...err].join('\n');
    assert.equal(code, 0, log);
    assert.ok(
      out.some((l) => l.includes('2 clock sandbox(es) of the profile for the time-travel checks')),
      log,
    );
    const { checks } = JSON.parse(readFileSync(join(reports, 'checks.json'), 'utf8')) as {
      checks: { project: string; status: string }[];
    };
    assert.equal(checks.length, 3, log);
    assert.ok(
      checks.every((c) => c.project === 'time-travel' && c.status === 'passed'),
      JSON.stringify(checks),
    );
    // Each check's transcript names the server it spoke to: both sandboxes, never the target.
    const transcripts = readdirSync(join(reports, 'transcripts')).map((f) =>
      readFileSync(join(reports, 'transcripts', f), 'utf8'),
    );
    const spokenTo = (url: unknown) =>
      transcripts.filter((t) => t.includes(`//127.0.0.1:${new URL(String(url)).port}/`)).length;
    assert.ok(spokenTo(sandboxes[0]!.authUrlUs) + spokenTo(sandboxes[1]!.authUrlUs) >= 3, 'every check on a sandbox');
    for (const s of sandboxes)
      assert.ok(spokenTo(s.authUrlUs) > 0, `a check ran on sandbox ${String(s.name)} (${String(s.authUrlUs)})`);
    assert.equal(spokenTo(servers[0]!.listening.authUrlUs), 0, "no time-travel check on the target's own server");
  });

  void test('--start-reference ignores the declared sandboxes (its own clock servers take their place), and says so', async () => {
    const dead = `https://127.0.0.1:${await closedPort()}`;
    const out: string[] = [];
    const err: string[] = [];
    const code = await runMain(
      [
        '--target',
        profileOf([{ ...sandboxes[0]!, name: 'gone', clockControlUrl: `${dead}/__test/clock` }]),
        '--start-reference',
        '--check-profile',
        '--reports',
        join(temp, 'reports-start-reference'),
      ],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
    );
    const log = [...out, ...err].join('\n');
    assert.equal(code, 0, log);
    assert.ok(
      err.some((l) => l.includes("note: --start-reference ignores the profile's 1 clock sandbox(es)")),
      log,
    );
    assert.ok(!log.includes('does not answer'), log);
  });

  void test('a declared sandbox that does not answer: exit 2 naming it, before any check runs', async () => {
    const reports = join(temp, 'reports-unreachable');
    const dead = `https://127.0.0.1:${await closedPort()}`;
    const out: string[] = [];
    const err: string[] = [];
    const code = await runMain(
      [
        '--target',
        profileOf([sandboxes[0]!, { ...sandboxes[1]!, name: 'gone', clockControlUrl: `${dead}/__test/clock` }]),
        '--spec',
        'specs/lifecycle/access-token.spec.ts',
        '--passes',
        'time-travel',
        '--reports',
        reports,
      ],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
    );
    const log = [...out, ...err].join('\n');
    assert.equal(code, 2, log);
    const problems = err.filter((l) => l.startsWith('token-conformance run: setup problem:'));
    assert.equal(problems.length, 1, log);
    assert.match(
      problems[0]!,
      /clock sandbox "gone" \(capabilities\.clockSandboxes\[1\]\) does not answer: capabilities\.clockControlUrl https:\/\/127\.0\.0\.1:\d+\/__test\/clock connection refused/,
    );
    assert.ok(!existsSync(join(reports, 'checks.json')), 'no check ran');
  });
});
