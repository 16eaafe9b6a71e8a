/**
 * The content-generation, bootstrap and team services (second spec document) and the action workflows: what the
 * rest of the server and the tests use of them. Their routes are in routes/services/. See docs/reference-services.md.
 */
export type { ServicesOptions } from '../state/services-options.js';
export { configureServices, type Services } from './registry.js';
export { DELIVERY_ID_HEADER, SIGNATURE_HEADER, sign, verifySignature } from './workflows/signature.js';
