"""
Checks that scripts/fuzz adds to schemathesis' own (loaded through SCHEMATHESIS_HOOKS=checks).

- rfc6749_error_body: every 4xx/5xx answer is JSON in the RFC 6749 §5.2 shape, `{"error": ...,
  "error_description": ...}`, both strings within the characters §5.2 allows (%x20-21 / %x23-5B /
  %x5D-7E: printable ASCII without `"` and `\\`), whichever service answered. The one exception is
  an answer the document itself declares as a page for a person (text/html only): the authorization
  endpoint's error page when it cannot redirect back to the client (RFC 6749 §4.1.2.1).
- api_security_headers: every answer of the resource API (its paths: /api/v1/*, /openapi.json,
  /auth.md, /.well-known/oauth-protected-resource) carries the API's security headers: a CSP
  with default-src 'none' and frame-ancestors 'none', nosniff, a referrer policy, and no
  Strict-Transport-Security over plain http.

And one hook, example_references: see its docstring.
"""
import json
import os
import re

import schemathesis


RFC6749_TEXT = re.compile(r"^[\x20\x21\x23-\x5b\x5d-\x7e]+$")
API_PATH = re.compile(r"^/(api/v1/|openapi\.json$|auth\.md$|\.well-known/oauth-protected-resource$)")


def _header(response, name):
    values = response.headers.get(name.lower()) or []
    return values[0] if values else None


def _documented_as_page(case, status):
    declared = (case.operation.definition.raw.get("responses") or {}).get(str(status)) or {}
    media = set((declared.get("content") or {}).keys())
    return bool(media) and "application/json" not in media and all(m.startswith("text/html") for m in media)


@schemathesis.check
def rfc6749_error_body(ctx, response, case):
    if response.status_code < 400 or _documented_as_page(case, response.status_code):
        return None
    media = (_header(response, "content-type") or "").split(";")[0].strip().lower()
    if media != "application/json":
        raise AssertionError(f"error answer {response.status_code} is {media or 'untyped'}, not application/json")
    try:
        body = json.loads(response.content)
    except ValueError as err:
        raise AssertionError(f"error answer {response.status_code} is not valid JSON: {err}") from None
    if not isinstance(body, dict):
        raise AssertionError("error answer is not a JSON object")
    error = body.get("error")
    if not isinstance(error, str) or not RFC6749_TEXT.match(error):
        raise AssertionError(f"`error` is missing or outside the RFC 6749 character set: {error!r}")
    description = body.get("error_description")
    if description is not None and not isinstance(description, str):
        raise AssertionError(f"`error_description` is not a string: {description!r}")
    if description is not None and not RFC6749_TEXT.match(description):
        raise AssertionError(
            f"`error_description` is outside the RFC 6749 character set: {description!r}"
        )
    return None


@schemathesis.check
def api_security_headers(ctx, response, case):
    if not API_PATH.match(case.operation.path):
        return None
    csp = _header(response, "content-security-policy") or ""
    directives = {d.strip() for d in csp.split(";")}
    missing = [d for d in ("default-src 'none'", "frame-ancestors 'none'") if d not in directives]
    if missing:
        raise AssertionError(f"Content-Security-Policy lacks {', '.join(missing)}: {csp!r}")
    if (_header(response, "x-content-type-options") or "").lower() != "nosniff":
        raise AssertionError("X-Content-Type-Options: nosniff is missing")
    if not _header(response, "referrer-policy"):
        raise AssertionError("Referrer-Policy is missing")
    if _header(response, "strict-transport-security"):
        raise AssertionError("Strict-Transport-Security sent over plain http")
    return None


EXAMPLE_REFERENCES = json.loads(os.environ.get("FUZZ_EXAMPLE_REFERENCES") or '{"fields": {}}')


@schemathesis.hook("before_call")
def example_references(ctx, case, kwargs):
    """Where a body names another item with the document's sample id (examples show `{ref:<area>}` as
    one id that names nothing, lib/openapi.ts), put in a seeded id of that area (the harness finds one
    per field). The examples and coverage phases build every case of an operation on its example, so
    without this each is refused for the reference alone (400 "no student with id ...": schemathesis
    warns "Schema validation mismatch"). Config-file body overrides do not reach those two phases, and
    schemathesis cannot tell that plan_id names a membership plan, so it is done here."""
    body = case.body
    if not isinstance(body, dict):
        return
    for field, seeded in EXAMPLE_REFERENCES["fields"].items():
        if body.get(field) == EXAMPLE_REFERENCES.get("sample"):
            body[field] = seeded
