/**
 * Notifications of change (docs/product.md "Notifications of change"): a bank's correction of an
 * account a debit went to (Nacha change codes C01 account number, C02 routing number, C03 both,
 * C05/C06 account type...), applied to the saved method vaulted with the debit's token before its
 * next debit. Each is made once per method under its own mark (`noc:<noticeId>`, the account
 * updater's per-method marks: store/account-updates.ts) in one transaction with the method's
 * change and its `payment_method.corrected` event. The debit that carried it stays as it is. A NOC
 * for a method deleted since is skipped and counted; one the bank sent before the last applied to
 * the method (a late one) is stale: it never puts back what a newer one corrected.
 */
import { isLateNoc, nocCorrected } from '#domain/account-updates';
import { outcome, type NoticeOutcome } from '#domain/notices';
import type { ProcessorNotice } from '#processor/processor';
import { accountUpdateStore } from '#store/account-updates';
import { changeMethodOnce } from './account-updater';

type NocNotice = Extract<ProcessorNotice, { kind: 'noc' }>;

/** The mark of a NOC on a method: apart from account updates' ids by its prefix. */
const nocMarkId = (noticeId: string): string => `noc:${noticeId}`;

/** Applies one notification of change once per method vaulted with its token. */
export async function applyNoc(notice: NocNotice, now: Date): Promise<NoticeOutcome> {
  const refs = await accountUpdateStore().methodsOfToken(notice.token);
  if (refs.length === 0) return outcome('skipped', 'a NOC for no saved method (deleted, or never saved)');
  const { maskedAccountNumber, fingerprint, accountType } = notice.corrected;
  const results = await Promise.all(
    refs.map((ref) =>
      changeMethodOnce(
        {
          markId: nocMarkId(notice.noticeId),
          next: (method) =>
            nocCorrected(
              method,
              {
                ...(maskedAccountNumber !== undefined && { maskedAccountNumber }),
                ...(fingerprint !== undefined && { fingerprint }),
                ...(accountType !== undefined && { accountType }),
              },
              now,
              notice.occurredAt,
            ),
          late: (method) => isLateNoc(method, notice.occurredAt),
          eventType: 'payment_method.corrected',
        },
        ref,
        now,
      ),
    ),
  );
  if (results.includes('applied')) return outcome('applied');
  if (results.includes('applied-before')) return outcome('applied_before');
  if (results.includes('late')) return outcome('stale', 'older than the last NOC applied to its method');
  return outcome('skipped', 'a NOC for a deleted method');
}
