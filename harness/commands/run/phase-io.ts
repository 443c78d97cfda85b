// What every phase of `run` writes to, and how a phase ends the run early.
import { processIo as commandIo, type CommandIo } from '../command-io.ts';

/** Where `run` writes; injectable so that a test can search the terminal output for secrets. */
export type RunIo = CommandIo;
/** The terminal, every line made inert (Playwright's output quotes the target's answers). */
export const processIo: RunIo = commandIo;

/** A phase that ends the run early with this exit code (its lines already written). */
export class Exit {
  constructor(readonly code: number) {}
}

/** What every phase may write to: the terminal, and the way out with exit 2. */
export interface PhaseIo extends RunIo {
  /** Prints `token-conformance run: <message>` to stderr; the exit of a setup problem (2). */
  fail(message: string): Exit;
}

/**
 * A PhaseIo for a phase started before the verdict of the one before it: its lines are held, then
 * written in order once `release`d (and any later line at once), or never when the run ends first.
 */
export function heldIo(io: PhaseIo): { io: PhaseIo; release(): void } {
  let held: (() => void)[] | undefined = [];
  const write = (line: () => void) => (held ? held.push(line) : line());
  return {
    io: {
      out: (text) => write(() => io.out(text)),
      err: (text) => write(() => io.err(text)),
      fail: (message) => {
        write(() => io.fail(message));
        return new Exit(2);
      },
    },
    release() {
      const lines = held ?? [];
      held = undefined;
      for (const line of lines) line();
    },
  };
}
