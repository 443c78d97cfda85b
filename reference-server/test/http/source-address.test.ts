// The source address the brute-force bounds count by (src/http/source-address.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sourceOf } from '../../src/http/source-address.ts';

void describe('sourceOf', () => {
  void test('IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64, nothing as one shared source', () => {
    assert.equal(sourceOf('203.0.113.7'), '203.0.113.7');
    assert.equal(sourceOf('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(sourceOf('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(sourceOf('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64', 'one /64, one source');
    assert.equal(sourceOf('2001:0db8:0001:0002::9'), '2001:db8:1:2::/64', 'leading zeros do not make another source');
    assert.equal(sourceOf('::1'), '0:0:0:0::/64');
    assert.equal(sourceOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(sourceOf(undefined), 'unknown');
  });
});
