import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { formPostPolicy } from './form-post-csp.js';

const script =
  "\n    document.addEventListener('DOMContentLoaded', function () { document.forms[0].submit() });\n  ";
const page = (
  action: string,
  extra = '',
) => `<!DOCTYPE html><html><head><script>${script}</script>${extra}</head>
<body><form method="post" action="${action}"><input type="hidden" name="code" value="x"/></form></body></html>`;

describe('formPostPolicy', () => {
  it('allows exactly the page script by its SHA-256 and posting only to the redirect URI origin', () => {
    const hash = createHash('sha256').update(script).digest('base64');
    expect(formPostPolicy(page('http://127.0.0.1:4711/cb?x=1&amp;y=2'))).toBe(
      `default-src 'none'; script-src 'sha256-${hash}'; form-action http://127.0.0.1:4711; frame-ancestors 'none'; base-uri 'none'`,
    );
  });

  it('allows nothing more for a page with a second script, no form, or a non-http action', () => {
    expect(formPostPolicy(page('http://127.0.0.1/cb', '<script>alert(1)</script>'))).toBeUndefined();
    expect(formPostPolicy(`<script>${script}</script>`)).toBeUndefined();
    expect(formPostPolicy(page('javascript:alert(1)'))).toBeUndefined();
  });
});
