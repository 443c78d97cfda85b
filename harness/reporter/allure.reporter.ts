// allure-playwright, with its result files written without an fsync each.
//
// allure-js-commons' FileSystemWriter opens, writes, fsyncs, closes and renames every result and
// attachment file, synchronously, on the Playwright runner's main thread: the thread that hands the
// checks to the workers. A run writes a result and a transcript per check, and every fsync blocks
// the runner, the longer the busier the disk. The files are read after the run (the
// end-of-run verification, `npm run report:allure`) on the same machine; nothing needs each one on
// disk before the next check may start. Same files, same content; the write to a temporary name and
// the rename stay, so a reader never sees half a file. Options are allure-playwright's own.
//
// An attachment Playwright hands over by path is read once into memory (harness/reporter/read-once.ts),
// never copied: a copy that trusts the size it saw first never ends when the file shrinks under it.
import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Suite } from '@playwright/test/reporter';
import { AllureReporter } from 'allure-playwright';
import { readOnce } from './read-once.ts';

/** The part of allure-js-commons' Writer that runs once per check (the rest is written once per run). */
interface PerCheckWriter {
  writeResult(result: { uuid: string }): void;
  writeGroup(result: { uuid: string }): void;
  writeAttachment(distFileName: string, content: Buffer): void;
  writeAttachmentFromPath(distFileName: string, from: string): void;
}

/** Writes `path` under a temporary name in its folder, then renames it into place (no fsync). */
function publish(path: string, write: (temp: string) => void): void {
  const temp = join(dirname(path), `.allure-write-${randomUUID()}.tmp`);
  try {
    write(temp);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Replaces the per-check methods of the runtime's writer with ones that skip the fsync. */
export function withoutFsync(writer: PerCheckWriter, resultsDir: string): void {
  let made = false;
  const path = (name: string) => {
    if (!made) mkdirSync(resultsDir, { recursive: true });
    made = true;
    return join(resultsDir, name);
  };
  writer.writeResult = (result) =>
    publish(path(`${result.uuid}-result.json`), (t) => writeFileSync(t, JSON.stringify(result), 'utf-8'));
  writer.writeGroup = (result) =>
    publish(path(`${result.uuid}-container.json`), (t) => writeFileSync(t, JSON.stringify(result), 'utf-8'));
  writer.writeAttachment = (name, content) => publish(path(name), (t) => writeFileSync(t, content));
  // Playwright may still be rewriting an attachment's file (its error context) when the check's
  // end reaches this reporter: the file is read once, bounded, never copied by its size.
  writer.writeAttachmentFromPath = (name, from) => {
    const content = readOnce(from);
    publish(path(name), (t) => writeFileSync(t, content));
  };
}

export default class AllureResultsReporter extends AllureReporter {
  override onBegin(suite: Suite): void {
    super.onBegin(suite);
    // allure-playwright builds its runtime (and the default writer) here, with no option to choose one.
    const runtime = (this as unknown as { allureRuntime?: { writer?: Partial<PerCheckWriter> } }).allureRuntime;
    const writer = runtime?.writer;
    if (
      writer &&
      typeof writer.writeResult === 'function' &&
      typeof writer.writeAttachment === 'function' &&
      this.options.resultsDir
    ) {
      withoutFsync(writer as PerCheckWriter, this.options.resultsDir);
    }
  }
}
