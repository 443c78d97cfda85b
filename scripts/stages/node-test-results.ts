// A node:test reporter (loaded through node-test-results.reporter.js) that writes one JSON line per
// finished test or suite to its `--test-reporter-destination`: what judge-node-test-results.ts needs
// to tell the tests a file really ran from the one result node:test makes up for a file that
// reported none.
import type { TestEvent } from './judge-node-test-results.ts';

interface RunnerEvent {
  type: string;
  data: {
    name?: string;
    nesting?: number;
    file?: string;
    skip?: boolean | string;
    todo?: boolean | string;
    details?: { type?: string; error?: { failureType?: string; message?: string; cause?: unknown } };
  };
}

function firstLine(error: { message?: string; cause?: unknown } | undefined): string | undefined {
  const cause = error?.cause;
  const text = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : error?.message;
  return text?.split('\n')[0];
}

export default async function* nodeTestResults(source: AsyncIterable<RunnerEvent>): AsyncGenerator<string> {
  for await (const { type, data } of source) {
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    const error = data.details?.error;
    const event: TestEvent = {
      outcome: type === 'test:pass' ? 'pass' : 'fail',
      name: data.name ?? '',
      nesting: data.nesting ?? 0,
      ...(data.file !== undefined && { file: data.file }),
      suite: data.details?.type === 'suite',
      skip: data.skip !== undefined && data.skip !== false,
      todo: data.todo !== undefined && data.todo !== false,
      ...(error?.failureType !== undefined && { failureType: error.failureType }),
      ...(firstLine(error) !== undefined && { error: firstLine(error) }),
    };
    yield `${JSON.stringify(event)}\n`;
  }
}
