/**
 * Replaces the group and payment stores with the in-memory fakes of `./fakes` for every module
 * loaded after this one. Import it right after '#support/handlers/env', before any handler: the test transform
 * does not hoist `jest.mock` calls, so they must run before the stores are first required.
 */
import { mockStoreModule } from '#support/handlers/fakes';

jest.mock('#store/groups', () => mockStoreModule('groups'));
jest.mock('#store/payments', () => mockStoreModule('payments'));
