import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The suite generates RSA keys in pure JavaScript (node-forge) and starts real servers on a
    // 2-core machine: 5 s, vitest's default, is what a loaded machine sometimes needs for one key.
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
