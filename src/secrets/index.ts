export { SecretRegistry, secrets, MIN_SECRET_LENGTH } from './secret-registry.js';
export { derivedForms, basicCredentialForms, byteForms } from './derived-forms.js';
export { redactedLine, redactedJson } from './redact-then-shape.js';
