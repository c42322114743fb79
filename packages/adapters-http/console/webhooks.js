// Webhook endpoints: the list with each one's health, and subscribing a new one (its signing secret shown once).
import { announce, badge, errorBox, field, h, openDialog, replace, scrollableText, showSecretOnce, time } from "./dom.js"
import { memberView } from "./keys.js"
import { samplePayload } from "./sample.js"
import { api, explain } from "./session.js"

/** Enabled, failing since …, or disabled (with why). */
export const health = (endpoint) => {
  if (!endpoint.enabled) return badge(`Disabled${endpoint.disabledReason ? `: ${endpoint.disabledReason}` : ""}`, "bad")
  if (endpoint.failingSince !== null) return h("span", {}, badge("Failing", "warn"), " since ", time(endpoint.failingSince))
  return badge("Healthy", "good")
}

/** The latest delivery's outcome, standing for the endpoint's last attempt. */
export const lastAttempt = (delivery) => {
  if (delivery === undefined) return h("span", { class: "muted" }, "No deliveries yet")
  if (delivery.attemptCount === 0) return h("span", {}, "Pending since ", time(delivery.createdAt))
  const outcome = delivery.lastStatusCode === null ? "no answer" : `HTTP ${delivery.lastStatusCode}`
  return h("span", {}, time(delivery.updatedAt), ` — ${outcome} (${delivery.status})`)
}

const eventPicker = (types) => {
  const everything = h("input", { type: "radio", id: "events-all", name: "events", value: "all", checked: true })
  const some = h("input", { type: "radio", id: "events-some", name: "events", value: "some" })
  const list = h("div", { class: "event-types", hidden: true, id: "event-type-list" },
    types.map((type, index) =>
      h("div", { class: "event-type" },
        h("div", { class: "check" },
          h("input", { type: "checkbox", id: `event-${index}`, value: type.type, "aria-describedby": `event-${index}-description` }),
          h("label", { for: `event-${index}` }, h("code", {}, type.type))),
        h("p", { class: "hint", id: `event-${index}-description` }, type.description),
        h("details", {}, h("summary", {}, "Sample payload"),
          scrollableText(`Sample payload of ${type.type}`, JSON.stringify(samplePayload(type.type, type.schema), null, 2))))))
  const sync = () => { list.hidden = !some.checked }
  everything.addEventListener("change", sync)
  some.addEventListener("change", sync)
  return {
    element: h("fieldset", {},
      h("legend", {}, "Events"),
      h("div", { class: "check" }, everything, h("label", { for: "events-all" }, "Every event, including types added later")),
      h("div", { class: "check" }, some, h("label", { for: "events-some" }, "Only the events I pick")),
      list),
    value: () => some.checked ? [...list.querySelectorAll("input:checked")].map((input) => input.value) : null
  }
}

const createEndpoint = async (context, reload) => {
  let types
  try {
    types = (await api("GET", "/api/mobile/webhooks/event-types")).data
  } catch (error) {
    const retry = await openDialog("Add an endpoint", (close) => h("div", {}, errorBox(explain(error, "load the event catalog")),
      h("div", { class: "actions" }, h("button", { type: "button", onclick: () => close() }, "Close"), h("button", { type: "button", class: "primary", onclick: () => close(true) }, "Try again"))))
    return retry === true ? createEndpoint(context, reload) : undefined
  }
  const created = await openDialog("Add an endpoint", (close) => {
    const url = h("input", { id: "endpoint-url", type: "url", required: true, placeholder: "https://example.com/webhooks/atrium", autocomplete: "off" })
    const description = h("input", { id: "endpoint-description", maxlength: 500, autocomplete: "off" })
    const picker = eventPicker(types)
    const problem = h("div", { id: "endpoint-problem" })
    const submit = h("button", { type: "submit", class: "primary" }, "Add endpoint")
    // The error shows beside the button that caused it, above the (long) event list's end, and is scrolled to.
    const show = (box) => {
      replace(problem, box)
      problem.scrollIntoView({ block: "nearest" })
    }
    return h("form", {
      onsubmit: async (event) => {
        event.preventDefault()
        const eventTypes = picker.value()
        if (eventTypes !== null && eventTypes.length === 0) {
          show(errorBox("Pick at least one event type, or choose every event."))
          return
        }
        submit.disabled = true
        try {
          close(await api("POST", "/api/mobile/webhooks", { url: url.value.trim(), description: description.value.trim(), eventTypes }))
        } catch (error) {
          show(errorBox(explain(error, "add the endpoint")))
          submit.disabled = false
        }
      }
    },
    field("Endpoint URL", url, "HTTPS address Atrium POSTs signed events to (Standard Webhooks)."),
    field("Description (optional)", description),
    picker.element,
    h("div", { class: "form-footer" },
      problem,
      h("div", { class: "actions" }, h("button", { type: "button", onclick: () => close() }, "Cancel"), submit)))
  })
  if (created === undefined) return
  await showSecretOnce({
    title: "Endpoint added",
    label: "Signing secret",
    secret: created.secret,
    warning: "Copy the signing secret now and configure your receiver with it. It is shown only this once; if you lose it, rotate the secret."
  })
  announce("Endpoint added.")
  await reload()
}

/** Draws the webhook endpoints view. */
export const renderWebhooks = async (context) => {
  if (!context.canManage) {
    replace(context.container, memberView(context, "Webhooks", "Webhook endpoints and their deliveries"))
    return
  }
  const list = h("div", { "aria-busy": "true" }, h("p", { class: "muted" }, "Loading endpoints…"))
  const reload = async () => {
    try {
      const page = await api("GET", "/api/mobile/webhooks?limit=100")
      // The newest delivery of each endpoint tells its last attempt (at most 20 endpoints per workspace).
      const latest = await Promise.all(page.data.map((endpoint) =>
        api("GET", `/api/mobile/webhooks/${encodeURIComponent(endpoint.id)}/deliveries?limit=1`).then((deliveries) => deliveries.data[0], () => undefined)))
      if (!context.isCurrent()) return
      list.removeAttribute("aria-busy")
      if (page.data.length === 0) {
        replace(list, h("p", { class: "empty" }, "No endpoints yet. Add one to receive events as signed HTTP POSTs."))
        return
      }
      replace(list, h("ul", { class: "cards" }, page.data.map((endpoint, index) =>
        h("li", { class: "card endpoint", "data-endpoint-id": endpoint.id },
          h("h2", {}, h("a", { href: `#webhooks/${encodeURIComponent(endpoint.id)}` }, endpoint.url)),
          endpoint.description ? h("p", {}, endpoint.description) : null,
          h("dl", {},
            h("dt", {}, "Health"), h("dd", {}, health(endpoint)),
            h("dt", {}, "Last attempt"), h("dd", {}, lastAttempt(latest[index])),
            h("dt", {}, "Events"), h("dd", {}, endpoint.eventTypes === null ? "Every event" : endpoint.eventTypes.join(", ")))))))
    } catch (error) {
      if (!context.isCurrent()) return
      list.removeAttribute("aria-busy")
      replace(list, errorBox(explain(error, "load the endpoints"), () => {
        replace(list, h("p", { class: "muted" }, "Loading endpoints…"))
        reload()
      }))
    }
  }
  replace(context.container,
    h("div", { class: "view-header" },
      h("h1", {}, "Webhooks"),
      h("button", { type: "button", class: "primary", onclick: () => createEndpoint(context, reload) }, "Add endpoint")),
    h("p", { class: "muted" }, "Endpoints receive this workspace's events as signed POSTs, retried with backoff; every attempt is recorded."),
    list)
  await reload()
}
