export * from './billing.module';
export * from './billing.service';
export * from './persistence/billing.repository';
export * from './persistence/prisma';
export * from './reservation-sweeper';
