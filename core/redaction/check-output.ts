// Redaction of what a check hands to Playwright, in the worker, before it is sent to the reporters
// (JUnit, allure-playwright, the conformance reporter, the blob): its errors, annotations and text
// attachments. Fields the suite writes itself (requirement IDs, needs, interpretation IDs) are
// left alone; a `property` annotation is JSON: parsed, its counterexample redacted, serialised again.
import type { Redactor } from './redact.ts';

/** Annotation types whose description the suite writes itself from its own catalogue: never redacted. */
const ownAnnotationTypes = new Set(['requirement', 'needs', 'interpretation']);

export interface MutableError {
  message?: string;
  stack?: string;
  value?: string;
  cause?: MutableError;
}

/** Redacts an error's message, stack and value (and its cause's) in place. */
export function redactError(error: MutableError, redactor: Redactor): void {
  if (typeof error.message === 'string') error.message = redactor.redact(error.message);
  if (typeof error.stack === 'string') error.stack = redactor.redact(error.stack);
  if (typeof error.value === 'string') error.value = redactor.redact(error.value);
  if (error.cause && typeof error.cause === 'object') redactError(error.cause, redactor);
}

/** An annotation's description, redacted: a property record structurally, free text as text. */
export function redactAnnotationDescription(type: string, description: string, redactor: Redactor): string {
  if (ownAnnotationTypes.has(type)) return description;
  if (type === 'property') {
    try {
      const record = JSON.parse(description) as Record<string, unknown>;
      if (record !== null && typeof record === 'object' && !Array.isArray(record)) {
        const counterexample = record.counterexample;
        return JSON.stringify(
          typeof counterexample === 'string' ? { ...record, counterexample: redactor.redact(counterexample) } : record,
        );
      }
    } catch {
      // not a property record: redacted as the text it is
    }
  }
  return redactor.redact(description);
}

const textContentType = /^(text\/|application\/(json|xml|x-www-form-urlencoded)|[^;]*\+json)/i;

/** An attachment body, redacted when it is text (by content type); other bodies pass unchanged. */
export function redactAttachmentBody(
  body: string | Buffer,
  contentType: string | undefined,
  redactor: Redactor,
): string | Buffer {
  if (typeof body === 'string') return redactor.redact(body);
  if (contentType !== undefined && textContentType.test(contentType))
    return Buffer.from(redactor.redact(body.toString('utf8')), 'utf8');
  return body;
}
