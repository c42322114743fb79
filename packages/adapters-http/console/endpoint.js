// One webhook endpoint: its settings and actions, and its deliveries with every attempt, replay and recovery.
import { announce, badge, confirmAction, errorBox, field, h, openDialog, replace, scrollableText, showSecretOnce, time } from "./dom.js"
import { memberView } from "./keys.js"
import { api, explain } from "./session.js"
import { health } from "./webhooks.js"

const statusTone = { succeeded: "good", failed: "bad", pending: "warn" }
const graceChoices = [["0", "None: only the new secret signs"], ["3600", "1 hour"], ["86400", "24 hours"], ["604800", "7 days"]]
const pollMillis = 2000

const attemptTable = (attempts) =>
  attempts.length === 0
    ? h("p", { class: "muted" }, "No attempt yet.")
    : h("table", { class: "responsive attempts" },
      h("caption", { class: "visually-hidden" }, "Attempts"),
      h("thead", {}, h("tr", {}, ["#", "Time", "Duration", "Status", "Error", "Response", "Next attempt"].map((title) => h("th", { scope: "col" }, title)))),
      h("tbody", {}, attempts.map((attempt) =>
        h("tr", { class: "attempt" },
          h("th", { scope: "row", "data-label": "#" }, String(attempt.number)),
          h("td", { "data-label": "Time" }, time(attempt.startedAt)),
          h("td", { "data-label": "Duration" }, `${attempt.durationMillis} ms`),
          h("td", { "data-label": "Status" }, attempt.statusCode === null ? h("span", { class: "muted" }, "no answer") : `HTTP ${attempt.statusCode}`),
          h("td", { "data-label": "Error" }, attempt.errorKind === null ? "—" : h("code", {}, attempt.errorKind)),
          h("td", { "data-label": "Response" }, attempt.responseBody.length === 0
            ? h("span", { class: "muted" }, "(empty)")
            : scrollableText(`Response body of attempt ${attempt.number}`, attempt.responseBody.length > 600 ? `${attempt.responseBody.slice(0, 600)}…` : attempt.responseBody, "excerpt")),
          h("td", { "data-label": "Next attempt" }, time(attempt.nextAttemptAt))))))

const prettyBody = (body) => {
  try {
    return JSON.stringify(JSON.parse(body), null, 2)
  } catch {
    return body
  }
}

/** What each attempt sent: the headers (each attempt's own timestamp and signature named) and the exact body. */
const requestView = (full) => {
  if (full.request === null || full.request === undefined) return h("p", { class: "muted" }, "The event of this delivery is no longer stored.")
  const stamps = full.attempts.map((attempt) => `${Math.floor(new Date(attempt.startedAt).getTime() / 1000)} (attempt ${attempt.number})`)
  return h("div", { class: "request" },
    h("h3", {}, "Request headers"),
    h("dl", { class: "headers" },
      Object.entries(full.request.headers).map(([name, value]) => [h("dt", {}, h("code", {}, name)), h("dd", {}, h("code", {}, value))]),
      h("dt", {}, h("code", {}, "webhook-timestamp")), h("dd", {}, stamps.length === 0 ? "set when the first attempt starts" : stamps.join(", ")),
      h("dt", {}, h("code", {}, "webhook-signature")), h("dd", {}, "v1,… signed per attempt with the endpoint's secret")),
    h("h3", {}, "Payload"),
    scrollableText(`Payload of delivery ${full.id}`, prettyBody(full.request.body), "payload"))
}

const rotateSecret = (endpoint) =>
  openDialog("Rotate the signing secret", (close) => {
    const grace = h("select", { id: "rotate-grace" }, graceChoices.map(([value, label]) => h("option", { value, selected: value === "86400" }, label)))
    const problem = h("div")
    const submit = h("button", { type: "submit", class: "primary" }, "Rotate secret")
    return h("form", {
      onsubmit: async (event) => {
        event.preventDefault()
        submit.disabled = true
        try {
          close(await api("POST", `/api/mobile/webhooks/${encodeURIComponent(endpoint.id)}/rotate-secret`, { gracePeriodSeconds: Number(grace.value) }))
        } catch (error) {
          replace(problem, errorBox(explain(error, "rotate the secret")))
          submit.disabled = false
        }
      }
    },
    h("p", {}, "During the grace period every delivery carries signatures from both secrets, so you can update the receiver without dropping events."),
    field("Grace period", grace),
    problem,
    h("div", { class: "actions" }, h("button", { type: "button", onclick: () => close() }, "Cancel"), submit))
  }).then((rotated) => rotated === undefined ? undefined : showSecretOnce({
    title: "Secret rotated",
    label: "New signing secret",
    secret: rotated.secret,
    warning: "Copy the new signing secret now: it is shown only this once."
  }))

/** Draws one endpoint with its deliveries. */
export const renderEndpoint = async (context, id) => {
  const path = `/api/mobile/webhooks/${encodeURIComponent(id)}`
  const back = h("p", {}, h("a", { href: "#webhooks" }, "← All endpoints"))
  if (!context.canManage) {
    replace(context.container, back, memberView(context, "Webhook endpoint", "Webhook endpoints and their deliveries"))
    return
  }
  let endpoint
  let types = []
  try {
    [endpoint, types] = await Promise.all([
      api("GET", path),
      api("GET", "/api/mobile/webhooks/event-types").then((catalog) => catalog.data.map((type) => type.type), () => [])
    ])
  } catch (error) {
    if (!context.isCurrent()) return
    replace(context.container, back, h("h1", {}, "Webhook endpoint"), error?.code === "not_found"
      ? errorBox("This endpoint does not exist in this workspace (it may have been deleted).")
      : errorBox(explain(error, "load the endpoint"), () => renderEndpoint(context, id)))
    return
  }
  if (!context.isCurrent()) return

  const message = h("div", { "aria-live": "polite" })
  const summary = h("dl", {})
  const actions = h("div", { class: "toolbar" })
  const deliveries = h("div", { "aria-live": "polite" })
  const expanded = new Set()
  let filter = ""
  let cursor = null
  let shown = []
  let timer

  const say = (node) => replace(message, node)

  const drawSummary = () => replace(summary,
    h("dt", {}, "Health"), h("dd", {}, health(endpoint)),
    h("dt", {}, "Description"), h("dd", {}, endpoint.description || "—"),
    h("dt", {}, "Events"), h("dd", {}, endpoint.eventTypes === null ? "Every event" : endpoint.eventTypes.join(", ")),
    h("dt", {}, "Created"), h("dd", {}, time(endpoint.createdAt)))

  const act = async (what, run) => {
    try {
      await run()
    } catch (error) {
      say(errorBox(explain(error, what)))
    }
  }

  const drawActions = () => {
    if (!context.canManage) {
      replace(actions)
      return
    }
    // The endpoint's own types first (it would ignore others in real traffic), then the rest of the catalog.
    const subscribed = endpoint.eventTypes === null ? types : [...endpoint.eventTypes, ...types.filter((type) => !endpoint.eventTypes.includes(type))]
    const testType = h("select", { id: "test-event-type", disabled: !endpoint.enabled },
      ["webhook.test", ...subscribed.filter((type) => type !== "webhook.test")].map((type) => h("option", { value: type }, type)))
    replace(actions,
      h("div", { class: "test-event" },
        field("Test event type", testType),
        h("button", {
          type: "button",
          class: "primary",
          disabled: !endpoint.enabled,
          onclick: () => act("send a test event", async () => {
            await api("POST", `${path}/test`, testType.value === "webhook.test" ? undefined : { eventType: testType.value })
            say(h("p", { class: "success", role: "status" }, `Test ${testType.value} event queued. Its delivery appears below.`))
            await loadDeliveries(true)
          })
        }, "Send test event")),
      h("button", {
        type: "button",
        onclick: () => act(endpoint.enabled ? "disable the endpoint" : "enable the endpoint", async () => {
          endpoint = await api("PATCH", path, { enabled: !endpoint.enabled })
          announce(endpoint.enabled ? "Endpoint enabled." : "Endpoint disabled.")
          drawSummary()
          drawActions()
        })
      }, endpoint.enabled ? "Disable" : "Enable"),
      h("button", { type: "button", onclick: () => act("rotate the secret", () => rotateSecret(endpoint)) }, "Rotate secret"),
      h("button", {
        type: "button",
        class: "danger",
        onclick: () => act("delete the endpoint", async () => {
          const sure = await confirmAction({
            title: "Delete this endpoint?",
            message: `Atrium stops delivering to ${endpoint.url} at once, including retries under way. This cannot be undone.`,
            confirmLabel: "Delete endpoint"
          })
          if (!sure) return
          await api("DELETE", path)
          announce("Endpoint deleted.")
          location.hash = "#webhooks"
        })
      }, "Delete"))
  }

  const attemptsOf = async (delivery, holder) => {
    try {
      const full = await api("GET", `/api/mobile/webhooks/deliveries/${encodeURIComponent(delivery.id)}`)
      replace(holder, h("h3", {}, "Attempts"), attemptTable(full.attempts), requestView(full))
    } catch (error) {
      replace(holder, errorBox(explain(error, "load the attempts"), () => attemptsOf(delivery, holder)))
    }
  }

  const deliveryItem = (delivery) => {
    const holder = h("div", { class: "attempt-list" })
    const details = h("details", { open: expanded.has(delivery.id) },
      h("summary", {},
        badge(delivery.status, statusTone[delivery.status] ?? "warn"), " ",
        h("code", {}, delivery.eventType), " ",
        time(delivery.createdAt), " · ",
        `${delivery.attemptCount} attempt${delivery.attemptCount === 1 ? "" : "s"}`,
        delivery.lastStatusCode === null ? "" : ` · last HTTP ${delivery.lastStatusCode}`,
        delivery.nextAttemptAt === null ? "" : [" · next ", time(delivery.nextAttemptAt)]),
      h("p", { class: "hint" }, `Delivery ${delivery.id} of event ${delivery.eventId}${delivery.replayOf === null ? "" : ` (replay of ${delivery.replayOf})`}`),
      holder,
      context.canManage
        ? h("div", { class: "actions" }, h("button", {
          type: "button",
          onclick: () => act("replay the delivery", async () => {
            const replay = await api("POST", `/api/mobile/webhooks/deliveries/${encodeURIComponent(delivery.id)}/replay`)
            expanded.add(replay.id)
            say(h("p", { class: "success", role: "status" }, "Replay queued: a new delivery of the same event."))
            await loadDeliveries(true)
          })
        }, "Replay"))
        : null)
    // Opened already (kept open across a refresh): load now; the toggle that the open attribute queues is then ignored.
    let loaded = details.open
    if (loaded) attemptsOf(delivery, holder)
    details.addEventListener("toggle", () => {
      if (!details.open) {
        expanded.delete(delivery.id)
        loaded = false
        return
      }
      expanded.add(delivery.id)
      if (!loaded) attemptsOf(delivery, holder)
      loaded = true
    })
    return h("li", { class: "delivery", "data-delivery-id": delivery.id, "data-status": delivery.status }, details)
  }

  const drawDeliveries = () => {
    // A refresh redraws the list: keep keyboard focus on the same delivery.
    const focused = document.activeElement?.closest?.("[data-delivery-id]")?.getAttribute("data-delivery-id")
    if (shown.length === 0) {
      replace(deliveries, h("p", { class: "empty" }, filter === "" ? "No deliveries yet." : `No ${filter} deliveries.`))
      return
    }
    replace(deliveries,
      h("ul", { class: "deliveries" }, shown.map(deliveryItem)),
      cursor === null ? null : h("button", { type: "button", onclick: () => loadDeliveries(false) }, "Show older deliveries"))
    if (focused !== undefined && focused !== null) deliveries.querySelector(`[data-delivery-id="${CSS.escape(focused)}"] summary`)?.focus()
  }

  // While a delivery is pending its attempts are still coming: look again shortly, as long as this view is shown.
  const schedulePoll = () => {
    clearTimeout(timer)
    if (shown.some((delivery) => delivery.status === "pending")) {
      timer = setTimeout(() => { if (context.isCurrent()) loadDeliveries(true) }, pollMillis)
    }
  }

  // Only the latest request draws: a slower earlier one (a poll, another filter) must not overwrite it.
  let requested = 0
  const loadDeliveries = async (fresh) => {
    const mine = ++requested
    const query = new URLSearchParams({ limit: "20" })
    if (filter !== "") query.set("status", filter)
    if (!fresh && cursor !== null) query.set("cursor", cursor)
    try {
      const page = await api("GET", `${path}/deliveries?${query}`)
      if (!context.isCurrent() || mine !== requested) return
      shown = fresh ? page.data : [...shown, ...page.data]
      cursor = page.nextCursor
      drawDeliveries()
      deliveries.dataset.filter = filter === "" ? "all" : filter
      schedulePoll()
    } catch (error) {
      if (!context.isCurrent() || mine !== requested) return
      replace(deliveries, errorBox(explain(error, "load the deliveries"), () => loadDeliveries(true)))
    }
  }

  const statusFilter = h("select", {
    id: "delivery-status",
    onchange: () => {
      filter = statusFilter.value
      loadDeliveries(true)
    }
  }, h("option", { value: "" }, "All"), h("option", { value: "pending" }, "Pending"), h("option", { value: "succeeded" }, "Succeeded"), h("option", { value: "failed" }, "Failed"))

  const local = (date) => new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
  const since = h("input", { id: "recover-since", type: "datetime-local", value: local(new Date(Date.now() - 24 * 3600_000)), required: true })
  const recover = h("form", {
    class: "inline-form",
    onsubmit: (event) => {
      event.preventDefault()
      act("recover failed deliveries", async () => {
        const recovered = await api("POST", `${path}/recover`, { since: new Date(since.value).toISOString() })
        say(h("p", { class: "success", role: "status" }, recovered.data.length === 0
          ? "No failed deliveries since then."
          : `${recovered.data.length} failed deliver${recovered.data.length === 1 ? "y" : "ies"} queued again.`))
        await loadDeliveries(true)
      })
    }
  }, field("Recover failed deliveries since", since, "In your time zone. Replays every failed delivery created since then (at most 14 days back)."), h("button", { type: "submit" }, "Recover"))

  drawSummary()
  drawActions()
  replace(context.container,
    back,
    h("div", { class: "view-header" }, h("h1", { class: "url" }, endpoint.url)),
    summary,
    actions,
    message,
    h("section", { "aria-labelledby": "deliveries-title" },
      h("div", { class: "view-header" },
        h("h2", { id: "deliveries-title" }, "Deliveries"),
        h("div", { class: "toolbar" },
          field("Status", statusFilter),
          h("button", { type: "button", onclick: () => loadDeliveries(true) }, "Refresh"))),
      recover,
      deliveries))
  await loadDeliveries(true)
}
