/**
 * Seeded local identities (docs/architecture.md#local-runtime): fixed, because tests and tools rely on them.
 */
import type { Merchant } from '../../lambdas/store/merchants';

export const localMerchants: readonly Merchant[] = [
  { merchantId: '32350000001', shortId: '23500001', name: 'Springfield Elementary' },
  { merchantId: '32350000002', shortId: '23500002', name: 'Shelbyville High' },
  { merchantId: '41000000001', shortId: '41000001', name: 'Capital City Academy' },
];

export interface LocalClient {
  readonly clientId: string;
  readonly secret: string;
  readonly merchants: readonly string[];
}

export const localClients: readonly LocalClient[] = [
  { clientId: 'local-tester', secret: 'local-tester-secret', merchants: ['32350000001', '41000000001'] },
  { clientId: 'local-other', secret: 'local-other-secret', merchants: ['32350000002'] },
];
