import { AuthenticatorEmulator, PasskeysCredentialsMemoryRepository, WebAuthnEmulator } from 'nid-webauthn-emulator';

/** A software passkey authenticator with its own credential store, standing in for one browser/device. */
export interface PasskeyDevice {
  /** `navigator.credentials.create({ publicKey: options })` on a page of `origin`: a RegistrationResponseJSON. */
  create(options: unknown, origin?: string): Record<string, unknown>;
  /** `navigator.credentials.get({ publicKey: options })` on a page of `origin`: an AuthenticationResponseJSON. */
  get(options: unknown, origin?: string): Record<string, unknown>;
}

/**
 * A new passkey device (`nid-webauthn-emulator`, user verification on, counter +1 per use). Each device
 * keeps its own credentials (the emulator's default store is shared by every instance in the process).
 */
export function createPasskeyDevice(defaultOrigin: string): PasskeyDevice {
  const emulator = new WebAuthnEmulator(new AuthenticatorEmulator({ credentialsRepository: new PasskeysCredentialsMemoryRepository() }));
  return {
    create: (options, origin = defaultOrigin) => emulator.createJSON(origin, options as never) as unknown as Record<string, unknown>,
    get: (options, origin = defaultOrigin) => emulator.getJSON(origin, options as never) as unknown as Record<string, unknown>,
  };
}
