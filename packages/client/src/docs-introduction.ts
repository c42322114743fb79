import { duplicateThreshold } from "@atrium/domain"
import type { ContractDocument } from "./openapi-documents.ts"
import { problemCatalog, problemType } from "./problem-catalog.ts"

/** Verifies a Standard Webhooks delivery in Node (no dependency); the docs show it and a test runs it. */
export const nodeWebhookVerification = `const { createHmac, timingSafeEqual } = require("node:crypto")

// secret: the endpoint's "whsec_…" secret; headers: the request headers (lower-case names); body: the raw body text.
function verifyWebhook(secret, headers, body, toleranceSeconds = 300) {
  const id = headers["webhook-id"]
  const timestamp = headers["webhook-timestamp"]
  const signatures = headers["webhook-signature"]
  if (!id || !timestamp || !signatures) return false
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64")
  const expected = createHmac("sha256", key).update(\`\${id}.\${timestamp}.\${body}\`).digest()
  // During a secret rotation several space-separated signatures are sent: any valid one is enough.
  return signatures.split(" ").some((entry) => {
    const [version, value] = entry.split(",")
    const given = Buffer.from(value ?? "", "base64")
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected)
  })
}

module.exports = { verifyWebhook }
`

/** The same verification in Python (standard library only); the docs show it and a test runs it. */
export const pythonWebhookVerification = `import base64, hashlib, hmac, time

# secret: the endpoint's "whsec_..." secret; headers: a dict with lower-case names; body: the raw body as str.
def verify_webhook(secret, headers, body, tolerance_seconds=300):
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not msg_id or not timestamp or not signatures:
        return False
    if abs(time.time() - int(timestamp)) > tolerance_seconds:
        return False
    key = base64.b64decode(secret.removeprefix("whsec_"))
    expected = hmac.new(key, f"{msg_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    # During a secret rotation several space-separated signatures are sent: any valid one is enough.
    for entry in signatures.split(" "):
        version, _, value = entry.partition(",")
        if version == "v1" and hmac.compare_digest(base64.b64decode(value), expected):
            return True
    return False
`

const errorTable = () =>
  [
    "| status | code | what it means, what to do |",
    "|---|---|---|",
    ...problemCatalog.map((problem) => `| ${problem.status} | [\`${problem.code}\`](${problemType(problem.code)}) | ${problem.when} |`)
  ].join("\n")

const authentication = (document: ContractDocument) =>
  document.slug === "v1"
    ? `Send a workspace API key on every request:

\`\`\`http
GET /api/v1/workspaces/current
Authorization: Bearer sk_live_…
\`\`\`

Keys are created in the console (or \`POST /api/mobile/api-keys\`) and shown once. A key acts in its own workspace under
its scopes: \`read\` (the default; every \`GET\`), \`ai_tasks:write\`, \`webhooks:write\`, \`schedules:write\`, and \`write\`
(every scope). A missing scope is 403 \`insufficient_scope\` naming \`requiredScope\`. A workspace id in a path, query, header
or body never widens access; another workspace's records answer 404 \`not_found\`. \`POST /api/v1/ai-tasks\` also takes a
member session access token.`
    : `Sign in with \`POST /api/auth/sign-in { email, password }\` (or sign up): the answer's \`session\` holds an
\`accessToken\` and a \`refreshToken\`. Send the access token on every request:

\`\`\`http
GET /api/mobile/organization
Authorization: Bearer at_…
\`\`\`

When a request answers 401 \`session_expired\`, call \`POST /api/auth/refresh { refreshToken }\` once and retry with the new
access token; keep the new refresh token (each is single-use: presenting a used one ends the whole session). A 401
\`invalid_session\` means the session is over: sign in again. The session acts in its active workspace
(\`PUT /api/mobile/organization/active\`) under the member's role (\`owner\` ⊇ \`admin\` ⊇ \`member\`); a role that does not
allow the action is 403 \`forbidden\`. API keys are refused here.`

// What a phone receives, and how possible duplicates are found: the session interface's own sections.
const mobileSections = `
## Push notifications

A device registered with \`PUT /api/mobile/push-devices/{installationId}\` receives Expo push messages while push is on
(\`features.push\` on \`GET /api/mobile/organization\`) and the member allows the category
(\`GET|PUT /api/mobile/notification-preferences\`). Each message is \`{ title, body, data, sound: "default" }\`: \`title\` and
\`body\` are short text to show as they are (they may change wording); \`data\` is for the app, a flat object of strings
that always has \`type\`, the event that caused it. Messages carry ids, never secrets or another workspace's content.

| \`data.type\` | category | who receives it | other \`data\` members |
|---|---|---|---|
| \`ai_task.succeeded\`, \`ai_task.failed\` | \`ai_tasks\` | the member who submitted the task | \`taskId\`, \`workspaceId\` |
| \`invitation.created\` | \`invitations\` | the invitee, when an account has that address | \`invitationId\` |
| \`feature_request.status_changed\` | \`feature_requests\` | the request's author and voters | \`featureRequestId\`, \`status\` |
| \`usage.cap_reached\`, \`purchase.status_changed\` | \`billing\` | the workspace's admins and owners | \`workspaceId\` |
| \`schedule.paused\` | \`schedules\` | the workspace's admins and owners | \`workspaceId\` |

Open the matching screen from \`data\` (e.g. \`GET /api/mobile/feature-requests/{featureRequestId}\`), not from the text. A
device signed out (its session ended) or whose token the push service reports dead is removed and receives nothing more.

## Feature requests: possible duplicates

\`POST /api/mobile/feature-requests\` creates the request and answers \`possibleDuplicates\`: at most five existing,
unmerged requests (among the 500 most recent) whose titles look alike, most alike first, then most voted. Titles are
compared by their meaningful words — Unicode NFKC, lower-case, runs of letters and digits of three or more characters,
without common words such as "the", "and", "add", "support", "please", "feature" — and \`similarity\` is the Jaccard index
of the two word sets (shared words over all words, 0 to 1, two decimals). A request is listed from
\`${duplicateThreshold}\`. Nothing is merged automatically: show the list and let the person vote for one instead
(\`PUT /api/mobile/feature-requests/{id}/vote\`); an operator can merge requests later, moving the votes.
`

/** The introduction a reader sees first in `/api/docs`: authentication, errors, pagination, idempotency, rate limits, webhooks. */
export const introduction = (document: ContractDocument) => `${document.summary}

Version \`${document.version}\` (semver): within a major version changes are additive only — new paths, operations,
optional fields and response fields — and bump the minor; wording and example fixes bump the patch. Breaking changes
only ever ship under a new major version with its own prefix. Ignore response fields you do not know.

## Authentication

${authentication(document)}

## Errors

Every failure is an RFC 9457 \`application/problem+json\` body:

\`\`\`json
{ "type": "${problemType("not_found")}", "title": "Not found", "status": 404, "code": "not_found",
  "detail": "No such webhook endpoint", "requestId": "req_3f9a0c1e5b7d4a2f8e6c0b1d3a5f7e9c" }
\`\`\`

Branch on \`code\` (stable), not on \`title\` or \`detail\` (wording may change). \`type\` links to the code's section of the
[error reference](${problemType("").replace(/#$/, "")}). \`requestId\` is also in the \`x-request-id\` header: quote it when
reporting a problem. Validation failures (400 \`invalid_request\`) add \`errors: [{ path, message }]\`, one per failed check.

${errorTable()}

## Pagination

Lists take \`?limit=\` (an integer 1–100, default 20) and \`?cursor=\` and answer \`{ data, nextCursor }\`. Pass
\`nextCursor\` as \`?cursor=\` for the next page; it is \`null\` on the last page. Cursors are opaque: do not build or parse
them.

## Idempotency

\`POST /api/v1/ai-tasks\`${document.slug === "mobile" ? " and `POST /api/mobile/purchases/sync`" : ""} honour an
\`Idempotency-Key\` header (1–255 visible ASCII characters, e.g. a UUID). Within 24 hours the same key with the same body
answers the first result again with \`Idempotent-Replayed: true\`; the same key with another body is 409
\`idempotency_key_reused\`. Retry a timed-out or 503 request with the same key: it never runs twice.

## Rate limits

Requests are counted per API key or session and window. Every answer carries \`RateLimit-Policy: 600;w=60\` and
\`RateLimit: limit=600, remaining=12, reset=30\`; past the limit the answer is 429 \`rate_limited\` with \`Retry-After\`
(seconds). A 503 \`unavailable\` also says \`Retry-After\`: retry with exponential backoff and jitter.

## Webhooks

Deliveries follow [Standard Webhooks](https://www.standardwebhooks.com): a \`POST\` of
\`{ id, type, createdAt, workspaceId, data }\` with the headers \`webhook-id\` (the event id: stable across retries and
replays — use it to de-duplicate), \`webhook-timestamp\` (unix seconds) and \`webhook-signature\`
(\`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">\`, several space-separated during a secret rotation). Answer 2xx
within the timeout; anything else is retried on a schedule. Verify the signature over the raw body before parsing it,
and refuse timestamps more than five minutes away.

Node (CommonJS; in an ES module, import \`createHmac\` and \`timingSafeEqual\` from \`node:crypto\` and export the function):

\`\`\`js
${nodeWebhookVerification}\`\`\`

Python:

\`\`\`python
${pythonWebhookVerification}\`\`\`
${document.slug === "mobile" ? mobileSections : ""}`
