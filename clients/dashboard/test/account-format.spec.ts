import { passkeyName, passkeyNames } from '../src/components/account-format';

/** A passkey as the API lists it, with only the fields its accessible name uses. */
const at = (createdAt: string, deviceType = 'singleDevice', transports: string[] = ['internal']) => ({ createdAt, deviceType, transports });

// The accessible names of the account page's Remove buttons (docs/dashboard.md, "What the owner may do").
describe('passkeyNames', () => {
  it('names passkeys by creation time, device type and connection, without a suffix when they differ', () => {
    const passkeys = [at('2026-11-28T10:04:12.100Z'), at('2026-11-28T10:04:13.100Z'), at('2026-11-28T10:04:12.500Z', 'multiDevice')];
    const names = passkeyNames(passkeys);
    expect(names).toEqual(passkeys.map(passkeyName));
    expect(new Set(names).size).toBe(3);
    expect(names[0]).toMatch(/^the passkey created .*\d{1,2}:\d{2}:\d{2}.* \(this device only, built-in\)$/);
  });

  it('gives passkeys that share a second, a device type and a connection their place among those alike', () => {
    const passkeys = [at('2026-11-28T10:04:12.100Z'), at('2026-11-28T10:05:00.000Z'), at('2026-11-28T10:04:12.900Z'), at('2026-11-28T10:04:12.400Z')];
    const names = passkeyNames(passkeys);
    const base = passkeyName(passkeys[0]);
    expect(names).toEqual([`${base}, 1 of 3 alike`, passkeyName(passkeys[1]), `${base}, 2 of 3 alike`, `${base}, 3 of 3 alike`]);
    expect(new Set(names).size).toBe(4);
  });

  it('names an empty list and a single passkey', () => {
    expect(passkeyNames([])).toEqual([]);
    expect(passkeyNames([at('2026-11-28T10:04:12Z')])).toEqual([passkeyName(at('2026-11-28T10:04:12Z'))]);
  });
});
