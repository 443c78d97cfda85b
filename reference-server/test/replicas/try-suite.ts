import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { startDeployment } from './support/deployment.ts';
const d = await startDeployment({ replicas: 3, serveArgs: ['--test-controls', '--rate-spike', '50', '--rate-quota', '1000', '--rate-window', '60'] });
try {
  const profile = JSON.parse(readFileSync('profiles/reference.json', 'utf8'));
  Object.assign(profile, { authUrlUs: d.baseUrl, authUrlEu: d.baseUrl, baseUrl: d.baseUrl });
  profile.capabilities.clockControlUrl = `${d.baseUrl}/__test/clock`;
  profile.capabilities.faultControlUrl = `${d.baseUrl}/__test/faults`;
  writeFileSync('/tmp/suite-lb/profile.json', JSON.stringify(profile));
  const r = spawnSync(process.execPath, ['bin/token-conformance.js', 'run', '--target', '/tmp/suite-lb/profile.json', '--reports', '/tmp/suite-lb/reports'], { stdio: 'inherit' });
  console.log('exit', r.status);
} finally { await d.stop(); }
