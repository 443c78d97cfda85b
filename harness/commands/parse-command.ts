// A command's arguments, parsed strictly with --help: the parsed values, or the exit code when
// the usage was printed (0, --help) or the arguments were refused (2, with the usage).
import { parseArgs } from 'node:util';
import type { CommandIo } from './gate.command.ts';

export type CommandOptions = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>;

export function parseCommand(args: string[], options: CommandOptions, usage: string, name: string, io: CommandIo): number | { values: Record<string, unknown>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args, strict: true, allowPositionals: true, options: { ...options, help: { type: 'boolean', default: false } } });
    if ((parsed.values as Record<string, unknown>).help) {
      io.out(usage);
      return 0;
    }
    return parsed;
  } catch (error) {
    io.err(`token-conformance ${name}: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
}
