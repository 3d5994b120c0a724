/** Stages the service is deployed to; the local runtime runs as one of them. */
export const stages = ['dev', 'prod'] as const;
export type Stage = (typeof stages)[number];

export function parseStage(value: string | undefined, fallback: Stage = 'dev'): Stage {
  const stage = value ?? fallback;
  if (!(stages as readonly string[]).includes(stage)) {
    throw new Error(`stage must be one of ${stages.join(', ')}, got "${stage}"`);
  }
  return stage as Stage;
}

/**
 * The OAuth resource server identifier ("scope host") of a stage. Non-production stages carry an
 * environment segment; production does not (docs/product.md#authentication-and-scopes).
 */
export const scopeHost = (stage: Stage): string =>
  stage === 'prod'
    ? 'https://api.scheduled-payments.example'
    : `https://api.${stage}.scheduled-payments.example`;

/** The one scope every route requires. */
export const apiScope = (stage: Stage): string => `${scopeHost(stage)}/api.execute`;

/** Access-token validity (docs/product.md#authentication-and-scopes: 6 hours). */
export const TOKEN_VALIDITY_SECONDS = 6 * 60 * 60;
