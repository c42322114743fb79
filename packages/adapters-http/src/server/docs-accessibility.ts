/**
 * Repairs the bundled Scalar reference's markup where axe-core finds serious or critical faults, as Scalar renders it
 * (a MutationObserver: the reference renders lazily and re-renders on navigation). Served from this origin, so the
 * page's policy still allows no inline script but its one hashed boot line.
 */
export const docsAccessibilityScript = `(() => {
  const fix = (root) => {
    // Sidebar entries are buttons, not options: aria-selected is not theirs; the selected one is the current page.
    for (const button of root.querySelectorAll("button[aria-selected]:not([role])")) {
      if (button.getAttribute("aria-selected") === "true") button.setAttribute("aria-current", "page")
      else button.removeAttribute("aria-current")
      button.removeAttribute("aria-selected")
    }
    // The client libraries tablist also holds a plain "more" button: inside a tablist it is one of the tabs.
    for (const button of root.querySelectorAll("[role=tablist] button:not([role])")) {
      button.setAttribute("role", "tab")
      button.setAttribute("aria-selected", "false")
    }
    // The search button's only text is hidden from screen readers.
    for (const search of root.querySelectorAll("button[role=search]:not([aria-label])")) search.setAttribute("aria-label", "Search")
    // "Show more" buttons: the accessible name must contain the visible text.
    for (const more of root.querySelectorAll("button.show-more[aria-label]")) {
      const text = (more.textContent || "").trim()
      const label = more.getAttribute("aria-label") || ""
      if (text.length > 0 && !label.toLowerCase().includes(text.toLowerCase())) more.setAttribute("aria-label", text + ": " + label)
    }
    // The client libraries' overflow menu button shows only an icon.
    for (const menu of root.querySelectorAll("button.client-libraries__select:not([aria-label])")) menu.setAttribute("aria-label", "More client libraries")
    // A tag's endpoint list scrolls: a keyboard user must be able to reach it.
    for (const list of root.querySelectorAll("ul[aria-label$=' endpoints']:not([tabindex])")) list.setAttribute("tabindex", "0")
    // Code blocks scroll sideways: a keyboard user must be able to reach them.
    for (const code of root.querySelectorAll("pre > code:not([tabindex])")) code.setAttribute("tabindex", "0")
  }
  let scheduled = false
  const run = () => {
    scheduled = false
    fix(document)
  }
  new MutationObserver(() => {
    if (!scheduled) {
      scheduled = true
      requestAnimationFrame(run)
    }
  }).observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-selected", "aria-label"] })
  run()
})()
`

/**
 * Scalar's light theme greys and method colours fall short of 4.5:1 on white (axe: color-contrast): darker shades of
 * the same hues.
 */
export const docsContrastCss = `.light-mode {
  --scalar-color-2: #4d4d4d;
  --scalar-color-3: #616161;
  --scalar-color-blue: #0062a3;
  --scalar-color-green: #0a7a3b;
  --scalar-color-orange: #a34a00;
  --scalar-color-red: #c0262d;
  --scalar-color-purple: #7439b3;
  --scalar-color-yellow: #806000;
  --scalar-color-accent: #0062a3;
}
.dark-mode {
  --scalar-color-3: #a8a8a8;
}
`
