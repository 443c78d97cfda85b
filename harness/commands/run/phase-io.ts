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
