export * from './agents.module';
export * from './agents.service';
export * from './agent-key';
