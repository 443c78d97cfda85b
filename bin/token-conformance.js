#!/usr/bin/env node
// The package's single entry point. Node 20 cannot run TypeScript itself, so tsx compiles the
// CLI (and what it imports) on the fly; the CLI then dispatches to `serve`, `run`, ... .
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../harness/cli.ts');
process.exitCode = await main(process.argv.slice(2));
