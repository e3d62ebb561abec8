export * from './agents.module';
export * from './agent-key';
export * from './clock';
export * from './humans/passkey.options';
export { type WalletSignatureRealm } from './use-cases/wallet-proofs.use-cases';
