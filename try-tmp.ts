import * as kdc from './test/peers/kdc.ts';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
const k = (await import('kerberos')).default;
const d = mkdtempSync('/tmp/krbx/run-');
let n = 0;
async function attempt(label: string, peer: { krb5Config: string }, kt: Buffer | undefined, principal: string, cc?: string) {
  const dir = join(d, String(n++)); spawnSync('mkdir', [dir]);
  process.env.KRB5_CONFIG = peer.krb5Config;
  if (kt) { writeFileSync(join(dir, 'k.keytab'), kt); process.env.KRB5_CLIENT_KTNAME = 'FILE:' + join(dir, 'k.keytab'); } else delete process.env.KRB5_CLIENT_KTNAME;
  process.env.KRB5CCNAME = cc ?? 'FILE:' + join(dir, 'cc');
  const t0 = Date.now();
  try { const c = await k.initializeClient('HTTP@localhost', { principal, mechOID: k.GSS_MECH_OID_SPNEGO }); await c.step(''); console.log(label, 'OK', Date.now()-t0); }
  catch (e) { console.log(label, Date.now()-t0, 'ms:', (e as Error).message); }
}
const peer = await kdc.start();
const R = '@' + kdc.REALM;
await peer.addPrincipal('alice'); await peer.addPrincipal('bob'); await peer.addPrincipal('carol'); await peer.addPrincipal('HTTP/localhost');
await peer.addPrincipal('dave', { maxLife: '4 seconds' });
const alice = await peer.keytab('alice');
await attempt('ok', peer, alice, 'alice' + R);
await attempt('ok-noprincipal', peer, alice, '');
const bob = await peer.keytab('bob'); await peer.deletePrincipal('bob');
await attempt('unknown principal', peer, bob, 'bob' + R);
await attempt('principal not in keytab', peer, alice, 'zed' + R);
const carol = await peer.keytab('carol'); await peer.changeKey('carol');
await attempt('wrong keytab', peer, carol, 'carol' + R);
await attempt('unreachable', { krb5Config: (() => { const f = join(d, 'bad.conf'); writeFileSync(f, `[libdefaults]\n default_realm = ${kdc.REALM}\n[realms]\n ${kdc.REALM} = {\n  kdc = 127.0.0.1:9\n }\n`); return f; })() }, alice, 'alice' + R);
// expired: kinit dave with short life
const ccd = 'FILE:' + join(d, 'dave-cc'); const davekt = join(d, 'dave.keytab'); writeFileSync(davekt, await peer.keytab('dave'));
console.log(spawnSync('kinit', ['-kt', davekt, '-l', '3s', 'dave' + R], { env: { ...peer.env(), KRB5CCNAME: ccd }, encoding: 'utf8' }).stderr);
console.log(spawnSync('klist', [], { env: { ...peer.env(), KRB5CCNAME: ccd }, encoding: 'utf8' }).stdout);
await attempt('cache fresh', peer, undefined, '', ccd);
await new Promise(r => setTimeout(r, 5000));
await attempt('cache expired', peer, undefined, '', ccd);
await attempt('cache expired w/ principal', peer, undefined, 'dave' + R, ccd);
await attempt('no cache', peer, undefined, '', 'FILE:/tmp/krbx/none');
await peer.stop();
const skewed = await kdc.start({ clockOffset: '+2h' });
await skewed.addPrincipal('alice'); await skewed.addPrincipal('HTTP/localhost');
await attempt('skew', skewed, await skewed.keytab('alice'), 'alice' + R);
await skewed.stop();
