// Integration and e2e tests talk to real servers (and wait for settlement cut-offs).
jest.setTimeout(60_000);
