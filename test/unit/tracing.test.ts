/**
 * Issue 22 item 3: X-Ray never records response bodies or payor data. The handlers' tracing
 * middleware runs here as in Lambda (tracing on, a segment open): a handler's answer is not added
 * as metadata, and a failure is recorded as a flag without its message.
 */
import '#support/handlers/env';
import type { Context } from 'aws-lambda';
import { taskHandler } from '#shared/task';
import { tracer } from '#shared/tracer';

const context = { functionName: 'test', awsRequestId: 'r' } as unknown as Context;

/** A segment that records what the tracer does to it. */
function tracedSegment() {
  const segment = {
    addNewSubsegment: jest.fn(),
    addMetadata: jest.fn(),
    addAnnotation: jest.fn(),
    addError: jest.fn(),
    addErrorFlag: jest.fn(),
    close: jest.fn(),
  };
  segment.addNewSubsegment.mockReturnValue(segment);
  jest.spyOn(tracer, 'isTracingEnabled').mockReturnValue(true);
  jest.spyOn(tracer, 'getSegment').mockReturnValue(segment as never);
  jest.spyOn(tracer, 'setSegment').mockImplementation(() => undefined);
  jest.spyOn(tracer, 'annotateColdStart').mockImplementation(() => undefined);
  jest.spyOn(tracer, 'addServiceNameAnnotation').mockImplementation(() => undefined);
  // Metadata goes to X-Ray's own current segment: recorded here instead.
  const metadata = jest.spyOn(tracer, 'putMetadata').mockImplementation(() => undefined);
  return { segment, metadata };
}

afterEach(() => jest.restoreAllMocks());

it("records no handler's answer: a payor's data never reaches X-Ray", async () => {
  const { segment, metadata } = tracedSegment();
  const answer = { payorId: 'p1', firstName: 'Jane', maskedAccountNumber: '************1111' };
  const handler = taskHandler(async () => answer);
  await expect(handler({}, context)).resolves.toEqual(answer);
  expect(segment.addNewSubsegment).toHaveBeenCalled();
  expect(metadata).not.toHaveBeenCalled();
  expect(segment.addMetadata).not.toHaveBeenCalled();
});

it('records a failure as a flag, without its message (a refusal names the value it refused)', async () => {
  const { segment, metadata } = tracedSegment();
  const handler = taskHandler(async () => {
    throw new Error('customerAccountId "Jane Doe, 12 Elm St" refused');
  });
  await expect(handler({}, context)).rejects.toThrow('refused');
  expect(segment.addErrorFlag).toHaveBeenCalled();
  expect(segment.addError).not.toHaveBeenCalled();
  expect(metadata).not.toHaveBeenCalled();
});
