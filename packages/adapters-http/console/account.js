// The pages mailed links open: /verify-email, /reset-password and /accept-invitation. The one-time token rides in the
// URL fragment (never sent to a server, a log or a Referer); it is posted to the same session routes the app uses.
import { announce, errorBox, field, h, replace } from "./dom.js"

const main = document.getElementById("main")
const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? ""
// The token leaves the address bar at once, so a shared screen or a bookmark does not carry it.
history.replaceState(null, "", location.pathname)

const consoleLink = () => h("p", {}, h("a", { href: "/settings/developers" }, "Go to Settings → Developers"))

// Each page is one card, as the console's sign-in is.
const show = (title, ...content) => {
  const heading = h("h1", { tabindex: "-1" }, title)
  replace(main, h("div", { class: "card narrow" }, heading, ...content))
  heading.focus()
  announce(title)
}

const post = async (path, body, accessToken) => {
  const headers = { "content-type": "application/json" }
  if (accessToken !== undefined) headers.authorization = `Bearer ${accessToken}`
  let response
  try {
    response = await fetch(path, { method: "POST", headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "omit", cache: "no-store" })
  } catch {
    return { ok: false, status: 0, json: { detail: "The server could not be reached. Check your connection and try again." } }
  }
  const text = await response.text()
  let json = null
  try {
    json = text.length > 0 ? JSON.parse(text) : null
  } catch {
    json = null
  }
  return { ok: response.ok, status: response.status, json }
}

const problemText = (reply) =>
  reply.json !== null && typeof reply.json.detail === "string" ? reply.json.detail : `The request failed (${reply.status}).`

const verifyEmail = async () => {
  show("Verifying your address…")
  const reply = await post("/api/auth/verify-email", { token })
  if (reply.ok) show("Your address is verified", h("p", {}, "You can close this page and go back to the app."), consoleLink())
  else show("This link cannot be used", errorBox(problemText(reply)), h("p", {}, "Ask the app to send a new link."))
}

const resetPassword = () => {
  const password = h("input", { id: "password", type: "password", required: true, autocomplete: "new-password", minlength: 10 })
  const again = h("input", { id: "again", type: "password", required: true, autocomplete: "new-password" })
  const message = h("div", { "aria-live": "assertive" })
  const submit = h("button", { type: "submit", class: "primary" }, "Set the new password")
  const form = h("form", {
    onsubmit: async (event) => {
      event.preventDefault()
      if (password.value !== again.value) {
        replace(message, errorBox("The two passwords differ."))
        return
      }
      submit.disabled = true
      const reply = await post("/api/auth/password-reset/confirm", { token, password: password.value })
      submit.disabled = false
      if (reply.ok) show("Your password is changed", h("p", {}, "Every session was signed out: sign in again with the new password."), consoleLink())
      else replace(message, errorBox(problemText(reply)))
    }
  }, field("New password", password, "At least 10 characters."), field("The same password again", again), message, h("div", { class: "actions" }, submit))
  show("Choose a new password", form)
  password.focus()
}

const acceptInvitation = () => {
  const email = h("input", { id: "email", type: "email", required: true, autocomplete: "username" })
  const password = h("input", { id: "password", type: "password", required: true, autocomplete: "current-password" })
  const message = h("div", { "aria-live": "assertive" })
  const submit = h("button", { type: "submit", class: "primary" }, "Sign in and join")
  const form = h("form", {
    onsubmit: async (event) => {
      event.preventDefault()
      submit.disabled = true
      replace(message)
      const signedIn = await post("/api/auth/sign-in", { email: email.value, password: password.value })
      const accessToken = signedIn.json?.session?.accessToken
      if (!signedIn.ok || typeof accessToken !== "string") {
        submit.disabled = false
        replace(message, errorBox(problemText(signedIn)))
        return
      }
      const joined = await post("/api/mobile/invitations/accept", { token }, accessToken)
      // The session served this one step: it ends here, whatever the answer, so no session is left behind.
      await post("/api/auth/sign-out", undefined, accessToken)
      password.value = ""
      submit.disabled = false
      if (joined.ok) show("You joined the workspace", h("p", {}, "Open the app, or the console, to start working in it."), consoleLink())
      else replace(message, errorBox(problemText(joined)))
    }
  }, field("Email", email), field("Password", password), message, h("div", { class: "actions" }, submit))
  show("Join the workspace",
    h("p", { class: "muted" }, "Sign in with the account of the invited address. No account yet? ",
      h("a", { href: "/settings/developers#sign-up" }, "Create one"), " with that address, then open this link again."),
    form)
  email.focus()
}

const pages = { "/verify-email": verifyEmail, "/reset-password": resetPassword, "/accept-invitation": acceptInvitation }
const page = pages[location.pathname]
if (token === "") show("This link is incomplete", h("p", {}, "Open the whole link from the email."), consoleLink())
else if (page === undefined) show("Unknown page", consoleLink())
else page()
