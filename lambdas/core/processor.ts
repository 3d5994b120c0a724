/**
 * The processor the service charges through: the configured adapter (lambdas/processor/index.ts)
 * made with what it needs from the rest of the service. This is where processor/ meets store/
 * (which never import each other): a processor that keeps one account per merchant (Stripe
 * Connect) reads the merchants' accounts from the registry (store/merchant-accounts.ts).
 */
import { config } from '#shared/config';
import { ddb } from '#shared/ddb';
import { configuredProcessor, type ProcessorPorts } from '#processor/index';
import type { PaymentProcessor } from '#processor/processor';
import { merchantAccountsAt } from '#store/merchant-accounts';

const ports: ProcessorPorts = {
  merchantAccounts: (processor) => merchantAccountsAt(ddb(), config().tableName, processor),
};

export const paymentProcessor = (): PaymentProcessor => configuredProcessor(ports);

export { processorTiming } from '#processor/index';
