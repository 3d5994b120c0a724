/**
 * The local runtime's ports, from its environment (docs/integrating.md#local-runtime-npm-start):
 * the API's (PORT, 3000) and the local SES's (SES_PORT, 8005), and DynamoDB Local's
 * (DYNAMODB_PORT) and the local Step Functions endpoint's (SFN_PORT), which are picked free at
 * start unless set. Each server listens on 127.0.0.1 only, whatever its port.
 */

export interface LocalPorts {
  PORT: number;
  SES_PORT: number;
  DYNAMODB_PORT?: number;
  SFN_PORT?: number;
}

/** A port variable's value: unset or empty is undefined; anything but 1-65535 throws. */
export function portSetting(variable: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 1 && port <= 65535))
    throw new Error(`${variable} must be a port number from 1 to 65535 (got ${value})`);
  return port;
}

export function localPorts(env: Readonly<Record<string, string | undefined>>): LocalPorts {
  const dynamodb = portSetting('DYNAMODB_PORT', env.DYNAMODB_PORT);
  const sfn = portSetting('SFN_PORT', env.SFN_PORT);
  if (dynamodb !== undefined && env.DYNAMODB_ENDPOINT)
    throw new Error(
      'DYNAMODB_PORT is the port of the DynamoDB Local that npm start starts, and with ' +
        'DYNAMODB_ENDPOINT it starts none: set one of the two',
    );
  const ports: LocalPorts = {
    PORT: portSetting('PORT', env.PORT) ?? 3000,
    SES_PORT: portSetting('SES_PORT', env.SES_PORT) ?? 8005,
    ...(dynamodb !== undefined && { DYNAMODB_PORT: dynamodb }),
    ...(sfn !== undefined && { SFN_PORT: sfn }),
  };
  // Otherwise the second server to start would fail on the first's port, and be named for it.
  const seen = new Map<number, string>();
  for (const [variable, port] of Object.entries(ports) as [string, number][]) {
    const first = seen.get(port);
    if (first !== undefined)
      throw new Error(`${first} and ${variable} are both ${port}: give each its own port`);
    seen.set(port, variable);
  }
  return ports;
}
