/**
 * The script of the pages that use passkeys, served from this origin (assets.ts) after the
 * `@simplewebauthn/browser` bundle. A form marked `data-passkey="sign-in"` or `"register"` carries
 * the ceremony's options (JSON, made by the server with a fresh challenge) in `data-options`; on
 * submit the script asks the browser's WebAuthn API, puts the JSON answer into the form's hidden
 * `response` field and submits the form, which the server checks like every other form (CSRF token,
 * Origin). No fetch, so the pages' CSP needs no `connect-src`. Without script, or in a browser
 * without WebAuthn, the form says so and the password stays usable.
 */
export const PASSKEY_PAGE_SCRIPT = `'use strict';
(function () {
  var lib = window.SimpleWebAuthnBrowser;
  var forms = document.querySelectorAll('form[data-passkey]');
  Array.prototype.forEach.call(forms, function (form) {
    var status = form.querySelector('[data-passkey-status]');
    var say = function (text) { if (status) status.textContent = text; };
    // What went wrong, in words; the browser's error names are never shown.
    var WHY = {
      NotAllowedError: 'No passkey was used: it was cancelled, timed out, or this device has none for this account. Try again.',
      InvalidStateError: 'No passkey was used: this device already holds a passkey for this account.',
      AbortError: 'No passkey was used: it was cancelled. Try again.',
      SecurityError: 'No passkey was used: passkeys do not work at this address.',
    };
    if (!lib || !lib.browserSupportsWebAuthn()) {
      say('This browser cannot use passkeys.');
      return;
    }
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var options = JSON.parse(form.getAttribute('data-options'));
      var ceremony = form.getAttribute('data-passkey') === 'register'
        ? lib.startRegistration({ optionsJSON: options })
        : lib.startAuthentication({ optionsJSON: options });
      say('Waiting for your passkey…');
      ceremony.then(function (answer) {
        form.elements.namedItem('response').value = JSON.stringify(answer);
        say('Checking…');
        form.submit();
      }, function (err) {
        say(WHY[err && err.name] || 'No passkey was used. Try again.');
      });
    });
  });
})();
`;
