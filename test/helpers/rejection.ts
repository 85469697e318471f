/** What the project's errors carry, as tests read them. */
export type Failure = Error & { exitCode: number; code: string; key?: string; hint?: string };

/** The error a promise rejects with; a resolved promise fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (error) {
    return error as Failure;
  }
  throw new Error('expected a rejection, got a result');
}
