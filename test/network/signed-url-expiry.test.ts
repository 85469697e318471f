import { describe, expect, it } from 'vitest';
import { readSignedUrlExpiry, signedUrlSecretParts } from '../../src/network/index.js';

/** The expiry a signed URL states about itself, in each format that states one. */

describe('readSignedUrlExpiry', () => {
  it('AWS Signature Version 4: X-Amz-Date + X-Amz-Expires', () => {
    const url = new URL(
      'https://bucket.s3.eu-west-1.amazonaws.com/a/b.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20240131%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20240131T235959Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=abcdef0123456789',
    );
    expect(readSignedUrlExpiry(url)).toEqual({
      format: 'aws-sigv4',
      signedAt: new Date('2024-01-31T23:59:59Z'),
      expiresAt: new Date('2024-02-01T00:59:59Z'),
    });
  });

  it('Google V4: X-Goog-Date + X-Goog-Expires', () => {
    const url = new URL(
      'https://storage.googleapis.com/bucket/file.json?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=sa%40p.iam.gserviceaccount.com%2F20240301%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20240301T120000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature=00ff',
    );
    expect(readSignedUrlExpiry(url)?.expiresAt).toEqual(new Date('2024-03-01T12:15:00Z'));
    expect(readSignedUrlExpiry(url)?.format).toBe('google-v4');
  });

  it('Azure SAS: se= (date-time or date)', () => {
    const url = new URL(
      'https://acct.blob.core.windows.net/c/f.parquet?sv=2022-11-02&sr=b&sp=r&st=2024-05-01T00%3A00%3A00Z&se=2024-05-02T08%3A30%3A00Z&sig=abc%2Bdef%3D',
    );
    expect(readSignedUrlExpiry(url)).toEqual({ format: 'azure-sas', expiresAt: new Date('2024-05-02T08:30:00Z') });
    expect(readSignedUrlExpiry(new URL('https://a.blob.core.windows.net/c/f?se=2024-05-02&sig=x'))?.expiresAt).toEqual(
      new Date('2024-05-02T00:00:00Z'),
    );
  });

  it('CloudFront custom policy: DateLessThan in the Policy', () => {
    const policy = Buffer.from(
      JSON.stringify({
        Statement: [
          { Resource: 'https://d1.cloudfront.net/*', Condition: { DateLessThan: { 'AWS:EpochTime': 1767225600 } } },
        ],
      }),
    )
      .toString('base64')
      .replace(/\+/g, '-')
      .replace(/=/g, '_')
      .replace(/\//g, '~');
    const url = new URL(
      `https://d1.cloudfront.net/x.csv?Policy=${policy}&Signature=sig~value&Key-Pair-Id=K2JCJMDEHXQW5F`,
    );
    expect(readSignedUrlExpiry(url)).toEqual({ format: 'cloudfront-policy', expiresAt: new Date(1767225600 * 1000) });
  });

  it('Expires= epoch (AWS V2, Google V2, CloudFront canned)', () => {
    const url = new URL('https://bucket.s3.amazonaws.com/k?AWSAccessKeyId=AKIA&Expires=1700000000&Signature=abc%3D');
    expect(readSignedUrlExpiry(url)).toEqual({ format: 'expires-epoch', expiresAt: new Date(1700000000 * 1000) });
  });

  it('undefined where the URL does not say (or does not carry a signature)', () => {
    expect(readSignedUrlExpiry(new URL('https://example.com/file.csv?token=abc'))).toBeUndefined();
    expect(readSignedUrlExpiry(new URL('https://example.com/file.csv?Expires=1700000000'))).toBeUndefined();
    expect(readSignedUrlExpiry(new URL('https://example.com/f?X-Amz-Date=garbage&X-Amz-Expires=60'))).toBeUndefined();
  });
});

describe('signedUrlSecretParts', () => {
  it('lists the query as configured and as re-encoded, and each signature value', () => {
    const configured = 'https://h.example/p?X-Amz-Credential=AKIA%2F2024&X-Amz-Signature=deadbeefcafe&x-id=GetObject';
    const parts = signedUrlSecretParts(configured, new URL(configured));
    expect(parts).toContain('X-Amz-Credential=AKIA%2F2024&X-Amz-Signature=deadbeefcafe&x-id=GetObject');
    expect(parts).toContain('deadbeefcafe');
    expect(parts).toContain('AKIA/2024');
    expect(parts).toContain('AKIA%2F2024');
    expect(parts).not.toContain('GetObject');
  });
});
