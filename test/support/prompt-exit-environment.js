/**
 * The tiers' test environment: Jest's own Node environment, and a worker process that ends at once
 * when its work is done.
 *
 * Jest gives a worker 500 ms to end after its last file, then kills it and prints "A worker process
 * has failed to exit gracefully ... likely caused by tests leaking". An infra worker holds about a
 * gigabyte when it is done (CDK's construct trees, the templates): ending the ordinary way, Node
 * frees that heap object by object before the process goes, which took 455-520 ms on a busy
 * 2-core machine, measured from the worker's `exit` event to the parent seeing it go, with nothing
 * left open (no handle, no timer). So the warning came in about half the runs and pointed at a leak
 * that was not there. Exiting from the `exit` event skips freeing what the process is about to
 * lose anyway: the same exit code, about a third of the time (docs/testing.md).
 *
 * The environment runs in the worker's own process (not a test's sandbox). After each file its
 * listener is made the last of the process's `exit` listeners, so any other (a library's clean-up)
 * still runs before it.
 */
const { TestEnvironment } = require('jest-environment-node');

const exitNow = (code) => process.exit(code);

class PromptExitEnvironment extends TestEnvironment {
  async teardown() {
    await super.teardown();
    process.removeListener('exit', exitNow);
    process.on('exit', exitNow);
  }
}

module.exports = PromptExitEnvironment;
