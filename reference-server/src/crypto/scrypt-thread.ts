// scrypt on one dedicated thread. Node's async scrypt runs on libuv's pool (4 threads); each
// 16 MiB scrypt buffer is malloc'd by whichever pool thread runs it, and glibc keeps the freed
// buffers in that thread's arena once its dynamic mmap threshold has risen past 16 MiB: RSS that
// never goes back (see reference-server/README.md, Memory). On one thread of our own
// (scryptSync in a worker), at most one arena holds one buffer, whatever the C library and
// without the suite's MALLOC_MMAP_THRESHOLD_. Verifications queue on it; successful ones are
// cached by the hasher, so the queue matters only for first sign-ins and failures (which the
// brute-force bounds limit).
import type { ScryptOptions } from 'node:crypto';
import { Worker } from 'node:worker_threads';

const workerSource = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
parentPort.on('message', ({ id, secret, salt, keyLength, options }) => {
  try {
    const key = scryptSync(secret, Buffer.from(salt), keyLength, options);
    parentPort.postMessage({ id, key });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message) });
  }
});
`;

interface Pending {
  resolve(key: Buffer): void;
  reject(error: Error): void;
}

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();

function thread(): Worker {
  if (worker) return worker;
  const created = new Worker(workerSource, { eval: true });
  created.on('message', ({ id, key, error }: { id: number; key?: Uint8Array; error?: string }) => {
    const waiting = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) created.unref();
    if (!waiting) return;
    if (key) waiting.resolve(Buffer.from(key));
    else waiting.reject(new Error(error ?? 'scrypt failed'));
  });
  created.on('error', (error) => {
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
    worker = undefined;
  });
  created.unref();
  worker = created;
  return created;
}

/** scrypt on the dedicated thread; the thread never keeps the process alive when idle. */
export function scryptOnThread(
  secret: string,
  salt: Buffer,
  keyLength: number,
  options: ScryptOptions,
): Promise<Buffer> {
  const target = thread();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    target.ref();
    target.postMessage({ id, secret, salt, keyLength, options });
  });
}
