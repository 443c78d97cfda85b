// The error catalogue: every public description fits RFC 6749's charset and echoes nothing; the
// catalogue and the README's table name the same codes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  InvalidClient,
  InvalidGrant,
  InvalidRequest,
  InvalidScope,
  MethodNotAllowed,
  ServerError,
  UnauthorizedClient,
  UnsupportedGrantType,
  descriptions,
  errorDescriptionPattern,
} from '../../src/domain/errors.ts';

void describe('error catalogue', () => {
  void test('every description is non-empty and inside the RFC 6749 error_description charset', () => {
    for (const [name, text] of Object.entries(descriptions)) {
      assert.ok(text.length > 0, name);
      assert.match(text, errorDescriptionPattern, name);
    }
  });

  void test('one class per code, with the status of the interpretation table', () => {
    const cases = [
      [new InvalidRequest(descriptions.missingGrantType), 'invalid_request', 400],
      [new MethodNotAllowed(), 'invalid_request', 405],
      [new InvalidClient(descriptions.clientAuthFailed, false), 'invalid_client', 400],
      [new InvalidClient(descriptions.clientAuthFailed, true), 'invalid_client', 401],
      [new InvalidGrant(descriptions.invalidUserCredentials), 'invalid_grant', 400],
      [new UnauthorizedClient(descriptions.unauthorizedClient), 'unauthorized_client', 400],
      [new UnsupportedGrantType(descriptions.unsupportedGrantType), 'unsupported_grant_type', 400],
      [new InvalidScope(descriptions.invalidScope), 'invalid_scope', 400],
      [new ServerError('boom: internal detail'), 'server_error', 500],
    ] as const;
    for (const [error, code, status] of cases) {
      assert.equal(error.error, code);
      assert.equal(error.status, status);
      assert.deepEqual(Object.keys(error.toJSON()).sort(), ['error', 'error_description']);
    }
  });

  void test('the private detail never reaches the body', () => {
    const body = JSON.stringify(new ServerError('SQLITE_BUSY at /secret/path'));
    assert.doesNotMatch(body, /SQLITE|secret/);
  });

  void test('the README documents every error code the server sends, and no other', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const documented = new Set(
      [
        ...readme.matchAll(
          /`(invalid_request|invalid_client|invalid_grant|unauthorized_client|unsupported_grant_type|invalid_scope|server_error|[a-z_]+_error|access_denied)`/g,
        ),
      ].map((m) => m[1]),
    );
    const sent = [
      'invalid_request',
      'invalid_client',
      'invalid_grant',
      'unauthorized_client',
      'unsupported_grant_type',
      'invalid_scope',
      'server_error',
    ];
    assert.deepEqual([...documented].sort(), [...sent].sort());
  });
});
