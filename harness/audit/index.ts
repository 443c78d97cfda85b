// The audit's public pieces: the exchange model and the recording format (for tools that write
// recordings of their own).
export type { Exchange, ExchangeRef, HeaderList, RecordedBody } from './exchange.ts';
export { recordingFormat, type RecordedExchange, type RecordingHeader } from './recording-format.ts';
