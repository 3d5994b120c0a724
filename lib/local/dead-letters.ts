/** What `GET /__local/dlq` lists: stream records the forwarder gave up on, queue messages the notifier did. */
export type DeadLetter = { at: string; reason: string } & (
  { shardId: string; sequenceNumbers: string[] } | { messageId: string; body: string }
);
