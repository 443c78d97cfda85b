// The environment the bundled reference server is started with (by the suite's --start-reference,
// and by bench/ so that it measures the server as the suite runs it).
//
// MALLOC_MMAP_THRESHOLD_: every client-secret or password verification runs scrypt (N=2^14, r=8:
// a 16 MiB buffer) on libuv's thread pool. glibc raises its mmap threshold after the first such
// buffer is freed, so the later ones come from per-thread malloc arenas that keep the freed memory:
// tens of MiB of RSS that never go back after the seed is hashed.
// A fixed threshold makes each buffer an mmap of its own, returned when scrypt frees it. glibc
// reads the variable only at process start, hence the environment; other C libraries ignore it.
export const referenceServerEnv: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** `base` with the reference server's settings, unless `base` already sets them. */
export function withReferenceServerEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...referenceServerEnv, ...base };
}
