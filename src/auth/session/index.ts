// The session family's door: a token from a login request, and how a login's answer is classified.
export { loginAnswerError, tokenMissingError } from './login-answer.js';
export type { LoginAnswerContext } from './login-answer.js';
