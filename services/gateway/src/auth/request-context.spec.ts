import { busLogFields, currentBusHeaders, runWithBusHeaders } from '@agent-memory/platform';
import { type GatewayRequest, principalOf, setPrincipal } from './request-context';

describe('setPrincipal', () => {
  const principal = { agentId: 'agt_abc', keyEnvironment: 'live' as const, mode: 'cloud' as const };

  it('puts the principal on the request and in the bus headers of the request, and in log fields', () => {
    const req = {} as GatewayRequest;
    runWithBusHeaders({ requestId: 'req-1' }, () => {
      expect(busLogFields()).toEqual({ requestId: 'req-1' });
      setPrincipal(req, principal);
      expect(currentBusHeaders()).toEqual({ requestId: 'req-1', agentId: 'agt_abc', keyEnvironment: 'live' });
      expect(busLogFields()).toEqual({ requestId: 'req-1', agentId: 'agt_abc' });
    });
    expect(principalOf(req)).toBe(principal);
  });

  it('outside a bus context only sets the request', () => {
    const req = {} as GatewayRequest;
    setPrincipal(req, principal);
    expect(principalOf(req)).toBe(principal);
    expect(currentBusHeaders()).toBeUndefined();
    expect(busLogFields()).toEqual({});
  });
});
