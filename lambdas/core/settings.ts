/** A merchant's settings as the API shows and changes them (store/settings.ts). */
import type { MerchantSettingsView, UpdateMerchantSettingsInput } from '#contract/schemas/retries';
import { NO_RETRIES, retryPolicyOf } from '#domain/retries';
import { settingsStore, type MerchantSettings } from '#store/settings';

const settingsView = (merchantId: string, s: MerchantSettings): MerchantSettingsView => {
  const policy = s.retryPolicy ?? NO_RETRIES;
  return {
    servicePayId: merchantId,
    retryPolicy: { maxRetries: policy.maxRetries, intervalHours: policy.intervalHours },
    ...(s.lastUpdated !== undefined && { lastUpdated: s.lastUpdated }),
  };
};

export async function merchantSettings(merchantId: string): Promise<MerchantSettingsView> {
  return settingsView(merchantId, await settingsStore().get(merchantId));
}

/** Sets the fields present; an empty change reads the settings as they are. */
export async function changeMerchantSettings(
  merchantId: string,
  input: UpdateMerchantSettingsInput,
  now: Date,
): Promise<MerchantSettingsView> {
  if (input.retryPolicy === undefined) return merchantSettings(merchantId);
  const stored = await settingsStore().update(
    merchantId,
    { retryPolicy: retryPolicyOf(input.retryPolicy) },
    now,
  );
  return settingsView(merchantId, stored);
}
