// The source a request is throttled by (domain/attempt-throttle.ts): the peer's address, never a
// header (X-Forwarded-For is the client's to write). IPv4 as is; IPv6 by its /64 prefix, since one
// host gets a whole /64 and could otherwise take a fresh address per attempt; an IPv4-mapped IPv6
// address is the IPv4 address.
import { isIPv6 } from 'node:net';

export function sourceOf(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  // IPv4 as is (the common case, without the IPv6 checks below).
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]?.split('::') ?? [''];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = Array.from({ length: Math.max(0, 8 - left.length - right.length) }, () => '0');
  return [...left, ...zeros, ...right].map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''));
}
