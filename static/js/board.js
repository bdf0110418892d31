/* The GM's battle map: paint by dragging over cells, drag a token to place it.
 *
 * Progressive enhancement: every change is an ordinary command form in #board (the place
 * and paint forms work without this file). A stroke fills the hidden #board-stroke form
 * with every cell the pointer crossed and sends it once (one command for the whole
 * stroke); a token dropped on a cell fills #board-drag and sends it. The forms are
 * posted with requestSubmit, so htmx and posts.js treat them as any other form (the CSRF
 * token, the form key, the busy state, the flash answer). The server decides everything:
 * the board redraws when the push arrives. No inline script, no eval (CSP).
 */
(function () {
  "use strict";
  var stroke = null; // {cells: Map, brush}
  var drag = null; // {id, token}
  var brush = "move"; // kept here: a push redraws the radios

  function board() {
    return document.getElementById("board");
  }

  function svgOf(el) {
    return el && el.closest ? el.closest("#board[data-post] svg.board-svg") : null;
  }

  // The cell under a pointer (static/js/measure.js, loaded before this script).
  var cellAt = window.VTTMap.cellAt;

  function preview(svg, c) {
    var g = svg.querySelector("g.board-preview");
    if (!g) {
      g = document.createElementNS("http://www.w3.org/2000/svg", "g");
      g.setAttribute("class", "board-preview");
      svg.appendChild(g);
    }
    var px = Number(svg.dataset.px);
    var margin = Number(svg.dataset.margin);
    var r = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    r.setAttribute("x", String(margin + c.x * px));
    r.setAttribute("y", String(margin + c.y * px));
    r.setAttribute("width", String(px));
    r.setAttribute("height", String(px));
    g.appendChild(r);
  }

  function addCell(svg, c) {
    if (!c) {
      return;
    }
    var key = c.x + "," + c.y;
    if (!stroke.cells.has(key)) {
      stroke.cells.set(key, true);
      preview(svg, c);
    }
  }

  function send(formId, fields) {
    var form = document.getElementById(formId);
    if (!form) {
      return;
    }
    Object.keys(fields).forEach(function (name) {
      form.elements[name].value = fields[name];
    });
    form.requestSubmit();
  }

  function currentBrush() {
    var b = board();
    var checked = b && b.querySelector("input[name=brush]:checked");
    return checked ? checked.value : brush;
  }

  document.addEventListener("change", function (evt) {
    if (evt.target.matches && evt.target.matches("#board input[name=brush]")) {
      brush = evt.target.value;
    }
  });

  // After a push redraws the board, show the brush still chosen.
  function keepBrush() {
    var b = board();
    var radio = b && b.querySelector('input[name=brush][value="' + brush + '"]');
    if (radio && !radio.checked) {
      radio.checked = true;
    }
  }
  document.addEventListener("htmx:after:swap", keepBrush);
  document.addEventListener("htmx:ws:after:message:incoming", keepBrush);

  // The cells of a stroke are outlined until the push that paints them arrives: it redraws
  // the rows it changed, not the map, so the outline is taken away here (and at the next
  // stroke, should the command be refused and nothing come).
  function clearPreview() {
    var b = board();
    var g = !stroke && b && b.querySelector("g.board-preview");
    if (g) {
      g.remove();
    }
  }
  document.addEventListener("htmx:ws:after:message:incoming", clearPreview);

  // A finger on the map pans and pinches it (app.css lets the browser), except when it
  // paints with a brush or drags a token: then the touch is the stroke's or the drag's.
  document.addEventListener(
    "touchstart",
    function (evt) {
      if (svgOf(evt.target) && (currentBrush() !== "move" || evt.target.closest("g.token"))) {
        evt.preventDefault();
      }
    },
    { passive: false }
  );

  document.addEventListener("pointerdown", function (evt) {
    var svg = svgOf(evt.target);
    if (!svg || evt.button !== 0) {
      return;
    }
    var token = evt.target.closest("g.token");
    brush = currentBrush();
    if (brush === "move") {
      if (token) {
        drag = { id: token.dataset.token, token: token };
        token.classList.add("is-dragging");
        svg.setPointerCapture(evt.pointerId);
        evt.preventDefault();
      }
      return;
    }
    clearPreview();
    stroke = { cells: new Map(), brush: brush };
    svg.setPointerCapture(evt.pointerId);
    addCell(svg, cellAt(svg, evt));
    evt.preventDefault();
  });

  document.addEventListener("pointermove", function (evt) {
    var svg = svgOf(evt.target) || (board() && board().querySelector("svg.board-svg"));
    if (!svg) {
      return;
    }
    if (stroke) {
      addCell(svg, cellAt(svg, evt));
    } else if (drag) {
      var c = cellAt(svg, evt);
      var circle = drag.token.querySelector("circle");
      if (c && circle) {
        var pt = svg.createSVGPoint();
        pt.x = evt.clientX;
        pt.y = evt.clientY;
        var p = pt.matrixTransform(svg.getScreenCTM().inverse());
        drag.token.setAttribute(
          "transform",
          "translate(" + (p.x - Number(circle.getAttribute("cx"))) + " " + (p.y - Number(circle.getAttribute("cy"))) + ")"
        );
      }
    }
  });

  function finish(evt) {
    var svg = board() && board().querySelector("svg.board-svg");
    if (stroke) {
      if (svg && evt.type === "pointerup") {
        addCell(svg, cellAt(svg, evt));
      }
      var s = stroke;
      stroke = null;
      var cells = Array.from(s.cells.keys()).join(" ");
      if (!cells) {
        return;
      }
      if (s.brush === "fog" || s.brush === "unfog") {
        send("board-stroke", { type: "fog", cells: cells, terrain: "", fogged: s.brush === "fog" ? "1" : "0" });
      } else {
        send("board-stroke", { type: "paint", cells: cells, terrain: s.brush, fogged: "" });
      }
    } else if (drag) {
      var d = drag;
      drag = null;
      d.token.classList.remove("is-dragging");
      var c = svg && evt.type === "pointerup" ? cellAt(svg, evt) : null;
      if (!c) {
        d.token.removeAttribute("transform");
        return;
      }
      send("board-drag", { type: "place", actor: d.id, cell: c.x + "," + c.y });
    }
  }
  document.addEventListener("pointerup", finish);
  document.addEventListener("pointercancel", finish);
})();
