// The exchange types and readers live with the judges (judges/exchange.ts); the recorder and the
// traffic readers of this folder name them from here.
export * from '../../judges/exchange.ts';
