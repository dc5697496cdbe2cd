/**
 * The device_code grant type a metadata document lists (as VS Code's does): kept in the document, and
 * given to its client only as DEVICE_PAIRING allows: never when off, under `integrations` only for a
 * client_id an operator allowed, under `all` for any document.
 */
import { describe, expect, it } from '@jest/globals';
import { checkDocument, grantUsability, toClientMetadata } from './metadata-document.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const url = 'https://vscode.example/oauth/client-metadata.json';
const { doc, dropped } = checkDocument(url, {
  client_id: url,
  client_name: 'Visual Studio Code',
  redirect_uris: ['http://127.0.0.1:33418/'],
  grant_types: ['authorization_code', 'refresh_token', DEVICE_GRANT],
  token_endpoint_auth_method: 'none',
});

describe('the device_code grant type of a metadata document', () => {
  it('is kept in the document, not dropped as unsupported', () => {
    expect(doc.grant_types).toContain(DEVICE_GRANT);
    expect(dropped).toEqual([]);
  });

  it.each([
    ['off', false, false],
    ['off', true, false],
    ['integrations', false, false],
    ['integrations', true, true],
    ['all', false, true],
  ] as const)(
    'DEVICE_PAIRING=%s, allowed by an operator: %s → the client gets it: %s',
    (mode, allowed, gets) => {
      const client = toClientMetadata(doc, { allowed, devicePairing: mode });
      expect(client.grant_types).toEqual(
        gets
          ? ['authorization_code', 'refresh_token', DEVICE_GRANT]
          : ['authorization_code', 'refresh_token'],
      );
      const { unusable } = grantUsability(doc, { allowed, devicePairing: mode });
      expect(unusable.map((d) => d.value)).toEqual(gets ? [] : [DEVICE_GRANT]);
    },
  );

  it('says why it is not given', () => {
    expect(grantUsability(doc, { allowed: true }).unusable[0]?.why).toBe(
      'device pairing is off here (DEVICE_PAIRING=off)',
    );
    expect(grantUsability(doc, { allowed: false, devicePairing: 'integrations' }).unusable[0]?.why).toMatch(
      /needs an operator to allow this client_id/,
    );
  });
});
