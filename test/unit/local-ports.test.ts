/**
 * The local runtime's port settings (lib/local/ports.ts): PORT and SES_PORT with their defaults,
 * DYNAMODB_PORT and SFN_PORT only when set (else picked free at start); a value that is not a
 * port, two variables on one port, or DYNAMODB_PORT beside DYNAMODB_ENDPOINT stop the start with
 * one line naming the variable.
 */
import { localPorts, portSetting } from '#lib/local/ports';

test('defaults: the API on 3000, the local SES on 8005, the internal ports left to the start', () => {
  expect(localPorts({})).toEqual({ PORT: 3000, SES_PORT: 8005 });
  expect(localPorts({ PORT: '', DYNAMODB_PORT: '' })).toEqual({ PORT: 3000, SES_PORT: 8005 });
});

test('each variable sets its port', () => {
  expect(localPorts({ PORT: '3100', SES_PORT: '8105', DYNAMODB_PORT: '8000', SFN_PORT: '8083' })).toEqual({
    PORT: 3100,
    SES_PORT: 8105,
    DYNAMODB_PORT: 8000,
    SFN_PORT: 8083,
  });
});

test.each(['0', '65536', '-1', '80.5', 'abc', ' 8000', '8000x', '1e3', '0x1f40'])(
  'DYNAMODB_PORT=%p is refused, naming the variable',
  (value) => {
    expect(() => localPorts({ DYNAMODB_PORT: value })).toThrow(
      `DYNAMODB_PORT must be a port number from 1 to 65535 (got ${value})`,
    );
  },
);

test.each(['PORT', 'SES_PORT', 'SFN_PORT'])('%s is checked the same way', (variable) => {
  expect(() => localPorts({ [variable]: 'http' })).toThrow(`${variable} must be a port number`);
});

test('the edges of the range are ports', () => {
  expect(portSetting('SFN_PORT', '1')).toBe(1);
  expect(portSetting('SFN_PORT', '65535')).toBe(65535);
  expect(portSetting('SFN_PORT', '08000')).toBe(8000);
  expect(portSetting('SFN_PORT', undefined)).toBeUndefined();
});

test('two variables on one port are refused, naming both', () => {
  expect(() => localPorts({ DYNAMODB_PORT: '3000' })).toThrow(
    'PORT and DYNAMODB_PORT are both 3000: give each its own port',
  );
  expect(() => localPorts({ SES_PORT: '9000', SFN_PORT: '9000' })).toThrow(
    'SES_PORT and SFN_PORT are both 9000',
  );
});

test('DYNAMODB_PORT with DYNAMODB_ENDPOINT is refused: no DynamoDB Local is started then', () => {
  expect(() => localPorts({ DYNAMODB_PORT: '8000', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).toThrow(
    'with DYNAMODB_ENDPOINT it starts none: set one of the two',
  );
  expect(localPorts({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).toEqual({ PORT: 3000, SES_PORT: 8005 });
});
