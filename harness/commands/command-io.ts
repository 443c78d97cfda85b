// Where a command writes: its output and its errors, one line at a time (tests pass their own).
import { terminalOutput } from '../../core/untrusted/neutralise.ts';

export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * Each line made inert on its way out (terminalOutput): a command's lines quote the target (its
 * answers, a report's reasons, a child's output), and a CI log runs a command a line starts with.
 * Colours stay only on a terminal.
 */
const inert =
  (stream: NodeJS.WriteStream) =>
  (text: string): void => {
    const keepStyling = stream.isTTY === true;
    stream.write(
      `${text
        .split('\n')
        .map((line) => terminalOutput(line, keepStyling))
        .join('\n')}\n`,
    );
  };

export const processIo: CommandIo = { out: inert(process.stdout), err: inert(process.stderr) };

/** Lines written as they are: only for lines the tool builds whole, workflow commands on purpose (ci-summary's annotations). */
export const rawProcessIo: CommandIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
