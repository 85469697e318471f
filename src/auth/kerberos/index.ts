// The kerberos auth method's door: the method, for the catalogue (its capability's types are in ../capabilities.ts).
export { default as kerberosMethod } from './kerberos-method.js';
