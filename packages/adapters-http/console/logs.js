// Request logs: every /api/v1 request of the last 7 days made with a key of this workspace, filtered by key, status
// and request id, newest first.
import { badge, errorBox, field, h, replace, time } from "./dom.js"
import { memberView } from "./keys.js"
import { api, explain } from "./session.js"

const toneOf = (status) => (status < 300 ? "good" : status < 500 ? "warn" : "bad")

/** Draws the request logs view. */
export const renderLogs = async (context) => {
  if (!context.canManage) {
    replace(context.container, memberView(context, "Request logs", "Request logs of the workspace's API keys"))
    return
  }
  const list = h("div", { "aria-live": "polite", "aria-busy": "true" }, h("p", { class: "muted" }, "Loading requests…"))
  const key = h("select", { id: "log-key" }, h("option", { value: "" }, "Every key"))
  const status = h("input", { id: "log-status", type: "number", min: "100", max: "599", inputmode: "numeric", placeholder: "e.g. 404" })
  const requestId = h("input", { id: "log-request-id", autocomplete: "off", spellcheck: "false", placeholder: "req_…" })
  const names = new Map()
  let lines = []
  let cursor = null
  let requested = 0

  const query = (more) => {
    const params = new URLSearchParams({ limit: "50" })
    if (key.value !== "") params.set("keyId", key.value)
    if (status.value.trim() !== "") params.set("status", status.value.trim())
    if (requestId.value.trim() !== "") params.set("requestId", requestId.value.trim())
    if (more && cursor !== null) params.set("cursor", cursor)
    return params
  }

  const draw = () => {
    list.removeAttribute("aria-busy")
    if (lines.length === 0) {
      replace(list, h("p", { class: "empty" }, "No requests match. Requests made with this workspace's API keys in the last 7 days appear here about a second after they are answered."))
      return
    }
    replace(list,
      h("table", { class: "responsive logs" },
        h("caption", { class: "visually-hidden" }, "Requests made with this workspace's API keys, newest first"),
        h("thead", {}, h("tr", {}, ["Time", "Method", "Route", "Status", "Duration", "Request id", "Key"].map((title) => h("th", { scope: "col" }, title)))),
        h("tbody", {}, lines.map((line) =>
          h("tr", { "data-request-id": line.requestId },
            h("td", { "data-label": "Time" }, time(line.createdAt)),
            h("td", { "data-label": "Method" }, h("code", {}, line.method)),
            h("th", { scope: "row", "data-label": "Route" }, h("code", {}, line.route)),
            h("td", { "data-label": "Status" }, badge(String(line.status), toneOf(line.status))),
            h("td", { "data-label": "Duration" }, `${line.durationMs < 10 ? line.durationMs.toFixed(1) : Math.round(line.durationMs)} ms`),
            h("td", { "data-label": "Request id" }, h("code", {}, line.requestId)),
            h("td", { "data-label": "Key" }, names.get(line.keyId) ?? "", " ", h("code", { class: "hint" }, line.keyId)))))),
      cursor === null ? null : h("button", { type: "button", onclick: () => load(true) }, "Show older requests"))
  }

  // Only the latest request draws: a slower earlier one (another filter) must not overwrite it.
  const load = async (more) => {
    const mine = ++requested
    if (!more) list.setAttribute("aria-busy", "true")
    try {
      const page = await api("GET", `/api/mobile/request-logs?${query(more)}`)
      if (!context.isCurrent() || mine !== requested) return
      lines = more ? [...lines, ...page.data] : page.data
      cursor = page.nextCursor
      draw()
    } catch (error) {
      if (!context.isCurrent() || mine !== requested) return
      list.removeAttribute("aria-busy")
      replace(list, errorBox(explain(error, "load the request logs"), () => load(false)))
    }
  }

  const filters = h("form", {
    class: "filters",
    "aria-label": "Filter requests",
    onsubmit: (event) => {
      event.preventDefault()
      load(false)
    }
  },
  field("Key", key),
  field("Status", status),
  field("Request id", requestId),
  h("div", { class: "actions" },
    h("button", { type: "submit", class: "primary" }, "Apply"),
    h("button", {
      type: "button",
      onclick: () => {
        key.value = ""
        status.value = ""
        requestId.value = ""
        load(false)
      }
    }, "Clear")))
  key.addEventListener("change", () => load(false))

  replace(context.container,
    h("div", { class: "view-header" },
      h("h1", {}, "Request logs"),
      h("button", { type: "button", onclick: () => load(false) }, "Refresh")),
    h("p", { class: "muted" }, "Every /api/v1 request made with this workspace's API keys in the last 7 days: route template, status, duration and request id. Never a key, a query or a body."),
    filters,
    list)
  // The key names for the filter and the table; the list loads meanwhile.
  api("GET", "/api/mobile/api-keys?limit=100").then((page) => {
    if (!context.isCurrent()) return
    for (const apiKey of page.data) {
      names.set(apiKey.id, apiKey.name)
      key.append(h("option", { value: apiKey.id }, `${apiKey.name} (${apiKey.prefix}…)`))
    }
    if (lines.length > 0) draw()
  }, () => undefined)
  await load(false)
}
