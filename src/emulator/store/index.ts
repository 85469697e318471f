// Everything the emulator serves, in memory, in key order, read a page at a time behind opaque
// keyset cursors; page bodies assembled in reused buffers.
export { EmulatorStore, jsonOf } from './store.js';
export type { StoredRecord, Transformation } from './store.js';
export { encodeCursor, decodeCursor } from './cursor-codec.js';
export { readPageQuery, takePage } from './paging.js';
export type { PagingStyle } from './paging.js';
export { PageBuffers } from './page-buffers.js';
