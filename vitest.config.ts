import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Timeouts here only catch a test that hangs; no test asserts how fast anything is (bench/ does).
    // They are sized for the 2-core machine running other work beside the suite (docs/testing.md): a
    // test that runs the CLI several times, or a peer that starts a database, then takes many times
    // what it takes on a quiet machine. A file sets its own only above these.
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
