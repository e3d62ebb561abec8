export * from './agents.module';
export * from './agents.service';
export * from './agent-keys.service';
export * from './agent-key';
export * from './clock';
export * from './humans/passkey.options';
export * from './wallet-proofs.service';
