/**
 * The dashboard's one script, served as a file (`assets.ts`) so the CSP allows no inline script. Every page
 * works without it; it adds the copy buttons, a confirmation before deleting, a visible "working" state
 * while a form or link loads the next page, and the reloading of a page that follows an import.
 */
export const dashboardJs = `"use strict";
var busy = function () {
  document.body.classList.add("loading");
  document.body.setAttribute("aria-busy", "true");
};
// A link to another page dims this one until the next arrives, as a form does; not a link opened
// elsewhere (a modifier key, another window, a download) or one within the page (the skip link).
document.addEventListener("click", function (event) {
  var link = event.target.closest("a[href]");
  if (!link || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (link.target || link.hasAttribute("download") || link.origin !== location.origin) return;
  if (link.hash && link.pathname === location.pathname && link.search === location.search) return;
  busy();
});
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-copy]");
  if (!button) return;
  var text = button.getAttribute("data-copy");
  var done = function (said) {
    var label = button.textContent;
    button.textContent = said;
    setTimeout(function () { button.textContent = label; }, 1500);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(function () { done("Copied"); }, function () { done("Copy failed"); });
  } else {
    var field = document.createElement("textarea");
    field.value = text;
    document.body.appendChild(field);
    field.select();
    var copied = document.execCommand("copy");
    field.remove();
    done(copied ? "Copied" : "Copy failed");
  }
});
document.addEventListener("submit", function (event) {
  var form = event.target;
  var question = form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) { event.preventDefault(); return; }
  // A second press would post twice; the button stays enabled, as a disabled submitter leaves the form's data.
  if (form.getAttribute("data-submitting")) { event.preventDefault(); return; }
  form.setAttribute("data-submitting", "true");
  var button = event.submitter || form.querySelector("button[type=submit]");
  if (button) {
    button.setAttribute("data-label", button.textContent);
    button.setAttribute("aria-disabled", "true");
    button.textContent = "Working…";
  }
  busy();
});
// A page following something in progress (an import) reloads itself until that ends, as a page without
// it says; not while it is hidden, or while a form on it is being sent.
var live = document.querySelector("[data-refresh]");
if (live) {
  var every = Number(live.getAttribute("data-refresh")) * 1000 || 2000;
  var tick = function () {
    if (document.hidden || document.body.classList.contains("loading")) setTimeout(tick, every);
    else window.location.reload();
  };
  setTimeout(tick, every);
}
// A page the browser kept (Back) comes back as it was left, still "working": it is reset.
window.addEventListener("pageshow", function () {
  document.body.classList.remove("loading");
  document.querySelectorAll("form[data-submitting]").forEach(function (form) { form.removeAttribute("data-submitting"); });
  document.querySelectorAll("button[data-label]").forEach(function (button) {
    button.textContent = button.getAttribute("data-label");
    button.removeAttribute("data-label");
    button.removeAttribute("aria-disabled");
  });
  document.body.removeAttribute("aria-busy");
});
`;
