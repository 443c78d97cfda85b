// A command's output captured line by line (a command's `io`), for tests that call a command's main.
export function capturedIo() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { out: (l: string) => out.push(...l.split('\n')), err: (l: string) => err.push(...l.split('\n')) },
  };
}
