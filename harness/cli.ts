// `npx token-conformance <command>`: one entry point, one module per command, loaded on demand
// so that `serve` does not pay for the suite's imports and the reverse.

type CommandMain = (args: string[]) => Promise<number>;

const commands: Record<string, { summary: string; load: () => Promise<CommandMain> }> = {
  serve: {
    summary: 'start the bundled reference server (HTTPS by default)',
    // The reference server is a target like any other; the CLI only hosts its start command.
    load: async () => (await import('../reference-server/src/main.ts')).serveMain,
  },
  run: {
    summary: 'run the conformance suite against a target profile',
    load: async () => (await import('./commands/run.command.ts')).runMain,
  },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return ['Usage: token-conformance <command> [options]', '', 'Commands:', ...lines, '', 'Run `token-conformance <command> --help` for the options of a command.'].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
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
