// Global setup of playwright.config.ts. Under `token-conformance run` it does nothing (the run
// command resolved the target and wrote the run manifest). Run directly (`npx playwright test …`),
// it plays `run`'s part: it starts the bundled reference server with profiles/reference.json — or
// the profile named by TOKEN_CONFORMANCE_TARGET (TOKEN_CONFORMANCE_NO_REFERENCE=1: against the
// addresses the profile names) — and writes a run manifest for the workers and the reporters, so
// that a spec author can run one file without ceremony. Returns the teardown.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { loadProfile } from '../../core/profile/load-profile.ts';
import { toWorkerProfile, withOtherEnvironmentToken, writeWorkerProfile } from '../../core/profile/worker-profile.ts';
import { applyListening, startReferenceServers } from '../reference/start-reference.ts';
import { runManifestEnvVar, writeRunManifest } from '../../core/run/run-manifest.ts';

export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env[runManifestEnvVar]) return undefined;
  const file = process.env.TOKEN_CONFORMANCE_TARGET ?? join(repoRoot, 'profiles', 'reference.json');
  const loaded = loadProfile(file);
  const temp = mkdtempSync(join(tmpdir(), 'token-conformance-'));
  const startServer = loaded.profile.local && process.env.TOKEN_CONFORMANCE_NO_REFERENCE !== '1';
  // As `run --start-reference`: the sandbox server under test and, concurrently, a production one
  // that issues the other environment's access token (BEARER-015).
  const servers = startServer ? await startReferenceServers({ logDir: temp, profile: loaded.profile }) : undefined;
  if (servers?.otherEnvironmentProblem)
    process.stderr.write(
      `global setup: no access token of the other environment (BEARER-015 will be SKIPPED): ${servers.otherEnvironmentProblem}\n`,
    );
  const profile = servers ? applyListening(loaded.profile, servers.server.listening) : loaded.profile;
  const resolved =
    servers?.otherEnvironmentToken !== undefined
      ? withOtherEnvironmentToken({ ...loaded, profile }, servers.otherEnvironmentToken)
      : { ...loaded, profile };
  const handoff = toWorkerProfile(resolved);
  // Playwright hands the environment the global setup leaves to the workers and the reporters.
  Object.assign(
    process.env,
    handoff.env,
    writeRunManifest(temp, {
      profile: writeWorkerProfile(handoff.profile, temp),
      seenTokens: join(temp, 'seen-tokens.txt'),
      passGate: join(temp, 'conformance-ended'),
      // A direct run usually selects files: requirements without a selected check read as SKIP, not UNCHECKED.
      filtered: true,
    }),
  );
  return async () => {
    await servers?.stop();
    // The temp directory (profile, seen tokens) is removed after the reporters ran: see the reporter's onExit.
    process.on('exit', () => rmSync(temp, { recursive: true, force: true }));
  };
}
