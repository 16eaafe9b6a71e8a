import type { Materializer } from './types.js';

/** `ephemeral`: nothing is created; the model is inlined as a CTE into each model that reads it (see compile.ts). */
export const materializeEphemeral: Materializer = async () => ({ rowsAffected: null, message: 'inlined' });
