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
        say('No passkey was used (' + (err && err.name ? err.name : 'cancelled') + '). Try again.');
      });
    });
  });
})();
`;
