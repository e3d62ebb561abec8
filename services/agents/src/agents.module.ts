import { type DynamicModule, Module } from '@nestjs/common';
import { DATABASE, type Database } from '@agent-memory/platform';
import { AgentsMessageHandler } from './agents.message-handler';
import { AGENT_KEY_PREFIX, AGENTS_PRISMA, AgentsService } from './agents.service';
import { openAgentsPrisma } from './persistence/prisma';

export interface AgentsModuleOptions {
  /** Prefix of issued agent keys (`<prefix>_live_<secret>`). */
  keyPrefix: string;
}

/** The agents service (DESIGN.md §1): owns agents and key hashes; answers `agents.v1.*`. */
@Module({})
export class AgentsModule {
  static forRoot(options: AgentsModuleOptions): DynamicModule {
    return {
      module: AgentsModule,
      controllers: [AgentsMessageHandler],
      providers: [
        { provide: AGENTS_PRISMA, useFactory: (db: Database) => openAgentsPrisma(db), inject: [DATABASE] },
        { provide: AGENT_KEY_PREFIX, useValue: options.keyPrefix },
        AgentsService,
      ],
    };
  }
}
