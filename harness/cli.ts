// `npx token-conformance <command>`: one entry point, one module per command, loaded on demand
// so that `serve` does not pay for the suite's imports and the reverse.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type CommandMain = (args: string[]) => Promise<number>;

const commands: Record<string, { summary: string; load: () => Promise<CommandMain> }> = {
  serve: {
    summary: 'start the bundled reference server (HTTPS by default)',
    // The reference server is a target like any other; the CLI only hosts its start command.
    load: async () => (await import('../reference-server/src/main.ts')).serveMain,
  },
  'register-client': {
    summary: "register a (production) client with its tenant id and role in a reference server's data file",
    // The operator's side of the reference server's Data Services registration; loaded on demand like serve.
    load: async () => (await import('../reference-server/src/register-client-main.ts')).registerClientMain,
  },
  init: {
    summary: 'write a commented target profile from flags, validated, with the export lines it needs',
    load: async () => (await import('./commands/init.command.ts')).initMain,
  },
  run: {
    summary: 'run the conformance suite against a target profile',
    load: async () => (await import('./commands/run.command.ts')).runMain,
  },
  audit: {
    summary:
      'judge recorded traffic (HAR files, recordings) against the catalogue: the report formats of run, and SARIF',
    load: async () => (await import('./commands/audit.command.ts')).auditMain,
  },
  record: {
    summary: "a recording reverse proxy in front of a target: real clients' exchanges, secrets digested, for audit",
    load: async () => (await import('./commands/record.command.ts')).recordMain,
  },
  'show-report': {
    summary: 'serve a reports directory on loopback and print the addresses of its reports',
    load: async () => (await import('./commands/show-report.command.ts')).showReportMain,
  },
  merge: {
    summary: 'merge the reports of a sharded run (run --shard I/N) into one report',
    load: async () => (await import('./commands/merge.command.ts')).mergeMain,
  },
  gate: {
    summary: 'decide a build from a conformance report (after waivers): exit 0/1',
    load: async () => (await import('./commands/gate.command.ts')).gateMain,
  },
  diff: {
    summary: 'compare two conformance reports: newly failing, fixed, changed',
    load: async () => (await import('./commands/diff.command.ts')).diffMain,
  },
  'ci-summary': {
    summary: 'a report as a CI job shows it: Markdown summary, annotations, verdict counts as outputs',
    load: async () => (await import('./commands/ci-summary.command.ts')).ciSummaryMain,
  },
  bundle: {
    summary: 'write a signed results bundle (report, traceability, transcripts, waivers)',
    load: async () => (await import('./commands/bundle.command.ts')).bundleMain,
  },
  verify: {
    summary: 'verify a results bundle offline against a public key',
    load: async () => (await import('./commands/bundle.command.ts')).verifyMain,
  },
  keygen: {
    summary: 'write an Ed25519 key pair (PEM) for signing bundles',
    load: async () => (await import('./commands/bundle.command.ts')).keygenMain,
  },
};

/** The command names `npx token-conformance` knows. */
export const commandNames = (): string[] => Object.keys(commands);

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(15)} ${c.summary}`);
  return [
    'Usage: token-conformance <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `token-conformance help <command>` (or `<command> --help`) for the options of a command;',
    '`token-conformance version` (or --version) prints the version.',
  ].join('\n');
}

/** The package's version, from its own package.json (wherever npm installed it). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string })
    .version;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    console.log(packageVersion());
    return 0;
  }
  // `help <command>` is `<command> --help`.
  if (name === 'help' && rest[0] !== undefined) {
    if (!commands[rest[0]]) {
      console.error(`token-conformance: unknown command '${rest[0]}'.\n\n${usage()}`);
      return 2;
    }
    return (await commands[rest[0]]!.load())(['--help']);
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    console.error(`token-conformance: unknown command '${name}'.\n\n${usage()}`);
    return 2;
  }
  return (await command.load())(rest);
}
