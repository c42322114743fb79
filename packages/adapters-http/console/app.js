// Settings → Developers: the shell (sign-in, workspace, navigation) that hands each view its container.
import { announce, errorBox, field, focusHeading, h, replace } from "./dom.js"
import { renderEndpoint } from "./endpoint.js"
import { renderKeys } from "./keys.js"
import { renderLogs } from "./logs.js"
import { api, explain, onSignedOut, requestPasswordReset, signedIn, signIn, signOut, signUp } from "./session.js"
import { renderWebhooks } from "./webhooks.js"

const main = document.getElementById("main")
const bar = document.getElementById("session-bar")
const nav = document.getElementById("nav")
let organization = null
let signedOutReason = ""
// Each render bumps this; a view whose fetch returns after the person moved on draws nothing.
let generation = 0

const currentRoute = () => {
  const hash = decodeURIComponent(location.hash.slice(1))
  if (hash.startsWith("webhooks/")) return { view: "endpoint", id: hash.slice("webhooks/".length) }
  if (hash === "webhooks") return { view: "webhooks" }
  if (hash === "logs") return { view: "logs" }
  return { view: "keys" }
}

// Before sign-in the hash names the form: #sign-up, #forgot-password, else sign-in.
const signedOutRoute = () => {
  const hash = location.hash.slice(1)
  return hash === "sign-up" || hash === "forgot-password" ? hash : "sign-in"
}

const renderSignedOut = () => {
  const route = signedOutRoute()
  if (route === "sign-up") return renderSignUp()
  if (route === "forgot-password") return renderForgotPassword()
  return renderSignIn()
}

const leaveSignedOut = () => {
  organization = null
  replace(bar)
  nav.hidden = true
}

const renderSignUp = () => {
  leaveSignedOut()
  const name = h("input", { id: "name", autocomplete: "name", required: true, maxlength: 100 })
  const email = h("input", { id: "email", type: "email", autocomplete: "email", required: true })
  const password = h("input", { id: "password", type: "password", autocomplete: "new-password", required: true, minlength: 10 })
  const problem = h("div", { "aria-live": "assertive" })
  const submit = h("button", { type: "submit", class: "primary" }, "Create account")
  replace(main, h("form", {
    class: "card narrow",
    onsubmit: async (event) => {
      event.preventDefault()
      submit.disabled = true
      replace(problem)
      try {
        await signUp(name.value.trim(), email.value.trim(), password.value)
        password.value = ""
        history.replaceState(null, "", location.pathname)
        await start()
      } catch (error) {
        replace(problem, errorBox(error?.code === "email_taken" ? "An account with this email exists already: sign in instead." : explain(error, "create the account")))
      } finally {
        submit.disabled = false
      }
    }
  },
  h("h1", {}, "Create an account"),
  h("p", { class: "muted" }, "A personal workspace comes with it. We send a link to confirm the address."),
  field("Name", name),
  field("Email", email),
  field("Password", password, "At least 10 characters."),
  problem,
  h("div", { class: "actions" }, submit),
  h("p", {}, "Have an account? ", h("a", { href: "#sign-in" }, "Sign in"))))
  name.focus()
}

const renderForgotPassword = () => {
  leaveSignedOut()
  const email = h("input", { id: "email", type: "email", autocomplete: "email", required: true })
  const outcome = h("div", { "aria-live": "polite" })
  const submit = h("button", { type: "submit", class: "primary" }, "Send the link")
  replace(main, h("form", {
    class: "card narrow",
    onsubmit: async (event) => {
      event.preventDefault()
      submit.disabled = true
      replace(outcome)
      try {
        await requestPasswordReset(email.value.trim())
        replace(outcome, h("p", { class: "success", role: "status" }, "If an account uses this address, a link to choose a new password is on its way. It works for one hour."))
      } catch (error) {
        replace(outcome, errorBox(explain(error, "send the link")))
      } finally {
        submit.disabled = false
      }
    }
  },
  h("h1", {}, "Forgot your password?"),
  h("p", { class: "muted" }, "We mail a link to choose a new one. Every session of the account ends when it is used."),
  field("Email", email),
  outcome,
  h("div", { class: "actions" }, submit),
  h("p", {}, h("a", { href: "#sign-in" }, "Back to sign in"))))
  email.focus()
}

const renderSignIn = () => {
  leaveSignedOut()
  const email = h("input", { id: "email", type: "email", autocomplete: "username", required: true })
  const password = h("input", { id: "password", type: "password", autocomplete: "current-password", required: true })
  const problem = h("div", { "aria-live": "assertive" })
  const submit = h("button", { type: "submit", class: "primary" }, "Sign in")
  const form = h("form", {
    class: "card narrow",
    onsubmit: async (event) => {
      event.preventDefault()
      submit.disabled = true
      replace(problem)
      try {
        await signIn(email.value.trim(), password.value)
        password.value = ""
        signedOutReason = ""
        await start()
      } catch (error) {
        const text = error?.code === "invalid_credentials" ? "The email or password is not right." : explain(error, "sign in")
        replace(problem, errorBox(text))
        password.focus()
      } finally {
        submit.disabled = false
      }
    }
  },
  h("h1", {}, "Sign in"),
  h("p", { class: "muted" }, "Manage the API keys and webhooks of your Atrium workspaces. Your session stays in this tab only."),
  signedOutReason.length > 0 ? h("p", { class: "notice", role: "status" }, signedOutReason) : null,
  field("Email", email),
  field("Password", password),
  problem,
  h("div", { class: "actions" }, submit),
  h("p", { class: "links" }, h("a", { href: "#forgot-password" }, "Forgot your password?"), h("a", { href: "#sign-up" }, "Create an account")))
  replace(main, form)
  email.focus()
}

const renderBar = () => {
  const select = h("select", {
    id: "workspace",
    onchange: async () => {
      select.disabled = true
      try {
        await api("PUT", "/api/mobile/organization/active", { workspaceId: select.value })
        organization = await api("GET", "/api/mobile/organization")
        announce(`Switched to ${organization.workspace?.name ?? "the workspace"}.`)
        renderBar()
        await renderView()
      } catch (error) {
        replace(main, errorBox(explain(error, "switch workspace"), () => renderView()))
      } finally {
        select.disabled = false
      }
    }
  }, organization.memberships.map((membership) =>
    h("option", { value: membership.workspace.id, selected: membership.workspace.id === organization.workspace?.id },
      `${membership.workspace.name} (${membership.role})`)))
  if (organization.workspace === null) select.prepend(h("option", { value: "", selected: true, disabled: true }, "Choose a workspace"))
  replace(bar,
    h("div", { class: "workspace-picker" }, h("label", { for: "workspace" }, "Workspace"), select),
    h("button", { type: "button", class: "link", onclick: () => signOut() }, "Sign out"))
}

const renderNav = (view) => {
  nav.hidden = false
  for (const link of nav.querySelectorAll("a")) {
    const active = (link.dataset.view === "webhooks" && view === "endpoint") || link.dataset.view === view
    if (active) link.setAttribute("aria-current", "page")
    else link.removeAttribute("aria-current")
  }
}

const renderView = async () => {
  const mine = ++generation
  const route = currentRoute()
  renderNav(route.view)
  const container = h("div", { class: "view" })
  replace(main, container)
  if (organization.workspace === null) {
    replace(container, h("h1", {}, "Choose a workspace"), h("p", {}, "You are no longer a member of your last workspace. Pick one above."))
    return
  }
  const context = {
    container,
    workspace: organization.workspace,
    role: organization.role,
    canManage: organization.role === "owner" || organization.role === "admin",
    isCurrent: () => mine === generation
  }
  if (route.view === "endpoint") await renderEndpoint(context, route.id)
  else if (route.view === "webhooks") await renderWebhooks(context)
  else if (route.view === "logs") await renderLogs(context)
  else await renderKeys(context)
  if (context.isCurrent()) focusHeading(container)
}

const start = async () => {
  if (!signedIn()) return renderSignedOut()
  try {
    organization = await api("GET", "/api/mobile/organization")
  } catch (error) {
    if (!signedIn()) return
    replace(main, errorBox(explain(error, "load your workspaces"), () => start()))
    return
  }
  renderBar()
  await renderView()
}

onSignedOut((reason) => {
  signedOutReason = reason
  renderSignIn()
})
window.addEventListener("hashchange", () => {
  if (organization !== null) renderView()
  else if (!signedIn()) renderSignedOut()
})
// The skip link moves focus without touching the hash, which names the view.
document.querySelector(".skip-link")?.addEventListener("click", (event) => {
  event.preventDefault()
  main.focus()
})
start()
