/**
 * What `npm start` prints when the runtime cannot start. A busy port names the variable that moves
 * it: the API's and the local SES's ports are fixed by PORT and SES_PORT; the internal
 * ones (DynamoDB Local, the Step Functions endpoint) by DYNAMODB_PORT and SFN_PORT when set, else
 * they are picked free at start, so a clash there is a race that a second attempt does not meet.
 */

interface AddressInUse {
  code: 'EADDRINUSE';
  port: number;
}

const isAddressInUse = (error: unknown): error is AddressInUse =>
  error instanceof Error && (error as { code?: unknown }).code === 'EADDRINUSE';

/** The message for `error`; `ports` maps each port variable to the port it set (e.g. PORT → 3000). */
export function startupErrorMessage(
  error: unknown,
  ports: Readonly<Record<string, number | undefined>>,
): string {
  if (isAddressInUse(error)) {
    const variable = Object.entries(ports).find(([, port]) => port === error.port)?.[0];
    if (variable !== undefined)
      return (
        `port ${error.port} is already in use (another npm start?): stop that process, or set ` +
        `${variable} to a free port, e.g. ${variable}=${error.port + 100} npm start`
      );
    return `port ${error.port}, picked free at start, was taken meanwhile: start again`;
  }
  return error instanceof Error ? error.message : String(error);
}
