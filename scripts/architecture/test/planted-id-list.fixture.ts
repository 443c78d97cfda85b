// A hand-kept list of requirement IDs, as the ID-list test must see one (a comment naming
// TOKEN-RESP-009 is no literal and does not count).
export const plantedList = ['TOKEN-RESP-006', `GRANT-CC-001`, `${'x'} and ERR-GW-1202`];
