/** Issue 12, item 7: a busy port at `npm start` names the variable that moves it. */
import { startupErrorMessage } from '#lib/local/startup-errors';

const inUse = (port: number) =>
  Object.assign(new Error(`listen EADDRINUSE: address already in use 127.0.0.1:${port}`), {
    code: 'EADDRINUSE',
    port,
  });
const ports = { PORT: 3000, SES_PORT: 8005, DYNAMODB_PORT: 8000, SFN_PORT: 8083, UNSET_PORT: undefined };

test.each([
  [3000, 'PORT', 'PORT=3100 npm start'],
  [8005, 'SES_PORT', 'SES_PORT=8105 npm start'],
  [8000, 'DYNAMODB_PORT', 'DYNAMODB_PORT=8100 npm start'],
  [8083, 'SFN_PORT', 'SFN_PORT=8183 npm start'],
])('a busy port %p names %s', (port, variable, example) => {
  const message = startupErrorMessage(inUse(port), ports);
  expect(message).toContain(`port ${port} is already in use`);
  expect(message).toContain(`set ${variable} to a free port`);
  expect(message).toContain(example);
});

test('a busy internal port (picked free at start) says to start again', () => {
  expect(startupErrorMessage(inUse(45123), ports)).toBe(
    'port 45123, picked free at start, was taken meanwhile: start again',
  );
});

test('any other error is its message', () => {
  expect(startupErrorMessage(new Error('java not found'), ports)).toBe('java not found');
  expect(startupErrorMessage('odd', ports)).toBe('odd');
});
