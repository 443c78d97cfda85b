// The hand-off from the self-validation to its Playwright workers: the requirement IDs a fault run
// expects to break, read by fixtures/expected-failures.fixture.ts (scheduling only, see there).
export const expectBrokenEnvVar = 'TOKEN_CONFORMANCE_EXPECT_BROKEN';

/** The requirement IDs a self-validation run expects to break (empty outside the self-validation). */
export function expectedBroken(env: NodeJS.ProcessEnv = process.env): Set<string> {
  return new Set((env[expectBrokenEnvVar] ?? '').split(',').map((id) => id.trim()).filter(Boolean));
}
