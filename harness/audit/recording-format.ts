// The suite's own recording format (`record --out FILE`): JSON Lines. The first line says what the
// file is; every further line is one completed exchange (exchange.ts, secrets already digested),
// appended as it completes, so a killed recorder leaves every line before the one in flight whole.
import type { Exchange } from './exchange.ts';

export const recordingFormat = 'token-conformance-recording/1';

export interface RecordingHeader {
  format: typeof recordingFormat;
  startedAt: string;
  /** How the secrets were digested: `env:NAME` (the key's variable, never the key). */
  key: string;
  target?: string;
}

/** One line of a recording after the header: an exchange without the file name. */
export type RecordedExchange = Omit<Exchange, 'file'>;

/** At most this many bytes of a body are kept (token and error bodies are far smaller); the size is always kept. */
export const recordedBodyLimit = 1 << 16;
