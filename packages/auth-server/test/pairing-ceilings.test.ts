/**
 * The device pairing page keeps the consent page's ceilings (interactions/ceilings.ts): a staff member
 * pairing a device that asks `school:read students:write` is offered `school:read` only, with
 * `students:write` listed apart with Ask an admin; a hand-made approval naming `students:write` pairs
 * the device with `school:read` only; Ask an admin ends the pairing with `access_denied` saying
 * approval was asked, and records the request with the integration's kind and the duration chosen on
 * the page.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { DEVICE_CODE_GRANT_TYPE } from '@school/shared';
import { authServerForFile } from '../../../test-support/auth-server.js';
import {
  checkboxValues,
  formFields,
  FormBrowser,
  openAccountPage,
  pieceContaining,
  type Page,
} from '../../../test-support/form-browser.js';
import { createIntegration } from '../src/provider/operator-clients.js';

const auth = authServerForFile({ DEVICE_PAIRING: 'integrations' });

/**
 * Presses the button labelled `label` on `page` as a browser does, the radio `choice` picked first
 * where the page shows it: sends the fields of the form the button belongs to (its `form` attribute,
 * else the form around it), `choice` only if that form holds that radio, and the button's own
 * name and value.
 */
async function press(browser: FormBrowser, page: Page, label: string, choice: [string, string]) {
  const buttons = [...page.body.matchAll(/<button([^>]*)>([\s\S]*?)<\/button>/g)];
  const button = buttons.find((b) => b[2]!.includes(label))!;
  const attr = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(button[1]!)?.[1];
  const forms = [...page.body.matchAll(/(<form[^>]*>)[\s\S]*?<\/form>/g)].map((m) => ({
    html: m[0],
    tag: m[1]!,
    at: m.index,
  }));
  const owner = attr('form')
    ? forms.find((f) => f.tag.includes(` id="${attr('form')}"`))
    : forms.find((f) => f.at < button.index && button.index < f.at + f.html.length);
  const action = /action="([^"]*)"/.exec(owner!.html)![1]!;
  const [name, value] = choice;
  const holds = new RegExp(`type="radio"[^>]*name="${name}"[^>]*value="${value}"`).test(owner!.html);
  const fields = formFields(owner!.html, action).filter(([n]) => !(holds && n === name));
  if (holds) fields.push(choice);
  const pressed = attr('name');
  if (pressed) fields.push([pressed, attr('value') ?? '']);
  return browser.follow(action, { form: fields });
}

const post = async (path: string, body: Record<string, string>) => {
  const res = await fetch(`${auth.issuer}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
};

describe('device pairing within the ceiling', () => {
  let agent: { client_id: string; client_secret: string };
  let staff: { id: string; email: string; password: string };
  let browser: FormBrowser;

  beforeAll(async () => {
    agent = await createIntegration(auth.running.provider, 'Lab agent', ['https://lab.example/callback'], {
      devicePairing: true,
    });
    staff = {
      id: '',
      email: `sky-${randomBytes(3).toString('hex')}@school.test`,
      password: `staff password ${randomBytes(9).toString('base64url')}`,
    };
    staff.id = await auth.running.accounts.upsert({ ...staff, name: 'Sky', role: 'staff' });
    browser = new FormBrowser(auth.issuer);
  });

  /** A new device request, its code entered by the staff member: the confirmation page and the code. */
  async function entered() {
    const asked = await post('/api/oauth/device/auth', { ...agent, scope: 'school:read students:write' });
    expect(asked.status).toBe(200);
    const page = await openAccountPage(browser, '/oauth/device', staff);
    const shown = await browser.submit(page, '/oauth/device', { user_code: asked.body.user_code! });
    expect(shown.status).toBe(200);
    return { shown, deviceCode: asked.body.device_code! };
  }

  const poll = (deviceCode: string) =>
    post('/api/oauth/token', { grant_type: DEVICE_CODE_GRANT_TYPE, device_code: deviceCode, ...agent });

  it('offers school:read only, lists students:write apart; a hand-made approval gets school:read only', async () => {
    const { shown, deviceCode } = await entered();
    expect(checkboxValues(shown.body, 'scope')).toEqual(['school:read']);
    const apart = pieceContaining(shown.body, '<section', 'Needs an admin')!;
    expect(apart).toContain('<code>students:write</code>');
    expect(apart).toContain('form="allow"');
    const done = await browser.submit(shown, '/oauth/device', {
      step: 'approve', // as the Allow button sends
      scope: ['school:read', 'students:write'],
    });
    expect(done.body).toContain('Device paired');
    const tokens = await poll(deviceCode);
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('school:read');
  });

  it('Ask an admin ends the pairing with access_denied saying approval was asked, and records it', async () => {
    const { shown, deviceCode } = await entered();
    expect(shown.body).toMatch(/type="radio"[^>]*name="duration"[^>]*value="revoked"/);
    const done = await press(browser, shown, 'Ask an admin', ['duration', 'revoked']);
    expect(done.body).toContain('Pairing denied');
    const polled = await poll(deviceCode);
    expect(polled.status).toBe(400);
    expect(polled.body).toEqual({
      error: 'access_denied',
      error_description: expect.stringMatching(/asked a school admin to approve/),
    });
    const pending = (await auth.running.approvals.pending()).filter((r) => r.accountId === staff.id);
    expect(pending).toEqual([
      expect.objectContaining({
        clientId: agent.client_id,
        clientKind: 'integration',
        scopes: ['students:write'],
        duration: 'revoked',
      }),
    ]);
  });
});
