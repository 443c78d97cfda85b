// Notes added through POST /v1/people/er/{identifier}/notes. Kept in memory only and bounded:
// at most `maxPerPerson` notes per person (the oldest go first) and at most `maxPeople` people
// (the person noted least recently goes first).

export interface PersonNote {
  id: string;
  identifier: string;
  text: string;
  createdAt: string;
}

export class PersonNotes {
  private readonly byPerson = new Map<string, PersonNote[]>();
  private sequence = 0;

  constructor(
    private readonly maxPerPerson = 100,
    private readonly maxPeople = 1000,
  ) {}

  add(identifier: string, text: string, now: number): PersonNote {
    this.sequence += 1;
    const note: PersonNote = { id: `note-${this.sequence}`, identifier, text, createdAt: new Date(now).toISOString() };
    const notes = this.byPerson.get(identifier) ?? [];
    this.byPerson.delete(identifier); // re-insert: Map order is recency order
    notes.push(note);
    if (notes.length > this.maxPerPerson) notes.splice(0, notes.length - this.maxPerPerson);
    this.byPerson.set(identifier, notes);
    for (const oldest of this.byPerson.keys()) {
      if (this.byPerson.size <= this.maxPeople) break;
      this.byPerson.delete(oldest);
    }
    return note;
  }

  list(identifier: string): readonly PersonNote[] {
    return this.byPerson.get(identifier) ?? [];
  }

  get peopleTracked(): number {
    return this.byPerson.size;
  }
}
