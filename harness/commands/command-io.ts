// Where a command writes: its output and its errors, one line at a time (tests pass their own).
export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const processIo: CommandIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
