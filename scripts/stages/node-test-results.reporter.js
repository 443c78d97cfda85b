// A thin loader: node:test loads `--test-reporter` modules before `--import tsx` is in place, so the
// reporter (node-test-results.ts) is reached through tsx's API, as bin/token-conformance.js does.
import { register } from 'tsx/esm/api';

register();
const { default: nodeTestResults } = await import('./node-test-results.ts');
export default nodeTestResults;
