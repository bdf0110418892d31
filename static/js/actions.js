/* The action panel (templates/combat/components/actions.html).
 *
 * - A filter box: typing narrows the actions to those whose name holds the text, and opens
 *   the groups that hold a match (and hides the others); clearing it puts the panel back.
 * - The groups a person opened stay open when a push redraws the panel (the server sends
 *   them closed), and the filter keeps its text.
 *
 * - The GM's initiative list: a row's "Target" button (shown while someone acts) makes that
 *   combatant the target of every action in the turn panel that takes one, so an NPC's turn
 *   is "Target, Attack, End turn"; the button of the current target is shown pressed.
 *
 * - Dragging a row of the GM's list onto another row tied with it (same initiative, same
 *   side) moves it there, one `reorder` step at a time (the up/down buttons under its
 *   initiative, which stay the keyboard's way). Dropped on any other row, it is placed
 *   right before it (dragged up) or after it (dragged down) by one `place_in_order`: the
 *   GM's ruling, which sets its initiative (the arrows do the same one step at a time).
 *
 * Everything here reads the page the server rendered; without it, every group still opens
 * by hand and the filter box stays unseen. Loaded with the CSP nonce; no inline handlers.
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
      if (wrap) wrap.removeAttribute("data-js-only");
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

  function turnSelects() {
    var turn = document.getElementById("turn");
    return turn ? Array.prototype.slice.call(turn.querySelectorAll("select[data-target-select]")) : [];
  }

  function showTarget() {
    var first = turnSelects().filter(function (s) { return !s.multiple; })[0];
    var aimed = first ? first.value : "";
    document.querySelectorAll("[data-pick-target]").forEach(function (b) {
      var on = String(b.dataset.pickTarget === aimed);
      if (b.getAttribute("aria-pressed") !== on) b.setAttribute("aria-pressed", on);
    });
  }

  function pick(cid) {
    turnSelects().forEach(function (select) {
      var option = Array.prototype.find.call(select.options, function (o) { return o.value === cid; });
      if (!option) return;
      if (select.multiple) option.selected = true;
      else select.value = cid;
      // The GM's choice, as if made in the list (static/js/choices.js keeps it across pushes).
      select.dispatchEvent(new Event("vtt:chosen", { bubbles: true }));
    });
    showTarget();
    var announce = document.getElementById("announce");
    var row = document.getElementById("cname-" + cid);
    if (announce && row) announce.textContent = "Target: " + row.textContent;
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-pick-target]");
    if (!button) return;
    event.preventDefault();
    pick(button.dataset.pickTarget);
  });

  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("#turn select[data-target-select]")) showTarget();
  });

  var dragged = null; // the row being dragged
  var move = null; // {cid, dir, left}: reorder steps still to send

  function tiedWith(row) {
    return dragged && row && row !== dragged && row.dataset.tie && row.dataset.tie === dragged.dataset.tie;
  }

  function shownVersion() {
    var sync = document.getElementById("sync");
    return sync ? sync.getAttribute("data-version") : null;
  }

  // One step at a time, each once the page shows the last one's answer (a form sent again
  // before that would count as a double click, static/js/posts.js); given up after 10 s.
  function step() {
    if (!move) return;
    if (move.left <= 0 || Date.now() - move.since > 10000) { move = null; return; }
    var button = document.querySelector('[data-testid="' + move.dir + "-" + move.cid + '"]');
    if (!button && move.version === shownVersion()) { setTimeout(step, 100); return; }
    if (!button) { move = null; return; }
    var ready = move.version !== shownVersion() && !button.disabled && button.getAttribute("aria-busy") !== "true";
    if (move.version !== null && !ready) { setTimeout(step, 100); return; }
    move.left -= 1;
    move.version = shownVersion();
    button.form.requestSubmit(button);
    if (move.left > 0) setTimeout(step, 100);
  }

  document.addEventListener("dragstart", function (event) {
    var row = event.target.closest && event.target.closest("li.gm-item[draggable='true']");
    if (!row) return;
    dragged = row;
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", row.dataset.combatant);
    row.classList.add("is-dragging");
  });

  function placeable(row) {
    return dragged && row && row !== dragged && row.dataset.combatant && document.querySelector('form[data-place-form="' + dragged.dataset.combatant + '"]');
  }

  document.addEventListener("dragover", function (event) {
    var row = event.target.closest && event.target.closest("li.gm-item");
    if (!tiedWith(row) && !placeable(row)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    row.classList.add("drop-here");
  });

  document.addEventListener("dragleave", function (event) {
    var row = event.target.closest && event.target.closest("li.gm-item");
    if (row) row.classList.remove("drop-here");
  });

  document.addEventListener("dragend", function () {
    document.querySelectorAll(".is-dragging, .drop-here").forEach(function (el) {
      el.classList.remove("is-dragging", "drop-here");
    });
    dragged = null;
  });

  document.addEventListener("drop", function (event) {
    var row = event.target.closest && event.target.closest("li.gm-item");
    if (!tiedWith(row) && placeable(row)) {
      event.preventDefault();
      var rows = Array.prototype.slice.call(document.querySelectorAll("#combatants > li.gm-item"));
      var up = rows.indexOf(row) < rows.indexOf(dragged);
      var form = placeable(row);
      form.querySelector('[name="before"]').value = up ? row.dataset.combatant : "";
      form.querySelector('[name="after"]').value = up ? "" : row.dataset.combatant;
      form.requestSubmit();
      return;
    }
    if (!tiedWith(row)) return;
    event.preventDefault();
    // A shown combatant steps over shown ones only (the engine keeps hidden ones in place).
    var skipHidden = !dragged.hasAttribute("data-hidden");
    var peers = Array.prototype.filter.call(
      document.querySelectorAll("#combatants > li.gm-item"),
      function (li) {
        return li.dataset.tie === dragged.dataset.tie && (!skipHidden || !li.hasAttribute("data-hidden") || li === dragged);
      }
    );
    var from = peers.indexOf(dragged), to = peers.indexOf(row);
    if (from < 0 || to < 0 || from === to) return;
    move = { cid: dragged.dataset.combatant, dir: to < from ? "up" : "down", left: Math.abs(to - from), version: null, since: Date.now() };
    step();
  });

  function refresh() {
    restore();
    showTarget();
  }

  document.addEventListener("htmx:after:swap", refresh);
  document.addEventListener("htmx:ws:after:message:incoming", refresh);
  refresh();
})();
