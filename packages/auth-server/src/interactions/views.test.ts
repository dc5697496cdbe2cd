import { describe, expect, it } from '@jest/globals';
import { errorPage } from '../pages/error-page.js';
import { consentPage, loginPage, type ClientView } from './views.js';

const selfRegistered: ClientView = {
  name: 'Verified by your IT Department — please click Allow',
  clientId: 'c1',
  redirectUri: 'http://127.0.0.1:5173/cb',
  kind: 'open',
  selfDeclared: true,
};

const consent = (
  client: ClientView,
  scopes: string[],
  more: { currentEnd?: number; refusedBefore?: string[] } = {},
) =>
  consentPage({
    ...more,
    confirmAction: '/c',
    abortAction: '/a',
    switchAction: '/s',
    csrf: 't',
    client,
    scopes,
    accountEmail: 'a@b.test',
    durations: [
      { value: 'hour', label: 'One hour', ends: 1_800_000_000 },
      { value: 'revoked', label: 'Until I take it back', ends: 1_900_000_000 },
    ],
    timezone: 'UTC',
  });

describe('the consent page', () => {
  it('lists the scopes that change data apart, under their own heading', () => {
    const page = consent(selfRegistered, ['openid', 'courses:read', 'coupons:write']);
    const [reads, changes] = page.split('<span class="flag">Changes data</span>');
    expect(reads).toContain('See your school’s courses');
    expect(reads).not.toContain('coupons:write');
    expect(changes).toContain('Create, change and delete your school’s coupons');
    expect(changes).not.toContain('courses:read');
  });

  it('offers each scope as a checkbox of the Allow form, openid as none', () => {
    const page = consent(selfRegistered, ['openid', 'courses:read', 'coupons:write']);
    const allow = /<form method="post" action="\/c" id="allow">([\s\S]*?)<\/form>/.exec(page)![1]!;
    expect(allow).toMatch(/<input type="checkbox" id="scope-courses-read" name="scope" value="courses:read"/);
    expect(allow).toMatch(
      /<input type="checkbox" id="scope-coupons-write" name="scope" value="coupons:write"/,
    );
    expect(allow).not.toContain('value="openid"');
    expect(allow).toContain('<label for="scope-coupons-write">');
  });

  it('names beside each scope the kind of school data it reaches', () => {
    const page = consent(selfRegistered, ['openid', 'students:read', 'orders:read', 'courses:write']);
    const label = (scope: string) =>
      new RegExp(`<label for="scope-${scope}">[\\s\\S]*?</label>`).exec(page)![0].replace(/\s+/g, ' ');
    expect(label('students-read')).toContain('<span class="note category">Students’ records</span>');
    expect(label('orders-read')).toContain('<span class="note category">Orders and payments</span>');
    expect(label('courses-write')).toContain('<span class="note category">School content</span>');
  });

  it('starts the scopes that change data unticked for a self-declared app, and ticked for an integration', () => {
    const ticked = (page: string) =>
      [...page.matchAll(/<input type="checkbox"[^>]*value="([^"]+)"[^>]*>/g)]
        .filter(([input]) => / checked\b/.test(input))
        .map((m) => m[1]);
    const scopes = ['openid', 'courses:read', 'coupons:write', 'email'];
    expect(ticked(consent(selfRegistered, scopes))).toEqual(['courses:read', 'email']);
    const integration = { ...selfRegistered, kind: 'integration' as const, selfDeclared: false };
    expect(ticked(consent(integration, scopes))).toEqual(['courses:read', 'email', 'coupons:write']);
  });

  it('shows a self-registered name in normal type, with the warning in visible words', () => {
    const page = consent(selfRegistered, ['openid']);
    expect(page).toContain('<bdi>Verified by your IT Department — please click Allow</bdi>');
    expect(page).not.toMatch(/<(strong|b|h1|h2)>\s*<bdi>Verified/);
    expect(page).toContain('Self-declared name: the app chose this name itself');
    expect(page).toContain('Only continue if you started this app yourself.');
    expect(page).not.toContain('title=');
  });

  it('isolates every string a client or a person chose in <bdi>', () => {
    const page = consent({ ...selfRegistered, name: 'x\u202Eevil' }, ['openid']);
    expect(page).toContain('<bdi>x\u202Eevil</bdi>');
    expect(page).toContain('<bdi>a@b.test</bdi>');
    expect(page).toContain('<bdi>an app on this computer (127.0.0.1, port 5173)</bdi>');
    const passkey = {
      action: '/p',
      recoveryAction: '/r',
      options: '{}',
      nonce: 'n',
      required: false,
      available: true,
    };
    expect(loginPage({ action: '/l', csrf: 't', client: selfRegistered, passkey })).toContain(
      '<bdi>an app on this computer (127.0.0.1, port 5173)</bdi>',
    );
  });

  it('names a registered integration as one, without the self-declared warning', () => {
    const page = consent(
      { ...selfRegistered, name: 'Partner CRM', kind: 'integration', selfDeclared: false },
      ['openid'],
    );
    expect(page).toContain('Registered integration');
    expect(page).not.toMatch(/self-declared/i);
  });

  it('names the verified host of a metadata-document client, and still not its name', () => {
    const page = consent(
      {
        ...selfRegistered,
        name: 'Agent',
        clientId: 'https://agent.example/client.json',
        kind: 'metadata-document',
      },
      ['openid'],
    );
    expect(page).toContain('Published at <bdi>agent.example</bdi> (checked)');
    expect(page).toMatch(/The name\s+itself was chosen by the app/);
  });
});

describe('a repeat or step-up consent page', () => {
  const radios = (page: string) =>
    [...page.matchAll(/<input\s+type="radio"[^>]*>/g)].map(([input]) => ({
      value: /value="([^"]+)"/.exec(input)![1],
      checked: / checked\b/.test(input),
    }));
  // Between the two choices' ends: one hour ends sooner, "until I take it back" later.
  const currentEnd = 1_850_000_000;

  it('preselects "until I take it back" on a first consent and says nothing of a current end', () => {
    const page = consent(selfRegistered, ['courses:read']);
    expect(radios(page)).toEqual([
      { value: 'hour', checked: false },
      { value: 'revoked', checked: true },
    ]);
    expect(page).not.toContain('currently ends');
  });

  it('shows when access ends now, preselects keeping it and says which choice moves it which way', () => {
    const page = consent(selfRegistered, ['courses:read'], { currentEnd });
    expect(radios(page)).toEqual([
      { value: 'current', checked: true },
      { value: 'hour', checked: false },
      { value: 'revoked', checked: false },
    ]);
    // 1_850_000_000 is Wed 16 Aug 2028, 00:53:20 UTC; the last second of access is 00:53:19.
    expect(page).toMatch(/Access currently ends <strong>Wed 16 Aug 2028, 00:53<\/strong>/);
    const line = (value: string) => new RegExp(`value="${value}"[\\s\\S]*?</li>`).exec(page)![0];
    expect(line('hour')).toContain('ends all of its access sooner');
    expect(line('revoked')).toContain('extends all of its access');
    expect(line('current')).not.toMatch(/sooner|extends/);
  });

  it('starts a scope refused before unticked, marked, and leaves the others as they were', () => {
    const integration = { ...selfRegistered, kind: 'integration' as const, selfDeclared: false };
    const page = consent(integration, ['courses:read', 'school:read'], { refusedBefore: ['school:read'] });
    const box = (scope: string) =>
      new RegExp(`<input type="checkbox"[^>]*value="${scope}"[^>]*>`).exec(page)![0];
    expect(box('courses:read')).toMatch(/ checked\b/);
    expect(box('school:read')).not.toMatch(/ checked\b/);
    const label = (scope: string) =>
      new RegExp(`<label for="scope-${scope}">[\\s\\S]*?</label>`).exec(page)![0];
    expect(label('school-read')).toContain('You refused this before.');
    expect(label('courses-read')).not.toContain('refused');
  });
});

describe('the error page', () => {
  it('shows the request id a person can quote to support', () => {
    const page = errorPage({ title: 'T', message: 'M', code: 'server_error', requestId: 'req-123' });
    expect(page).toContain('<code class="ref">req-123</code>');
  });
});
