/** A merchant's settings: the retry policy of its groups that have none of their own. */
import { RETRY_POLICY } from '../limits';
import { merchantSettingsSchema, updateMerchantSettingsSchema } from '../schemas/retries';
import { M } from './groups';
import { route } from './types';

const POLICY_RULES = `A group without a retryPolicy of its own follows the merchant's, taken when each of its runs begins (its first processing, each retry round); the default is \`{maxRetries: 0}\`: no retries.

- Only a category-2 decline is retried (never category 1, never after a Mastercard merchant advice code \`03\` or \`21\`, a CHECKING debit only after insufficient funds \`51\`), at the first hourly slot at least intervalHours after the previous attempt, at most maxRetries times (${RETRY_POLICY.maxRetries.min}-${RETRY_POLICY.maxRetries.max}; intervalHours ${RETRY_POLICY.intervalHours.min}-${RETRY_POLICY.intervalHours.max}, default ${RETRY_POLICY.intervalHours.default}).
- Never beyond the networks' limits, counted per card (or bank account) across every payment and sale of the merchant: Visa and other brands 15 retries in 30 days; Mastercard 10 in 24 hours and 35 in 30 days; CHECKING 2 in 180 days (Nacha). A retry that would pass one is not made: the payment shows \`retry.status: not_retried\`, \`reason: network_limit\` and the rule in \`detail\`.`;

export const settingsRoutes = {
  GetMerchantSettings: route({
    id: 'GetMerchantSettings',
    method: 'GET',
    path: `${M}/settings`,
    handler: 'settings/get-settings',
    status: 200,
    summary: "Get the merchant's settings (the retry policy)",
    description: `The merchant's settings, defaults filled in.\n\n${POLICY_RULES}`,
    response: { schema: merchantSettingsSchema, description: "The merchant's settings." },
  }),
  UpdateMerchantSettings: route({
    id: 'UpdateMerchantSettings',
    method: 'PUT',
    path: `${M}/settings`,
    handler: 'settings/update-settings',
    status: 200,
    summary: "Change the merchant's settings (the retry policy)",
    description: `Changes the fields present (an empty body changes nothing). \`retryPolicy\`: \`{maxRetries, intervalHours?}\` replaces the merchant's policy; \`{maxRetries: 0}\` turns retries off for its groups without a policy of their own. Retries already scheduled keep their time; the next run of each group follows the new policy.\n\n${POLICY_RULES}`,
    body: { schema: updateMerchantSettingsSchema },
    response: { schema: merchantSettingsSchema, description: "The merchant's settings after the change." },
  }),
};
