import { checkBody, describeProblems } from '../backends/kairoku/protocol.js';
import type { ErrorBody, RequestOf, ResponseOf, Route } from '../backends/kairoku/protocol.js';

/** The app refused the credential (401): the runner stops in full (RF-012). */
export class Unauthorized extends Error {}

/** The app answered with an error status (other than 401). */
export class AppRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The app could not be reached, or answered something that is not the protocol. */
export class AppUnreachable extends Error {}

/**
 * The runner's side of the protocol: one POST per route under the app credential. Requests are
 * checked before they leave (a bug if one does not fit), and responses when they arrive: an answer
 * that does not fit its schema is treated as the app being unreachable, with the same backoff.
 */
export class AppClient {
  constructor(
    private readonly appUrl: string,
    private readonly token: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async post<R extends Route>(route: R, body: RequestOf[R]): Promise<ResponseOf[R]> {
    const own = checkBody(`${route}.request`, body);
    if (own.length)
      throw new Error(`BUG: the runner built a ${route} request that does not fit: ${describeProblems(own)}`);
    let response: Response;
    try {
      response = await fetch(`${this.appUrl}/v1/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new AppUnreachable(`the app at ${this.appUrl} is unreachable: ${(error as Error).message}`);
    }
    const text = await response.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AppUnreachable(
        `the app answered ${route} with ${response.status} and a body that is not JSON`,
      );
    }
    if (response.status === 401)
      throw new Unauthorized(errorMessage(parsed) ?? 'the app refused the credential');
    if (response.status !== 200) {
      const problems = checkBody('error', parsed);
      if (problems.length)
        throw new AppUnreachable(
          `the app answered ${route} with ${response.status} and a body that is not an error`,
        );
      const error = (parsed as ErrorBody).error;
      throw new AppRefusal(response.status, error.code, error.message);
    }
    const problems = checkBody(`${route}.response`, parsed);
    if (problems.length)
      throw new AppUnreachable(
        `the app's ${route} response does not fit its schema: ${describeProblems(problems)}`,
      );
    return parsed as ResponseOf[R];
  }
}

function errorMessage(body: unknown): string | undefined {
  const message = (body as ErrorBody | undefined)?.error?.message;
  return typeof message === 'string' ? message : undefined;
}
