// Faults of the gateway code table (spec §7.2): the gateway refuses the right calls with the right
// status, but names the wrong code. One fault per family of codes rotates each code of the family
// to the next one of it (with that code's §7.2 message, so the body stays consistent and only the
// code is wrong): every check of a code of the family sees a code other than the one it expects.
// The trigger faults serve a trigger of 000-1010 (dot-segments) instead of refusing it: judged
// when the profile declares that trigger (FAIL), only assumed when it declares no triggers (WARN).
import { gatewayErrors, type GatewayErrorCode } from '../../schemas/gateway-error-codes.ts';
import type { Fault } from '../fault.ts';
import { jsonOf, withJson } from '../proxy.ts';

const requirementOf = (code: string) => `ERR-GW-${code.slice(4)}`;

/** A gateway that resolves dot-segments (/../, /./, %2e%2e) before routing: it serves those paths instead of answering 000-1010. */
const dotSegmentsResolved = (): ReturnType<Fault['create']> => ({
  onRequest(req, ctx) {
    if (ctx.kind !== 'gateway' || !/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(req.path.split('?')[0]!)) return req;
    const resolved = new URL(req.path, 'https://gateway.invalid');
    return { ...req, path: `${resolved.pathname}${resolved.search}` };
  },
});

/** OI-14 as the reference declares it, but without `triggers`: the reference triggers are then only assumed. */
const gatewayCodesWithoutTriggers = {
  matching: 'exact',
  statuses: {},
  notProduced: ['000-1200'],
  conditions: { nonBearerScheme: '000-1201', unknownToken: '000-1202', perSecondLimit: '000-2001' },
};

/** A fault that rotates the codes of one family: codes[0] → codes[1] → … → codes[0]. */
function rotate(id: string, what: string, codes: GatewayErrorCode[], extra: Partial<Fault> = {}): Fault {
  const next = new Map(codes.map((code, i) => [code, codes[(i + 1) % codes.length]!]));
  return {
    id,
    title: `gateway codes of ${what} answered with the next code of the family (${codes.join(' → ')} → ${codes[0]})`,
    breaks: codes.map(requirementOf),
    ...extra,
    create: () => ({
      onResponse(res, _req, ctx) {
        const body = ctx.kind === 'gateway' ? jsonOf(res.body) : undefined;
        const to = typeof body?.code === 'string' ? next.get(body.code as GatewayErrorCode) : undefined;
        return to ? withJson(res, { ...body, code: to, message: gatewayErrors[to].message }) : res;
      },
    }),
  };
}

export const gatewayCodeFaults: Fault[] = [
  rotate('gateway-codes-request-rotated', 'request framing, media type and path syntax', [
    '000-1000',
    '000-1001',
    '000-1002',
    '000-1005',
    '000-1010',
    '000-1020',
  ]),
  rotate(
    'gateway-codes-auth-rotated',
    'authentication and authorization',
    ['000-1100', '000-1101', '000-1201', '000-1202', '000-1205'],
    { withProperties: true },
  ),
  rotate('gateway-codes-syntax-rotated', 'request syntax (headers, query, JSON body)', [
    '000-2100',
    '000-2101',
    '000-2102',
    '000-2110',
    '000-2111',
    '000-2112',
    '000-2120',
    '000-2121',
    '000-2122',
  ]),
  rotate('gateway-codes-routing-rotated', 'routing and backend faults (switched on by the fault control)', [
    '000-1003',
    '000-1004',
    '000-1208',
    '000-3000',
    '000-3010',
    '000-5000',
  ]),
  rotate('gateway-codes-backend-rotated', 'paths and backend answers', [
    '000-4000',
    '000-5001',
    '000-5002',
    '000-5003',
    '000-5004',
  ]),
  rotate(
    'gateway-codes-rate-limit-swapped',
    'rate limits (the window quota and the spike limit)',
    ['000-2000', '000-2001'],
    {
      freshServer: "the quota and spike checks spend the client's quota",
    },
  ),
  {
    id: 'gateway-dot-segments-served',
    title:
      'the gateway resolves dot-segments and serves the path instead of 000-1010, although the profile declares those triggers',
    breaks: ['ERR-GW-1010'],
    create: dotSegmentsResolved,
  },
  {
    id: 'gateway-dot-segments-served-assumed',
    title: 'the same gateway, with a profile that declares no gatewayCodes.triggers (the reference triggers assumed)',
    breaks: ['ERR-GW-1010'],
    declare: { gatewayCodes: gatewayCodesWithoutTriggers },
    breaksAs: 'WARN',
    create: dotSegmentsResolved,
  },
  {
    // A status of the code other than §7.2's, a reading OI-14 allows (`statuses`), with gatewayCodes
    // undeclared: the scripted check and the gateway-input property alike read ERR-GW-4000 WARN naming
    // the field, never FAIL.
    id: 'gateway-4000-status-400-assumed',
    title:
      'an unexposed path answered 000-4000 with status 400, while the profile declares no gatewayCodes (404 assumed)',
    breaks: ['ERR-GW-4000'],
    undeclare: ['gatewayCodes'],
    breaksAs: 'WARN',
    withProperties: true,
    create: () => ({
      onResponse: (res, _req, ctx) =>
        ctx.kind === 'gateway' && jsonOf(res.body)?.code === '000-4000' ? { ...res, status: 400 } : res,
    }),
  },
  {
    id: 'gateway-1200-wrong-status',
    title: 'unparseable bearer credentials answered 000-1200 with status 400 instead of the declared 401',
    breaks: ['ERR-GW-1200', 'ERR-GW-1205'],
    // The reference declares 000-1200 not produced (ERR-GW-1200 NOT_APPLICABLE); this target says it sends it.
    declare: {
      gatewayCodes: {
        matching: 'exact',
        statuses: {},
        notProduced: [],
        conditions: { nonBearerScheme: '000-1201', unknownToken: '000-1202', perSecondLimit: '000-2001' },
      },
    },
    create: () => ({
      onResponse(res, _req, ctx) {
        const body = ctx.kind === 'gateway' ? jsonOf(res.body) : undefined;
        return body?.code === '000-1205'
          ? { ...withJson(res, { ...body, code: '000-1200', message: gatewayErrors['000-1200'].message }), status: 400 }
          : res;
      },
    }),
  },
];
