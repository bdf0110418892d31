/* The action panel (templates/combat/components/actions.html).
 *
 * - A filter box: typing narrows the actions to those whose name holds the text, and opens
 *   the groups that hold a match (and hides the others); clearing it puts the panel back.
 * - The groups a person opened stay open when a push redraws the panel (the server sends
 *   them closed), and the filter keeps its text.
 *
 * Everything here reads the page the server rendered; without it, every group still opens
 * by hand and the filter box stays hidden. Loaded with the CSP nonce; no inline handlers.
 */
(function () {
  "use strict";

  var opened = {}; // data-group -> open, as the person left it
  var filters = {}; // filter box id -> its text

  function apply(panel, text) {
    if (!panel) return;
    var q = (text || "").trim().toLowerCase();
    panel.querySelectorAll("form.action").forEach(function (form) {
      var hide = q !== "" && (form.dataset.name || "").indexOf(q) === -1;
      if (form.hidden !== hide) form.hidden = hide;
    });
    panel.querySelectorAll("details.action-group").forEach(function (group) {
      if (q) {
        var any = group.querySelector("form.action:not([hidden])") !== null;
        group.hidden = !any;
        if (group.open !== any) group.open = any;
      } else {
        group.hidden = false;
        var want = opened[group.dataset.group] === true;
        if (group.open !== want) group.open = want;
      }
    });
    var now = panel.querySelector(".actions-now");
    if (now) now.hidden = now.querySelector("form.action:not([hidden])") === null;
  }

  function restore() {
    document.querySelectorAll("[data-action-panel]").forEach(function (panel) {
      var wrap = panel.querySelector("[data-action-filter-wrap]");
      if (wrap) wrap.hidden = false;
      var input = panel.querySelector("[data-action-filter]");
      var text = input ? filters[input.id] || "" : "";
      if (input && input.value !== text) input.value = text;
      apply(panel, text);
    });
  }

  function filterOf(panel) {
    var input = panel && panel.querySelector("[data-action-filter]");
    return input ? input.value.trim() : "";
  }

  document.addEventListener("input", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches("[data-action-filter]")) return;
    filters[input.id] = input.value;
    apply(input.closest("[data-action-panel]"), input.value);
  });

  // `toggle` does not bubble: listened for on the way down.
  document.addEventListener(
    "toggle",
    function (event) {
      var group = event.target;
      if (!group.matches || !group.matches("details.action-group")) return;
      // While filtering, the filter opens and closes groups, not the person.
      if (filterOf(group.closest("[data-action-panel]"))) return;
      opened[group.dataset.group] = group.open;
    },
    true
  );

  document.addEventListener("htmx:after:swap", restore);
  document.addEventListener("htmx:ws:after:message:incoming", restore);
  restore();
})();
