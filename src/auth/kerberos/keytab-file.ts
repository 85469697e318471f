import { ConfigurationError } from '../../errors/index.js';

/**
 * What a keytab holds, read without the Kerberos library: the principals (so a principal the keytab
 * lacks is named before any KDC is asked) and the key bytes (so they are registered as secrets in the
 * forms a dump would show). The format is MIT's, version 0x0502 (what kadmin, ktutil and Active
 * Directory's ktpass write): entries of principal, timestamp, key version, enctype and key.
 */

export interface KeytabEntry {
  /** `alice@EXAMPLE.COM`, `postgres/db.example.com@EXAMPLE.COM` */
  principal: string;
  keyVersion: number;
  enctype: number;
  key: Buffer;
}

export function readKeytab(bytes: Buffer, key: string): KeytabEntry[] {
  const refuse = (why: string) =>
    new ConfigurationError(`invalid configuration: ${key} is not a keytab (${why})`, {
      code: 'kerberos_keytab_unreadable',
      key,
      hint:
        key === 'kerberos_keytab'
          ? 'set it to the base64 of the keytab file, as `base64 -w0 client.keytab` prints it'
          : 'point it at a keytab file, as `kadmin ktadd` or `ktutil` writes it',
    });
  if (bytes.length < 2 || bytes[0] !== 5 || bytes[1] !== 2)
    throw refuse('it does not start with the keytab version 0x0502');
  const entries: KeytabEntry[] = [];
  let offset = 2;
  try {
    while (offset + 4 <= bytes.length) {
      const size = bytes.readInt32BE(offset);
      offset += 4;
      // A negative size is a hole left by a removed entry; zero ends the file.
      if (size === 0) break;
      if (size < 0) {
        offset -= size;
        continue;
      }
      entries.push(readEntry(bytes.subarray(offset, offset + size)));
      offset += size;
    }
  } catch {
    throw refuse('an entry is cut short');
  }
  if (entries.length === 0) throw refuse('it holds no key');
  return entries;
}

function readEntry(entry: Buffer): KeytabEntry {
  let at = 0;
  const u16 = () => ((at += 2), entry.readUInt16BE(at - 2));
  const u32 = () => ((at += 4), entry.readUInt32BE(at - 4));
  const counted = () => {
    const length = u16();
    if (at + length > entry.length) throw new RangeError('past the entry');
    return ((at += length), entry.subarray(at - length, at));
  };
  const components = u16();
  const realm = counted().toString('utf8');
  const names: string[] = [];
  for (let i = 0; i < components; i++) names.push(counted().toString('utf8'));
  u32(); // name type
  u32(); // timestamp
  const shortVersion = entry.readUInt8(at++);
  const enctype = u16();
  const key = Buffer.from(counted());
  // The 32-bit key version, when present, supersedes the 8-bit one (which wraps at 255).
  const keyVersion = at + 4 <= entry.length ? u32() : shortVersion;
  return { principal: `${names.join('/')}@${realm}`, keyVersion, enctype, key };
}
