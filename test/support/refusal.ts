/**
 * A 400's body: `{message, responseCode: 400}` whose message names `word`, and, when a schema
 * refused the request, `errors` with every problem (the first one is the message).
 */
export function expectRefusal(body: unknown, word: string): void {
  const { errors, ...rest } = body as { errors?: { field: string; message: string }[] };
  expect(rest).toEqual({ message: expect.stringContaining(word), responseCode: 400 });
  if (errors !== undefined) {
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toEqual({ field: expect.any(String), message: (rest as { message: string }).message });
  }
}
