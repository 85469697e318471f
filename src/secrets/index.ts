export { SecretRegistry, secrets, MIN_SECRET_LENGTH } from './secret-registry.js';
export { derivedForms, basicCredentialForms } from './derived-forms.js';
