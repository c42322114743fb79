// API keys: list, create (plaintext shown once), roll with grace, revoke with confirmation.
import { announce, badge, confirmAction, errorBox, field, formatTime, h, openDialog, replace, showSecretOnce, time } from "./dom.js"
import { api, explain } from "./session.js"

const scopes = [
  ["read", "Read the workspace, entitlements, webhooks and tasks"],
  ["ai_tasks:write", "Submit AI tasks"],
  ["webhooks:write", "Manage webhook endpoints and replay deliveries"],
  ["schedules:write", "Manage schedules"],
  ["write", "Everything above"]
]

const graceChoices = [["0", "None: the old key stops now"], ["3600", "1 hour"], ["86400", "24 hours"], ["604800", "7 days"]]

/**
 * What a member sees instead of a view admins manage: said once, with what they can do instead (nothing is fetched
 * that the server would refuse).
 */
export const memberView = (context, title, what) => [
  h("h1", {}, title),
  h("p", { class: "notice", role: "note" },
    `You are a ${context.role} of ${context.workspace.name}. ${what} are managed by the workspace's admins and owners, so this page is read-only for you.`),
  h("div", { class: "card" },
    h("h2", {}, "What you can do"),
    h("ul", {},
      h("li", {}, "Read the API reference and try requests: ", h("a", { href: "/api/docs" }, "API documentation"), "."),
      h("li", {}, "Ask an admin or owner of ", context.workspace.name, " for a key, a webhook endpoint or the admin role."),
      h("li", {}, "Workspace id, for support requests: ", h("code", {}, context.workspace.id))))
]

const statusOf = (key) => {
  if (key.revokedAt !== null) return badge("Revoked", "bad")
  if (key.expiresAt !== null && new Date(key.expiresAt).getTime() <= Date.now()) return badge("Expired", "bad")
  if (key.expiresAt !== null) return badge("Expiring", "warn")
  return badge("Active", "good")
}

const createKey = (context, reload) =>
  openDialog("Create an API key", (close) => {
    const name = h("input", { id: "key-name", required: true, maxlength: 100, autocomplete: "off" })
    const environment = h("select", { id: "key-environment" }, h("option", { value: "live" }, "Live (sk_live_…)"), h("option", { value: "test" }, "Test (sk_test_…)"))
    const expires = h("input", { id: "key-expires", type: "date" })
    const boxes = scopes.map(([scope, description], index) =>
      h("div", { class: "check" },
        h("input", { type: "checkbox", id: `scope-${index}`, name: "scope", value: scope, checked: scope === "read" }),
        h("label", { for: `scope-${index}` }, h("code", {}, scope), " — ", description)))
    const problem = h("div")
    const submit = h("button", { type: "submit", class: "primary" }, "Create key")
    return h("form", {
      onsubmit: async (event) => {
        event.preventDefault()
        const chosen = boxes.map((box) => box.querySelector("input")).filter((input) => input.checked).map((input) => input.value)
        if (chosen.length === 0) {
          replace(problem, errorBox("Pick at least one scope."))
          return
        }
        const body = { name: name.value.trim(), scopes: chosen, environment: environment.value }
        // The key stops working at the end of the chosen day, UTC.
        if (expires.value !== "") body.expiresAt = new Date(`${expires.value}T23:59:59.000Z`).toISOString()
        submit.disabled = true
        try {
          const created = await api("POST", "/api/mobile/api-keys", body)
          close(created)
        } catch (error) {
          replace(problem, errorBox(explain(error, "create the key")))
          submit.disabled = false
        }
      }
    },
    field("Name", name, "What the key is for, e.g. “Billing sync”."),
    h("fieldset", {}, h("legend", {}, "Scopes"), boxes),
    field("Environment", environment),
    field("Expires (optional)", expires, "The key stops at the end of that day, 23:59:59 UTC. Leave empty for a key that does not expire."),
    problem,
    h("div", { class: "actions" }, h("button", { type: "button", onclick: () => close() }, "Cancel"), submit))
  }).then(async (created) => {
    if (created === undefined) return
    await showSecretOnce({
      title: `Key “${created.apiKey.name}” created`,
      label: "Your new API key",
      secret: created.key,
      warning: "Copy this key now and store it somewhere safe. It is shown only this once: Atrium keeps only a digest, and nobody can show it again."
    })
    announce("Key created.")
    await reload()
  })

const rollKey = (key, reload) =>
  openDialog(`Roll “${key.name}”`, (close) => {
    const grace = h("select", { id: "roll-grace" }, graceChoices.map(([value, label]) => h("option", { value, selected: value === "86400" }, label)))
    const problem = h("div")
    const submit = h("button", { type: "submit", class: "primary" }, "Roll key")
    return h("form", {
      onsubmit: async (event) => {
        event.preventDefault()
        submit.disabled = true
        try {
          close(await api("POST", `/api/mobile/api-keys/${encodeURIComponent(key.id)}/roll`, { graceSeconds: Number(grace.value) }))
        } catch (error) {
          const text = error?.code === "route_not_found" ? "This server cannot roll keys yet." : explain(error, "roll the key")
          replace(problem, errorBox(text))
          submit.disabled = false
        }
      }
    },
    h("p", {}, "A new key with the same name and scopes replaces this one. The old key keeps working during the grace period, so you can deploy the new one first."),
    field("Grace period", grace),
    problem,
    h("div", { class: "actions" }, h("button", { type: "button", onclick: () => close() }, "Cancel"), submit))
  }).then(async (rolled) => {
    if (rolled === undefined) return
    await showSecretOnce({
      title: `Key “${rolled.apiKey.name}” rolled`,
      label: "Your new API key",
      secret: rolled.key,
      warning: "Copy the new key now: it is shown only this once. The old key " +
        (rolled.previous.expiresAt === null ? "keeps working." : `works until ${formatTime(rolled.previous.expiresAt)}.`)
    })
    announce("Key rolled.")
    await reload()
  })

const revokeKey = async (key, reload, problem) => {
  const sure = await confirmAction({
    title: `Revoke “${key.name}”?`,
    message: `Requests with ${key.prefix}… will be refused at once (401 api_key_revoked). This cannot be undone.`,
    confirmLabel: "Revoke key"
  })
  if (!sure) return
  try {
    await api("DELETE", `/api/mobile/api-keys/${encodeURIComponent(key.id)}`)
    announce(`Key ${key.name} revoked.`)
    await reload()
  } catch (error) {
    replace(problem, errorBox(explain(error, "revoke the key")))
  }
}

const keyRow = (context, key, reload, problem) => {
  const live = key.revokedAt === null && (key.expiresAt === null || new Date(key.expiresAt).getTime() > Date.now())
  // A rolled key already has its successor: rolling it again is refused (409), so it is not offered.
  const rollable = live && key.replacedBy === null
  return h("tr", { "data-key-id": key.id },
    h("th", { scope: "row", "data-label": "Name" }, key.name),
    h("td", { "data-label": "Key" },
      h("code", { class: "key-prefix" }, `${key.prefix}…`),
      h("span", { class: "hint key-id" }, "id ", h("code", {}, key.id)),
      key.replacedBy === null ? null : h("span", { class: "hint key-id" }, "rolled to ", h("code", {}, key.replacedBy))),
    h("td", { "data-label": "Scopes" }, key.scopes.map((scope) => h("code", { class: "scope" }, scope))),
    h("td", { "data-label": "Created" }, time(key.createdAt)),
    h("td", { "data-label": "Last used" }, time(key.lastUsedAt, "Never")),
    h("td", { "data-label": "Expires" }, time(key.expiresAt, "Never")),
    h("td", { "data-label": "Status" }, statusOf(key)),
    h("td", { "data-label": "Actions", class: "row-actions" },
      context.canManage && live
        ? [
          rollable ? h("button", { type: "button", onclick: () => rollKey(key, reload), "aria-label": `Roll ${key.name}` }, "Roll") : null,
          h("button", { type: "button", class: "danger", onclick: () => revokeKey(key, reload, problem), "aria-label": `Revoke ${key.name}` }, "Revoke")
        ]
        : null))
}

/** Draws the API keys view into `context.container`. */
export const renderKeys = async (context) => {
  if (!context.canManage) {
    replace(context.container, memberView(context, "API keys", "API keys"))
    return
  }
  const list = h("div", { "aria-busy": "true" }, h("p", { class: "muted" }, "Loading keys…"))
  const problem = h("div")
  const keys = []
  let cursor = null
  const reload = async () => {
    keys.length = 0
    cursor = null
    await load()
  }
  const load = async () => {
    try {
      const query = cursor === null ? "?limit=50" : `?limit=50&cursor=${encodeURIComponent(cursor)}`
      const page = await api("GET", `/api/mobile/api-keys${query}`)
      if (!context.isCurrent()) return
      keys.push(...page.data)
      cursor = page.nextCursor
      draw()
    } catch (error) {
      if (!context.isCurrent()) return
      list.removeAttribute("aria-busy")
      replace(list, errorBox(explain(error, "load the keys"), () => {
        replace(list, h("p", { class: "muted" }, "Loading keys…"))
        load()
      }))
    }
  }
  const draw = () => {
    list.removeAttribute("aria-busy")
    if (keys.length === 0) {
      replace(list, h("p", { class: "empty" }, "No API keys yet."))
      return
    }
    replace(list,
      h("table", { class: "responsive" },
        h("caption", { class: "visually-hidden" }, "API keys of this workspace"),
        h("thead", {}, h("tr", {}, ["Name", "Key", "Scopes", "Created", "Last used", "Expires", "Status", "Actions"].map((title) =>
          h("th", { scope: "col" }, title === "Actions" ? h("span", { class: "visually-hidden" }, title) : title)))),
        h("tbody", {}, keys.map((key) => keyRow(context, key, reload, problem)))),
      cursor === null ? null : h("button", { type: "button", onclick: load }, "Show more keys"))
  }
  replace(context.container,
    h("div", { class: "view-header" },
      h("h1", {}, "API keys"),
      h("button", { type: "button", class: "primary", onclick: () => createKey(context, reload) }, "Create key")),
    h("p", { class: "muted" }, "Keys authenticate server-to-server calls to /api/v1 for this workspace. Only a short prefix of each key is kept for recognition."),
    problem,
    list)
  await load()
}
