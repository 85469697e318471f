import { PassThrough, type Readable } from 'node:stream';

/**
 * A source's read stream (an SFTP file, an S3 object body) as handed to a connector: its failure
 * arrives classified, as the project's error naming what to fix, and a connector that stops reading
 * early (destroys the stream) closes the source's stream too.
 */
export function classifiedStream(source: Readable, classify: (error: unknown) => Error | Promise<Error>): PassThrough {
  const out = new PassThrough();
  source.once(
    'error',
    (error: unknown) => void Promise.resolve(classify(error)).then((classified) => out.destroy(classified)),
  );
  out.once('close', () => source.destroy());
  return source.pipe(out);
}
