// What a client id or a username can look like at all. Input that cannot be one is refused like an
// unknown one (the same error, so nothing is learnt), but before any lookup, hashing or storage:
// it costs the server nothing and leaves no failed-attempt record. The bounds are those every
// stored principal meets: the seed and the portal's registrations accept nothing else.

/** RFC 3986 unreserved characters, as the seed and operator registration require; 128 at most. */
export const MAX_CLIENT_ID_LENGTH = 128;
/** `tenant\user`: the seed's shape (one backslash, both parts non-empty), no control characters; 256 at most. */
export const MAX_USERNAME_LENGTH = 256;

const clientId = new RegExp(`^[A-Za-z0-9\\-._~]{1,${MAX_CLIENT_ID_LENGTH}}$`);
// eslint-disable-next-line no-control-regex
const username = /^[^\\\u0000-\u001f\u007f-\u009f]+\\[^\\\u0000-\u001f\u007f-\u009f]+$/;

export function isPlausibleClientId(value: string): boolean {
  return clientId.test(value);
}

export function isPlausibleUsername(value: string): boolean {
  return value.length <= MAX_USERNAME_LENGTH && username.test(value);
}
