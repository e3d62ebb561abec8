export * from './api-client';
export * from './s3-test-server';
export * from './infra';
export * from './operator-bus';
export * from './passkey-device';
export * from './json-stub-server';
export * from './hooked-blob-store';
export * from './redos';
