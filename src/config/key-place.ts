/**
 * Where the user sets a configuration key, as error hints name it. Locally that is
 * configuration.json; under a host the configuration comes from the platform, where the file means
 * nothing to the user: Fivetran's setup form (`serve`), or the settings of the Airbyte connection
 * (`airbyte`). A host says which for its process (one host a process) while it runs.
 */
export type KeyPlace = 'file' | 'form' | 'connection';

let place: KeyPlace = 'file';

/** Makes the hints name `next` until the returned function puts back what was there. */
export function useKeyPlace(next: KeyPlace): () => void {
  const previous = place;
  place = next;
  return () => {
    place = previous;
  };
}

/** The hint's words for the place the keys are set now. */
export const keyHint = {
  set: (key: string): string =>
    place === 'form'
      ? `set the form field '${key}'`
      : place === 'connection'
        ? `set '${key}' in the connection's settings`
        : `set '${key}' in configuration.json`,
  rename: (key: string, to: string): string =>
    place === 'form'
      ? `rename the form field '${key}' to '${to}'`
      : place === 'connection'
        ? `rename the setting '${key}' to '${to}' in the connection's settings`
        : `rename '${key}' to '${to}' in configuration.json`,
  replace: (key: string): string =>
    place === 'form'
      ? `replace the value of the form field '${key}' with the real one`
      : place === 'connection'
        ? `replace the value of '${key}' in the connection's settings with the real one`
        : `replace the value of '${key}' in configuration.json with the real one`,
};
