// `npx token-conformance record --target PROFILE --out FILE`: a recording reverse proxy in front of
// the profile's target. Prints one JSON line with its addresses (authUrlUs, authUrlEu, baseUrl) once
// it listens; point real clients at them; every exchange is appended to FILE as it completes, its
// secrets digested under the key in --key-env. Stops on SIGINT/SIGTERM. Exit 2 on bad arguments.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommand } from './parse-command.ts';
import { ProfileError } from '../../core/profile/load-profile.ts';
import { loadProfileForTraffic } from '../audit/profile-for-traffic.ts';
import { RecordingFileError, startRecorder, type RunningRecorder } from '../audit/recorder.ts';
import { defaultKeyEnv, Digester } from '../audit/secret-digest.ts';
import { processIo, type CommandIo } from './command-io.ts';

const usage = `Usage: token-conformance record --target PROFILE --out FILE [options]

  --target PROFILE  the target to record in front of: one loopback listener per address
                    (authUrlUs, authUrlEu, baseUrl), forwarding to it untouched (TLS to the target
                    verified against the profile's caFile)
  --out FILE        the recording (JSON Lines), appended one exchange per line as each completes
  --key-env NAME    the environment variable holding the digest key (default ${defaultKeyEnv}):
                    client secrets, passwords, access and refresh tokens are written as HMAC
                    digests under it, never in clear. Required: the key itself is never written
  --help

Prints one JSON line when ready: {"authUrlUs": …, "authUrlEu": …, "baseUrl": …, "out": …}. The
listeners speak plain HTTP on 127.0.0.1 only. Judge the file with \`token-conformance audit FILE
--target PROFILE\` (same --key-env, so that digests of the profile's secrets agree).`;

export const recordOptions = {
  target: { type: 'string' },
  out: { type: 'string' },
  'key-env': { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

export interface RecordHooks {
  /** Resolves when the recorder should stop (default: SIGINT or SIGTERM). */
  stop?: (recorder: RunningRecorder) => Promise<void>;
}

export async function recordMain(
  args: string[],
  io: CommandIo = processIo,
  env: NodeJS.ProcessEnv = process.env,
  hooks: RecordHooks = {},
): Promise<number> {
  const fail = (message: string): number => {
    io.err(`token-conformance record: ${message}`);
    return 2;
  };
  const parsed = parseCommand(args, recordOptions, usage, 'record', io, { allowPositionals: false });
  if (typeof parsed === 'number') return parsed;
  const v = parsed.values;
  if (v.target === undefined || v.out === undefined)
    return fail(`--target PROFILE and --out FILE are required\n\n${usage}`);
  const keyEnv = v['key-env'] ?? defaultKeyEnv;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyEnv))
    return fail(`--key-env must name an environment variable (got '${keyEnv}')`);
  const digester = Digester.fromEnv(keyEnv, env);
  if (!digester)
    return fail(
      `${keyEnv} is not set: set it to a random secret (e.g. export ${keyEnv}=$(openssl rand -hex 32)) — secrets are recorded as digests under it`,
    );
  let loaded;
  try {
    loaded = loadProfileForTraffic(v.target, env);
  } catch (error) {
    if (error instanceof ProfileError) return fail(error.message.split('\n')[0]!);
    throw error;
  }
  const { profile } = loaded.loaded;
  const { authUrlUs, authUrlEu, baseUrl } = profile;
  if (!authUrlUs || !authUrlEu || !baseUrl)
    return fail(
      `the profile ${v.target} must give authUrlUs, authUrlEu and baseUrl: one listener is opened per address`,
    );
  let recorder: RunningRecorder;
  try {
    recorder = await startRecorder({
      upstreams: { authUrlUs, authUrlEu, baseUrl },
      ...(profile.caFile ? { ca: readFileSync(profile.caFile, 'utf8') } : {}),
      out: resolve(v.out),
      digester,
      known: loaded.secrets,
      target: profile.name,
    });
  } catch (error) {
    if (error instanceof RecordingFileError) return fail(error.message);
    return fail(`cannot start: ${(error as Error).message}`);
  }
  io.out(JSON.stringify({ ...recorder.urls, out: v.out }));
  await (hooks.stop ?? untilSignal)(recorder);
  await recorder.close();
  io.err(`token-conformance record: ${recorder.written()} exchanges recorded in ${v.out}`);
  return 0;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
