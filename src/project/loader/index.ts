/**
 * Loading a project's connector: `connector.ts` compiled by esbuild and cached by content, through
 * module hooks (in the main thread where Node has them, else its loader thread) or, on Node 20, as
 * one cached bundle imported without the loader thread.
 */
export { loadConnector } from './load-connector.js';
