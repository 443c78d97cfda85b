// The fault switch: one simulated failure at a time, set through the test controls, so that
// the gateway codes no healthy request can produce are reachable.
//   key-source-failure    → 000-1208 before any token is verified
//   invalid-gateway       → 000-1003 ┐
//   gateway-config-error  → 000-1004 │ routing faults: after the request is found valid,
//   route-failure         → 000-3000 │ before the backend is called
//   multi-route-failure   → 000-3010 │
//   unavailable           → 000-5000 ┘ with Retry-After
import type { GatewayErrorCode } from '../../../schemas/gateway-error-codes.ts';
import { reject } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';

export const faultNames = [
  'route-failure',
  'multi-route-failure',
  'unavailable',
  'key-source-failure',
  'invalid-gateway',
  'gateway-config-error',
] as const;

export type FaultName = (typeof faultNames)[number];

export const faultCodes: Readonly<Record<FaultName, GatewayErrorCode>> = {
  'key-source-failure': '000-1208',
  'invalid-gateway': '000-1003',
  'gateway-config-error': '000-1004',
  'route-failure': '000-3000',
  'multi-route-failure': '000-3010',
  unavailable: '000-5000',
};

/** What a 000-5000 tells the client to wait, in seconds. */
export const unavailableRetryAfterSeconds = 30;

export function isFaultName(value: unknown): value is FaultName {
  return typeof value === 'string' && (faultNames as readonly string[]).includes(value);
}

export class FaultSwitch {
  private current: FaultName | null = null;

  get active(): FaultName | null {
    return this.current;
  }

  set(fault: FaultName | null): void {
    this.current = fault;
  }

  /** 000-1208 when the key source is switched to failing. */
  keySourceFault(): GatewayRejection | undefined {
    return this.current === 'key-source-failure'
      ? reject('000-1208', { detail: 'fault switch key-source-failure' })
      : undefined;
  }

  /** The routing fault in front of the backend, if one is switched on. */
  routingFault(): GatewayRejection | undefined {
    if (this.current === null || this.current === 'key-source-failure') return undefined;
    const headers: Record<string, string> =
      this.current === 'unavailable' ? { 'retry-after': String(unavailableRetryAfterSeconds) } : {};
    return reject(faultCodes[this.current], { headers, detail: `fault switch ${this.current}` });
  }
}
