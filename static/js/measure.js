/* The map's measuring tool (issue 34), on every screen that shows the map.
 *
 * "Measure" (by the zoom buttons), then two taps or clicks pick the cells (or type them in
 * the form under the map, which works without this script too): the server answers with the distance
 * in metres by the map's diagonal rule (combat/tapmove.py `measure`), and the two cells are
 * marked on the map until the next measure. While measuring, a tap on the map only
 * measures: it neither asks for a move (static/js/tapmove.js) nor paints or drags (the
 * GM's static/js/board.js). The button again, or Escape, stops measuring.
 *
 * Also the map's cell helpers the other map scripts use (window.VTTMap): the cell under a
 * pointer, and a cell's name ("C4") both ways. No inline script.
 */
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  var on = false; // measuring: taps on the map pick cells
  var first = null; // the first cell picked, until the second is

  function column(x) {
    var letters = "";
    var n = x + 1;
    while (n > 0) {
      var r = (n - 1) % 26;
      letters = String.fromCharCode(65 + r) + letters;
      n = Math.floor((n - 1) / 26);
    }
    return letters;
  }

  function label(c) {
    return column(c.x) + String(c.y + 1);
  }

  function parse(text) {
    var m = /^([A-Z]+)([0-9]+)$/.exec(text || "");
    if (!m) return null;
    var x = 0;
    for (var i = 0; i < m[1].length; i++) x = x * 26 + (m[1].charCodeAt(i) - 64);
    return { x: x - 1, y: Number(m[2]) - 1 };
  }

  // The cell under a pointer event on the map's svg, or null off the grid.
  function cellAt(svg, evt) {
    var pt = svg.createSVGPoint();
    pt.x = evt.clientX;
    pt.y = evt.clientY;
    var ctm = svg.getScreenCTM();
    if (!ctm) return null;
    var p = pt.matrixTransform(ctm.inverse());
    var px = Number(svg.dataset.px);
    var margin = Number(svg.dataset.margin);
    var x = Math.floor((p.x - margin) / px);
    var y = Math.floor((p.y - margin) / px);
    if (x < 0 || y < 0 || x >= Number(svg.dataset.width) || y >= Number(svg.dataset.height)) {
      return null;
    }
    return { x: x, y: y };
  }

  window.VTTMap = {
    cellAt: cellAt,
    label: label,
    parse: parse,
    measuring: function () {
      return on;
    },
  };

  function form() {
    return document.querySelector("form[data-testid=measure-form]");
  }

  function out() {
    return document.getElementById("measure-out");
  }

  // The cells to mark: the one picked first while the second is awaited, else the two
  // of the answer shown.
  function marked() {
    if (first) return [first];
    var line = document.querySelector("#measure-out [data-testid=measure-line]");
    if (!line) return [];
    return [parse(line.dataset.from), parse(line.dataset.to)].filter(Boolean);
  }

  function mark() {
    var svg = document.querySelector("#board svg.board-svg");
    if (!svg) return;
    svg.querySelectorAll("rect.measure-mark").forEach(function (r) {
      r.remove();
    });
    var px = Number(svg.dataset.px);
    var margin = Number(svg.dataset.margin);
    marked().forEach(function (c) {
      var r = document.createElementNS(SVGNS, "rect");
      r.setAttribute("class", "measure-mark");
      r.setAttribute("data-testid", "measure-mark");
      r.setAttribute("data-cell", label(c));
      r.setAttribute("pointer-events", "none");
      r.setAttribute("x", String(margin + c.x * px + 3));
      r.setAttribute("y", String(margin + c.y * px + 3));
      r.setAttribute("width", String(px - 6));
      r.setAttribute("height", String(px - 6));
      svg.appendChild(r);
    });
  }

  // A push may redraw the board from the server's HTML: the button shown again with its
  // state, the marks drawn again.
  function sync() {
    var b = document.querySelector("[data-measure-pick]");
    if (b) {
      b.removeAttribute("data-js-only");
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.textContent = on ? "Stop measuring" : "Measure";
    }
    var board = document.getElementById("board");
    if (board) board.classList.toggle("is-measuring", on);
    // The map sent whole (a new size, a new picture) comes with the answer's place empty:
    // while measuring, the instruction for the next tap is said again.
    var o = out();
    if (on && o && !o.textContent.trim()) say(instruction());
    mark();
  }

  function instruction() {
    if (first) return "From " + label(first) + ": now tap the cell to measure to.";
    return "Tap the first cell to measure from.";
  }

  function say(text) {
    var o = out();
    if (o) o.textContent = text;
  }

  // An answer (a distance or a refusal) is kept until the next measure; the tool's own
  // instructions hold only while measuring.
  function answered() {
    var o = out();
    return !!(o && o.querySelector("[data-testid=measure-line], [data-testid=measure-refusal]"));
  }

  function toggle(want) {
    on = want;
    first = null;
    sync();
    if (on) say(instruction());
    else if (!answered()) say("");
  }

  function pick(c) {
    var f = form();
    if (!f) return;
    var from = f.querySelector("[name=from]");
    var to = f.querySelector("[name=to]");
    if (!first) {
      first = c;
      from.value = label(c);
      to.value = "";
      say(instruction());
      mark();
      return;
    }
    to.value = label(c);
    first = null;
    f.requestSubmit();
  }

  function onMap(evt) {
    return evt.target.closest && evt.target.closest("#board svg.board-svg");
  }

  // While measuring, the map's presses are the tool's alone (listened for first, as the
  // page's other map scripts listen on the document after this one).
  ["pointerdown", "pointermove", "pointerup", "dragstart"].forEach(function (type) {
    document.addEventListener(
      type,
      function (evt) {
        if (on && onMap(evt)) evt.stopImmediatePropagation();
      },
      true
    );
  });

  document.addEventListener(
    "click",
    function (evt) {
      if (evt.target.closest && evt.target.closest("[data-measure-pick]")) {
        toggle(!on);
        return;
      }
      var svg = on && onMap(evt);
      if (!svg) return;
      evt.stopImmediatePropagation();
      evt.preventDefault();
      var c = cellAt(svg, evt);
      if (c) pick(c);
    },
    true
  );

  // The two cells typed in the form (by hand, or by the second tap) are a measure of their
  // own: a first cell tapped before is forgotten, so its mark goes and the next tap starts
  // a new measure.
  document.addEventListener(
    "submit",
    function (evt) {
      if (!evt.target.matches || !evt.target.matches("form[data-testid=measure-form]")) return;
      if (!first) return;
      first = null;
      mark();
    },
    true
  );

  document.addEventListener("keydown", function (evt) {
    if (evt.key === "Escape" && on && !evt.defaultPrevented) toggle(false);
  });

  document.addEventListener("htmx:after:swap", sync);
  document.addEventListener("htmx:ws:after:message:incoming", sync);
  sync();
})();
