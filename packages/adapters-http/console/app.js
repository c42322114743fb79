// Settings → Developers: the shell (sign-in, workspace, navigation) that hands each view its container.
import { announce, errorBox, field, focusHeading, h, replace } from "./dom.js"
import { renderEndpoint } from "./endpoint.js"
import { renderKeys } from "./keys.js"
import { api, explain, onSignedOut, signedIn, signIn, signOut } from "./session.js"
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
  return { view: "keys" }
}

const renderSignIn = () => {
  organization = null
  replace(bar)
  nav.hidden = true
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
  h("div", { class: "actions" }, submit))
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
        replace(main, errorBox(explain(error, "switch workspace")))
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
    const active = (link.dataset.view === "webhooks" && (view === "webhooks" || view === "endpoint")) || link.dataset.view === view
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
  else await renderKeys(context)
  if (context.isCurrent()) focusHeading(container)
}

const start = async () => {
  if (!signedIn()) return renderSignIn()
  try {
    organization = await api("GET", "/api/mobile/organization")
  } catch (error) {
    if (!signedIn()) return
    replace(main, errorBox(explain(error, "load your workspaces")))
    return
  }
  renderBar()
  await renderView()
}

onSignedOut((reason) => {
  signedOutReason = reason
  renderSignIn()
})
window.addEventListener("hashchange", () => { if (organization !== null) renderView() })
// The skip link moves focus without touching the hash, which names the view.
document.querySelector(".skip-link")?.addEventListener("click", (event) => {
  event.preventDefault()
  main.focus()
})
start()
