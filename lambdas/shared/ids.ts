/**
 * Identifiers: UUIDv7 (RFC 9562) so that ids sort by creation time; a group's payments are
 * listed and processed in the order they were added.
 */
import { v7 } from 'uuid';

export const newId = (): string => v7();
