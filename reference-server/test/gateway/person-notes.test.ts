import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PersonNotes } from '../../src/gateway/person-notes.ts';

void test('notes are kept per person, newest last, with the clock time', () => {
  const notes = new PersonNotes();
  const note = notes.add('E1', 'hello', Date.UTC(2030, 0, 1));
  assert.deepEqual(note, { id: 'note-1', identifier: 'E1', text: 'hello', createdAt: '2030-01-01T00:00:00.000Z' });
  notes.add('E1', 'again', 0);
  assert.deepEqual(
    notes.list('E1').map((n) => n.text),
    ['hello', 'again'],
  );
});

void test('memory is bounded per person and in people', () => {
  const notes = new PersonNotes(3, 2);
  for (let i = 0; i < 10; i += 1) notes.add('E1', `n${i}`, 0);
  assert.deepEqual(
    notes.list('E1').map((n) => n.text),
    ['n7', 'n8', 'n9'],
  );
  notes.add('E2', 'x', 0);
  notes.add('E1', 'y', 0);
  notes.add('E3', 'z', 0);
  assert.equal(notes.peopleTracked, 2);
  assert.equal(notes.list('E2').length, 0, 'the person noted least recently went first');
});
