/* Zoom and pan on the battle map, on every screen (issue 34: "usable on a 390 x 844 phone").
 *
 * The map sits in a box (#board-zoom). At "Fit" the stylesheet alone sizes it: the whole
 * map as wide as the box allows (never larger than drawn, except on a narrow screen where
 * a small map fills the width). Zoomed, the map is given its size in pixels here and the
 * box scrolls: one finger pans by scrolling, the browser's own pinch zooms the page (the
 * board allows it: touch-action in app.css), and the buttons "Zoom in", "Zoom out" and
 * "Fit" change the size of the cells.
 *
 * The first size depends on the screen (#board-zoom's data-zoom-default): the spectators'
 * screen shows the whole map ("fit"); a player's page and the GM's console ("tap") show it
 * whole too unless its cells would be smaller than a finger (MIN_CELL), and then open
 * with cells of TAP_CELL pixels, scrolled to the reader's own token (else the acting one).
 *
 * A push redraws the board (a morph puts the server's attributes back): the zoom chosen is
 * kept here and put back after every swap. No inline script (CSP).
 */
(function () {
  "use strict";
  var MIN_CELL = 28; // CSS pixels: smaller cells are not a tap target
  var TAP_CELL = 32; // the cell a big map opens with on a player's page or the GM's
  var MAX_CELL = 120;
  var STEP = 1.25;
  var cell = null; // the cell's size in CSS pixels once zoomed; null: "Fit"
  var chosen = false; // the reader pressed a button: no default any more
  var shownFor = null; // the map (its size) the first view was set for

  function box() {
    return document.getElementById("board-zoom");
  }

  function svgIn(b) {
    return b ? b.querySelector("svg.board-svg") : null;
  }

  function natural(svg) {
    return {
      w: Number(svg.getAttribute("width")),
      h: Number(svg.getAttribute("height")),
      px: Number(svg.dataset.px),
    };
  }

  // The cell's size at "Fit": the box's width over the map's (not above its drawn size,
  // but on a narrow screen, where the stylesheet lets a small map fill the width).
  function fitCell(b, svg) {
    var n = natural(svg);
    var scale = b.clientWidth / n.w;
    if (!window.matchMedia("(max-width: 600px)").matches) scale = Math.min(scale, 1);
    return n.px * scale;
  }

  // A touch screen or a narrow one: a finger, not a mouse, picks the cells.
  function byFinger() {
    return window.matchMedia("(pointer: coarse), (max-width: 600px)").matches;
  }

  function apply() {
    var b = box();
    var svg = svgIn(b);
    if (!svg) return;
    var n = natural(svg);
    var zoomed = cell !== null;
    if (zoomed) {
      var s = cell / n.px;
      svg.style.width = n.w * s + "px";
      svg.style.height = n.h * s + "px";
      svg.style.maxWidth = "none";
      // A box that scrolls is reached by keyboard (and then scrolled with the arrows).
      if (!b.querySelector("[tabindex]")) b.setAttribute("tabindex", "0");
      b.setAttribute("role", "group");
      b.setAttribute("aria-label", "The map, zoomed: scroll to see the rest");
    } else {
      svg.style.width = "";
      svg.style.height = "";
      svg.style.maxWidth = "";
      b.removeAttribute("tabindex");
      b.removeAttribute("role");
      b.removeAttribute("aria-label");
    }
    b.classList.toggle("is-zoomed", zoomed);
    b.dataset.cell = String(Math.round(zoomed ? cell : fitCell(b, svg)));
    var fit = document.querySelector("#board [data-board-zoom=fit]");
    if (fit) fit.setAttribute("aria-pressed", zoomed ? "false" : "true");
  }

  // Centre the box's view on a point of the map (in the map's own units).
  function centreOn(b, svg, x, y) {
    var n = natural(svg);
    var s = (cell === null ? fitCell(b, svg) : cell) / n.px;
    b.scrollLeft = Math.max(0, x * s - b.clientWidth / 2);
    b.scrollTop = Math.max(0, y * s - b.clientHeight / 2);
  }

  // The reader's own token (a player's panels name their combatants), else the acting one.
  function ownToken(svg) {
    var tokens = svg.querySelectorAll("g.token");
    for (var i = 0; i < tokens.length; i++) {
      if (document.getElementById("panel-" + tokens[i].dataset.token)) return tokens[i];
    }
    return svg.querySelector("g.token.is-turn");
  }

  function firstView() {
    var b = box();
    var svg = svgIn(b);
    if (!svg || chosen) return;
    var n = natural(svg);
    var key = n.w + "x" + n.h;
    if (shownFor === key) return;
    shownFor = key;
    cell = null;
    if (b.dataset.zoomDefault === "tap" && byFinger() && fitCell(b, svg) < MIN_CELL) cell = TAP_CELL;
    apply();
    var token = cell !== null && ownToken(svg);
    var circle = token && token.querySelector("circle");
    if (circle) centreOn(b, svg, Number(circle.getAttribute("cx")), Number(circle.getAttribute("cy")));
  }

  function zoom(how) {
    var b = box();
    var svg = svgIn(b);
    if (!svg) return;
    chosen = true;
    var n = natural(svg);
    var before = cell === null ? fitCell(b, svg) : cell;
    // The point in the middle of the view stays in the middle.
    var mid = {
      x: ((b.scrollLeft + b.clientWidth / 2) / before) * n.px,
      y: ((b.scrollTop + b.clientHeight / 2) / before) * n.px,
    };
    var fit = fitCell(b, svg);
    if (how === "fit") {
      cell = null;
    } else if (how === "in") {
      cell = Math.min(MAX_CELL, before * STEP);
    } else {
      var smaller = before / STEP;
      cell = smaller <= fit * 1.01 ? null : smaller;
    }
    if (cell !== null && Math.abs(cell - fit) < 0.5) cell = null;
    apply();
    if (cell !== null) centreOn(b, svg, mid.x, mid.y);
  }

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest && evt.target.closest("#board [data-board-zoom]");
    if (button) zoom(button.dataset.boardZoom);
  });

  function again() {
    var b = box();
    if (!svgIn(b)) return;
    var key = natural(svgIn(b));
    if (!chosen && shownFor !== key.w + "x" + key.h) {
      firstView();
    } else {
      apply();
    }
  }
  document.addEventListener("htmx:after:swap", again);
  document.addEventListener("htmx:ws:after:message:incoming", again);
  window.addEventListener("resize", apply);

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", firstView);
  } else {
    firstView();
  }
})();
