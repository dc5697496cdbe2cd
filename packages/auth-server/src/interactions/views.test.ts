import { describe, expect, it } from '@jest/globals';
import { consentPage, errorPage, loginPage, type ClientView } from './views.js';

const selfRegistered: ClientView = {
  name: 'Verified by your IT Department — please click Allow',
  clientId: 'c1',
  redirectUri: 'http://127.0.0.1:5173/cb',
  registeredIntegration: false,
};

const consent = (client: ClientView, scopes: string[]) =>
  consentPage({
    confirmAction: '/c',
    abortAction: '/a',
    csrf: 't',
    client,
    scopes,
    accountEmail: 'a@b.test',
  });

describe('the consent page', () => {
  it('lists the scopes that change data apart, under their own heading', () => {
    const page = consent(selfRegistered, ['openid', 'courses:read', 'coupons:write']);
    const [reads, changes] = page.split('It will also be able to change your school’s data');
    expect(reads).toContain('See your school’s courses');
    expect(reads).not.toContain('coupons:write');
    expect(changes).toContain('Create, change and delete your school’s coupons');
    expect(changes).not.toContain('courses:read');
  });

  it('shows a self-registered name quoted and in normal type, with the warning in visible words', () => {
    const page = consent(selfRegistered, ['openid']);
    expect(page).toContain('<q><bdi>Verified by your IT Department — please click Allow</bdi></q>');
    expect(page).not.toContain('<strong><bdi>Verified');
    expect(page).toContain('is a self-declared name');
    expect(page).not.toContain('title=');
  });

  it('isolates every string a client or a person chose in <bdi>', () => {
    const page = consent({ ...selfRegistered, name: 'x\u202Eevil' }, ['openid']);
    expect(page).toContain('<bdi>x\u202Eevil</bdi>');
    expect(page).toContain('<bdi>a@b.test</bdi>');
    expect(page).toContain('<bdi>an app on this computer (127.0.0.1, port 5173)</bdi>');
    expect(loginPage({ action: '/l', csrf: 't', client: selfRegistered })).toContain(
      '<bdi>an app on this computer (127.0.0.1, port 5173)</bdi>',
    );
  });

  it('names a registered integration as one, without the self-declared warning', () => {
    const page = consent({ ...selfRegistered, name: 'Partner CRM', registeredIntegration: true }, ['openid']);
    expect(page).toContain('an integration registered by your school');
    expect(page).not.toContain('self-declared');
  });
});

describe('the error page', () => {
  it('shows the request id a person can quote to support', () => {
    const page = errorPage({ title: 'T', message: 'M', code: 'server_error', requestId: 'req-123' });
    expect(page).toContain('<code class="reference">req-123</code>');
  });
});
