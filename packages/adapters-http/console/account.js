// The pages mailed links open: /verify-email, /reset-password and /accept-invitation. The one-time token rides in the
// URL fragment (never sent to a server, a log or a Referer); it is posted to the same session routes the app uses.

const main = document.getElementById("main")
const announcer = document.getElementById("announcer")
const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? ""
// The token leaves the address bar at once, so a shared screen or a bookmark does not carry it.
history.replaceState(null, "", location.pathname)

const el = (tag, attributes = {}, ...children) => {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value)
  for (const child of children) node.append(child)
  return node
}

const show = (title, ...content) => {
  main.replaceChildren(el("h1", { tabindex: "-1" }, title), ...content)
  main.querySelector("h1").focus()
  announcer.textContent = title
}

const post = async (path, body, accessToken) => {
  const headers = { "content-type": "application/json" }
  if (accessToken !== undefined) headers.authorization = `Bearer ${accessToken}`
  const response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body) })
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

const field = (label, name, type, autocomplete) => {
  const input = el("input", { id: name, name, type, required: "", autocomplete })
  return { input, node: el("p", {}, el("label", { for: name }, label), el("br"), input) }
}

const verifyEmail = async () => {
  show("Verifying your address…")
  const reply = await post("/api/auth/verify-email", { token })
  if (reply.ok) show("Your address is verified", el("p", {}, "You can close this page and go back to the app."))
  else show("This link cannot be used", el("p", { role: "alert" }, problemText(reply)), el("p", {}, "Ask the app to send a new link."))
}

const resetPassword = () => {
  const password = field("New password (at least 10 characters)", "password", "password", "new-password")
  const again = field("The same password again", "again", "password", "new-password")
  const message = el("p", { role: "alert" })
  const form = el("form", {}, password.node, again.node, el("p", {}, el("button", { type: "submit" }, "Set the new password")), message)
  form.addEventListener("submit", async (event) => {
    event.preventDefault()
    if (password.input.value !== again.input.value) {
      message.textContent = "The two passwords differ."
      return
    }
    const reply = await post("/api/auth/password-reset/confirm", { token, password: password.input.value })
    if (reply.ok) show("Your password is changed", el("p", {}, "Every session was signed out: sign in again with the new password."))
    else message.textContent = problemText(reply)
  })
  show("Choose a new password", form)
  password.input.focus()
}

const acceptInvitation = () => {
  const email = field("Email", "email", "email", "username")
  const password = field("Password", "password", "password", "current-password")
  const message = el("p", { role: "alert" })
  const form = el("form", {}, email.node, password.node, el("p", {}, el("button", { type: "submit" }, "Sign in and join")), message)
  form.addEventListener("submit", async (event) => {
    event.preventDefault()
    const signedIn = await post("/api/auth/sign-in", { email: email.input.value, password: password.input.value })
    const accessToken = signedIn.json?.session?.accessToken
    if (!signedIn.ok || typeof accessToken !== "string") {
      message.textContent = problemText(signedIn)
      return
    }
    const joined = await post("/api/mobile/invitations/accept", { token }, accessToken)
    if (joined.ok) show("You joined the workspace", el("p", {}, "Open the app to start working in it."))
    else message.textContent = problemText(joined)
  })
  show("Join the workspace", el("p", {}, "Sign in with the account of the invited address (sign up in the app first if you have none)."), form)
  email.input.focus()
}

const pages = { "/verify-email": verifyEmail, "/reset-password": resetPassword, "/accept-invitation": acceptInvitation }
const page = pages[location.pathname]
if (token === "") show("This link is incomplete", el("p", {}, "Open the whole link from the email."))
else if (page === undefined) show("Unknown page")
else page()
