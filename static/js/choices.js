/* What a person chose in an action's form stays chosen while a push redraws the form.
 *
 * A push redraws an action's form, or its list of targets alone, whenever what it draws
 * changes (someone else acts, the turn passes, someone comes into view or falls), with
 * the server's defaults in it. The morph keeps most choices, but not all: when the
 * server's default target moves (the Goblin falls and the Troll, chosen by the person,
 * becomes the first enemy) the option chosen is drawn afresh and the select falls back
 * to its first option ("no target", or the first target of a required list); a form that
 * moves to another list of the panel is drawn afresh with every option at its default.
 *
 * So every choice a person makes in a form of an action (a target, a choice, a number,
 * a box ticked), by the form's test id and the option's name, is remembered, and after
 * each swap put back in the form that draws it, if it is still offered there (the
 * option is in the list, the number within the bounds). A choice no longer offered is
 * forgotten, and the form shows the server's default. A choice stays after the form is
 * sent: the next attack is on the same target, as long as it can be (docs/decisions.md).
 * A choice put back that the form did not show sends `change`, so the form's cost line
 * and the GM's "Target" buttons follow it.
 *
 * Only in memory, for the page as loaded: a reload shows the server's defaults.
 * Loaded with the CSP nonce; no inline handlers.
 */
(function () {
  "use strict";

  var FORM = "form.action[data-testid]";
  var chosen = new Map(); // form test id -> Map(option name -> value)

  function controlOf(el) {
    if (!el || !el.matches || !el.name || !el.form) return null;
    if (!el.matches("select, input:not([type=hidden]):not([type=submit]):not([type=button])")) {
      return null;
    }
    return el.closest(FORM) ? el : null;
  }

  function valueOf(el) {
    if (el.type === "checkbox") return el.checked;
    if (el.multiple) {
      return Array.prototype.filter.call(el.options, function (o) { return o.selected; }).map(function (o) {
        return o.value;
      });
    }
    return el.value;
  }

  function remember(el) {
    var form = el.closest(FORM);
    var id = form.getAttribute("data-testid");
    if (!chosen.has(id)) chosen.set(id, new Map());
    chosen.get(id).set(el.name, valueOf(el));
  }

  function offered(select, value) {
    return Array.prototype.some.call(select.options, function (o) {
      return o.value === value && !o.disabled;
    });
  }

  function same(a, b) {
    return Array.isArray(a) ? a.join("\n") === b.join("\n") : a === b;
  }

  // What the server drew as the default of `el`, as a page freshly loaded shows it.
  function defaultOf(el) {
    if (el.type === "checkbox") return el.defaultChecked;
    if (el.tagName !== "SELECT") return el.defaultValue;
    var options = Array.prototype.slice.call(el.options);
    if (el.multiple) {
      return options.filter(function (o) { return o.defaultSelected; }).map(function (o) { return o.value; });
    }
    var first = options.filter(function (o) { return o.defaultSelected; })[0];
    first = first || options.filter(function (o) { return !o.disabled; })[0];
    return first ? first.value : "";
  }

  function show(el, value) {
    if (el.type === "checkbox") el.checked = value;
    else if (el.multiple) {
      Array.prototype.forEach.call(el.options, function (o) {
        o.selected = value.indexOf(o.value) !== -1;
      });
    } else el.value = value;
  }

  // Puts `value` back in `el`, or, when it is no longer offered there, the server's
  // default: "kept" (it shows it already), "put" (put back) or "gone" (not offered).
  function putBack(el, value) {
    var now = valueOf(el);
    if (value === undefined) value = defaultOf(el);
    if (same(now, value)) return "kept";
    var gone = false;
    if (el.multiple) {
      var still = value.filter(function (v) { return offered(el, v); });
      gone = value.length > 0 && still.length === 0;
      value.length = 0; // those no longer offered are forgotten
      still.forEach(function (v) { value.push(v); });
    } else if (el.tagName === "SELECT") {
      gone = !offered(el, value);
    } else if (el.type !== "checkbox") {
      el.value = value;
      gone = !el.checkValidity(); // out of the bounds the form has now
    }
    if (gone) value = defaultOf(el);
    if (!same(valueOf(el), value)) show(el, value);
    return gone ? "gone" : "put";
  }

  function controlsOf(form) {
    return Array.prototype.filter.call(form.elements, function (c) { return controlOf(c) !== null; });
  }

  // Every form of an action on the page shows what its person chose, if still offered,
  // and else the server's default. A list the person never touched shows the server's
  // default too: a morph that drew the option chosen afresh leaves the first option
  // shown ("no target"), not the one the server marks as chosen.
  function restore() {
    document.querySelectorAll(FORM).forEach(function (form) {
      var fields = chosen.get(form.getAttribute("data-testid"));
      var changed = null;
      controlsOf(form).forEach(function (el) {
        var mine = fields && fields.has(el.name);
        if (!mine && el.tagName !== "SELECT") return; // the morph shows the server's own
        var done = putBack(el, mine ? fields.get(el.name) : undefined);
        if (done === "gone" && mine) fields.delete(el.name);
        if (done !== "kept" && !changed) changed = el;
      });
      if (fields && !fields.size) chosen.delete(form.getAttribute("data-testid"));
      if (changed) changed.dispatchEvent(new Event("change", { bubbles: true }));
    });
  }

  function onChoice(event) {
    var el = controlOf(event.target);
    if (el) remember(el);
  }

  document.addEventListener("change", onChoice);
  document.addEventListener("input", onChoice);
  // A choice made by the page's own script (the GM's "Target" buttons, static/js/actions.js).
  document.addEventListener("vtt:chosen", onChoice);
  document.addEventListener("htmx:after:swap", restore);
  document.addEventListener("htmx:ws:after:message:incoming", restore);
})();
