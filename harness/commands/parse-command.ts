// A command's arguments, parsed strictly with --help: the parsed values, or the exit code when
// the usage was printed (0, --help) or the arguments were refused (2, with the usage).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CommandIo } from './command-io.ts';

export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

const helpOption = { help: { type: 'boolean', default: false } } as const;

type Parsed<O extends CommandOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; strict: true; allowPositionals: true; options: O & typeof helpOption }>
>;

export function parseCommand<const O extends CommandOptions>(
  args: string[],
  options: O,
  usage: string,
  name: string,
  io: CommandIo,
  { allowPositionals = true }: { allowPositionals?: boolean } = {},
): number | Parsed<O> {
  try {
    // Typed as allowing positionals: a command that refuses them gets an empty array, still a string[].
    const parsed: Parsed<O> = parseArgs({
      args,
      strict: true,
      allowPositionals: allowPositionals as true,
      options: { ...options, ...helpOption },
    });
    if ((parsed.values as { help?: boolean }).help === true) {
      io.out(usage);
      return 0;
    }
    return parsed;
  } catch (error) {
    io.err(`token-conformance ${name}: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
}
