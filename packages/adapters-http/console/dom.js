// Small DOM helpers: text goes in through text nodes only (never parsed as HTML), so server text cannot become markup.

/** Builds an element: `h("button", { class: "primary", onclick }, "Save")`. */
export const h = (tag, attributes = {}, ...children) => {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value)
    else if (name === "class") element.className = value
    else if (value === true) element.setAttribute(name, "")
    else element.setAttribute(name, String(value))
  }
  append(element, children)
  return element
}

const append = (element, children) => {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue
    element.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
}

/** Replaces an element's children. */
export const replace = (element, ...children) => {
  element.replaceChildren()
  append(element, children)
  return element
}

let announcer
/** Says `text` to screen readers (a polite live region). */
export const announce = (text) => {
  announcer ??= document.getElementById("announcer")
  if (announcer === null) return
  announcer.textContent = ""
  // A fresh node in the next frame is read even when the text repeats.
  requestAnimationFrame(() => { announcer.textContent = text })
}

/** Moves focus to a view's heading so keyboard and screen-reader users land on the new content. */
export const focusHeading = (container) => {
  const heading = container.querySelector("h1, h2")
  if (heading === null) return
  heading.setAttribute("tabindex", "-1")
  heading.focus()
}

// One format for every time on the page, in the person's time zone, which it names (e.g. "27 Nov 2026, 14:05:09 CET").
const dateTime = new Intl.DateTimeFormat(undefined, {
  year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short"
})

/** An ISO time as the page shows every time: date, time to the second, and the time zone. */
export const formatTime = (iso) => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? String(iso) : dateTime.format(date)
}

/** A `<time>` element for an ISO time, or a dash. */
export const time = (iso, empty = "—") => {
  if (iso === null || iso === undefined) return h("span", { class: "muted" }, empty)
  return h("time", { datetime: iso, title: iso }, formatTime(iso))
}

/** A block of preformatted text that scrolls when long; it takes keyboard focus so it can be scrolled without a mouse. */
export const scrollableText = (label, text, className) =>
  h("pre", { tabindex: "0", role: "region", "aria-label": label, class: className }, text)

/** A status badge. */
export const badge = (text, tone) => h("span", { class: `badge ${tone}` }, text)

/** A labelled form field; `control` is an input, select or textarea with an id. */
export const field = (label, control, hint) => {
  const hintId = hint === undefined ? undefined : `${control.id}-hint`
  if (hintId !== undefined) control.setAttribute("aria-describedby", hintId)
  return h("div", { class: "field" },
    h("label", { for: control.id }, label),
    hint === undefined ? null : h("p", { class: "hint", id: hintId }, hint),
    control)
}

let dialogCount = 0

/**
 * Opens a modal dialog (native `<dialog>`: focus is trapped inside, Escape closes it) and resolves with what `build`'s
 * `close` was given, or `undefined` when dismissed. Focus returns to what had it before.
 */
export const openDialog = (title, build) =>
  new Promise((resolve) => {
    const opener = document.activeElement
    const id = `dialog-${++dialogCount}`
    const dialog = h("dialog", { "aria-labelledby": `${id}-title` })
    let result
    const close = (value) => { result = value; dialog.close() }
    dialog.addEventListener("close", () => {
      dialog.remove()
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus()
      resolve(result)
    })
    replace(dialog, h("h2", { id: `${id}-title` }, title), build(close, dialog))
    document.body.append(dialog)
    dialog.showModal()
    const first = dialog.querySelector("[autofocus], input, select, textarea, button")
    if (first instanceof HTMLElement) first.focus()
  })

/** Asks for confirmation of a destructive action; resolves `true` only on the confirm button. */
export const confirmAction = ({ title, message, confirmLabel }) =>
  openDialog(title, (close) => h("div", {},
    h("p", {}, message),
    h("div", { class: "actions" },
      h("button", { type: "button", onclick: () => close(false) }, "Cancel"),
      h("button", { type: "button", class: "danger", onclick: () => close(true) }, confirmLabel)))
  ).then((answer) => answer === true)

/**
 * Shows a secret exactly once with a copy button and a warning; nothing keeps it after the dialog closes. Escape asks
 * first: the secret cannot be shown again.
 */
export const showSecretOnce = ({ title, label, secret, warning }) =>
  openDialog(title, (close, dialog) => {
    const output = h("input", { id: "secret-value", type: "text", readonly: true, value: secret, class: "secret", spellcheck: "false", autocomplete: "off" })
    const status = h("p", { class: "hint", role: "status" })
    const copy = h("button", {
      type: "button",
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(secret)
          status.textContent = "Copied to the clipboard."
        } catch {
          // No clipboard permission (e.g. not a secure context): select it so the person can copy by hand.
          output.select()
          status.textContent = "Selected: press Ctrl+C (⌘C) to copy."
        }
      }
    }, "Copy")
    output.addEventListener("focus", () => output.select())
    const stored = h("button", { type: "button", class: "primary", onclick: () => close(true) }, "I have stored it")
    const ask = h("div", { class: "notice", role: "alertdialog", "aria-labelledby": "secret-leave-question", hidden: true },
      h("p", { id: "secret-leave-question" }, "Close without storing it? It cannot be shown again."),
      h("div", { class: "actions" },
        h("button", { type: "button", onclick: () => { ask.hidden = true; output.focus() } }, "Keep it open"),
        h("button", { type: "button", class: "danger", onclick: () => close(true) }, "Close anyway")))
    // Escape would close the dialog at once: ask instead.
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault()
      ask.hidden = false
      ask.querySelector("button")?.focus()
    })
    return h("div", {},
      h("p", { class: "warning", role: "alert" }, warning),
      field(label, output),
      h("div", { class: "actions" }, copy, stored),
      ask,
      status)
  })

/** An error message block; with `retry`, a "Try again" button that runs it. */
export const errorBox = (text, retry) =>
  h("div", { class: "error", role: "alert" },
    h("span", {}, text),
    retry === undefined ? null : h("button", { type: "button", class: "retry", onclick: retry }, "Try again"))
