// The kerberos auth method's door: the method, for built-in-methods.ts (its capability's types are in ../capabilities.ts).
export { default as kerberosMethod } from './kerberos-method.js';
