/* Tap a cell of the map, see the path and its cost, tap it again to move (issue 35).
 *
 * On the player page and the GM console (#board[data-move], the preview's address): a
 * tap or click on a cell asks the server what moving the acting combatant there would be
 * (a GET: it changes nothing) and puts the answer in #move-preview as it comes: the path
 * drawn over the board and one line, or the refusal's words. A second tap on the same
 * cell, Enter again, or the answer's "Move here" button sends the answer's own form: the
 * ordinary command post, so posts.js counts one click once. Another cell replaces the
 * preview; Escape or "Cancel" clears it. The movement action is the one last touched in
 * the action panel (with its options), else the server's default for the ruleset.
 *
 * Keyboard: the map takes the focus; the arrow keys move a cursor cell (drawn here: it is
 * only where the person is pointing), Enter asks, Enter again moves, Escape cancels.
 *
 * A push that redraws the board, moves a token, paints or fogs a cell or changes who acts
 * empties the preview (what it showed may be stale): the cell still chosen is asked again. The GM's brushes keep their drags (static/js/board.js):
 * a tap moves only with the "Move tokens" brush and not on a token. No inline script.
 */
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  var pending = null; // the cell asked about last ("C4"), until it is moved to or cancelled
  var cursor = null; // {x, y}: the keyboard's cell
  var asked = 0; // answers to older asks are dropped
  var lastForm = null; // the movement form of the action panel touched last

  function board() {
    var b = document.getElementById("board");
    return b && b.dataset.move ? b : null;
  }

  function svgEl() {
    var b = board();
    return b ? b.querySelector("svg.board-svg") : null;
  }

  function box() {
    return document.getElementById("move-preview");
  }

  // The path drawn over the map lives beside the map, inside the box that zooms and
  // scrolls with it (#move-path); the line and the buttons stay in #move-preview.
  function empty() {
    var b = box();
    var p = document.getElementById("move-path");
    if (b) b.innerHTML = "";
    if (p) p.innerHTML = "";
  }

  function show(target, html) {
    target.innerHTML = html;
    var p = document.getElementById("move-path");
    if (p) {
      p.innerHTML = "";
      var drawn = target.querySelector("svg.move-overlay");
      if (drawn) p.appendChild(drawn);
    }
    window.htmx.process(target);
  }

  // The map's cell helpers (static/js/measure.js, loaded before this script).
  var cellAt = window.VTTMap.cellAt;
  var label = window.VTTMap.label;
  var parse = window.VTTMap.parse;

  function drawCursor() {
    var svg = svgEl();
    if (!svg) return;
    var r = svg.querySelector("rect.move-cursor");
    if (!cursor) {
      if (r) r.remove();
      return;
    }
    if (!r) {
      r = document.createElementNS(SVGNS, "rect");
      r.setAttribute("class", "move-cursor");
      r.setAttribute("data-testid", "move-cursor");
      r.setAttribute("pointer-events", "none");
      svg.appendChild(r);
    }
    var px = Number(svg.dataset.px);
    var margin = Number(svg.dataset.margin);
    r.setAttribute("x", String(margin + cursor.x * px + 2));
    r.setAttribute("y", String(margin + cursor.y * px + 2));
    r.setAttribute("width", String(px - 4));
    r.setAttribute("height", String(px - 4));
    r.setAttribute("data-cell", label(cursor));
    // On a zoomed map the cursor's cell is brought into the box's view.
    if (document.activeElement === svg && r.scrollIntoView) r.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  function clear() {
    pending = null;
    asked++;
    empty();
  }

  function params(cell) {
    var q = new URLSearchParams();
    q.set("to", cell);
    var f = lastForm && document.contains(lastForm) ? lastForm : null;
    if (f) {
      new FormData(f).forEach(function (value, name) {
        if (name === "action" || (name.indexOf("opt_") === 0 && name !== "opt_to")) {
          if (typeof value === "string") q.append(name, value);
        }
      });
    }
    return q;
  }

  function ask(cell) {
    var b = board();
    if (!b) return;
    pending = cell;
    var mine = ++asked;
    fetch(b.dataset.move + "?" + params(cell).toString(), {
      credentials: "same-origin",
      headers: { "HX-Request": "true" },
    })
      .then(function (r) {
        return r.text();
      })
      .then(function (html) {
        var target = box();
        if (mine !== asked || !target) return;
        show(target, html);
      })
      .catch(function () {
        var target = box();
        if (mine === asked && target) {
          empty();
          target.textContent = "The map could not ask the server about that cell: try again.";
        }
      });
  }

  function shownForm(cell) {
    var b = box();
    var f = b && b.querySelector("form[data-testid=move-form]");
    return f && f.dataset.to === cell ? f : null;
  }

  function commit(form) {
    pending = null;
    var button = form.querySelector("button[type=submit]");
    form.requestSubmit(button);
  }

  function tap(cell) {
    var f = shownForm(cell);
    if (f && pending === cell) {
      commit(f);
    } else {
      ask(cell);
    }
  }

  // Where the press began: a press on a token (the GM's drag) or one that ended on
  // another cell (a stroke) is not a tap.
  var down = null;
  document.addEventListener(
    "pointerdown",
    function (evt) {
      var svg = evt.target.closest && evt.target.closest("#board[data-move] svg.board-svg");
      down = svg ? { token: !!evt.target.closest("g.token"), cell: cellAt(svg, evt) } : null;
    },
    true
  );

  function brushAllows(evt, c) {
    var b = board();
    if (down && down.cell && (down.cell.x !== c.x || down.cell.y !== c.y)) return false;
    if (!b || !b.dataset.post) return true; // not the GM's console: no brushes
    var checked = b.querySelector("input[name=brush]:checked");
    if (checked && checked.value !== "move") return false;
    return !evt.target.closest("g.token") && !(down && down.token);
  }

  document.addEventListener("click", function (evt) {
    if (evt.target.closest && evt.target.closest("[data-move-cancel]")) {
      clear();
      return;
    }
    var svg = evt.target.closest && evt.target.closest("#board[data-move] svg.board-svg");
    if (!svg || evt.button !== 0) return;
    var c = cellAt(svg, evt);
    if (!c || !brushAllows(evt, c)) return;
    cursor = c;
    drawCursor();
    tap(label(c));
  });

  // A second tap of "Move here" or a commit clears the chosen cell (the push shows the move).
  document.addEventListener("submit", function (evt) {
    if (evt.target.matches && evt.target.matches("#move-preview form")) pending = null;
  });

  function startCursor() {
    var svg = svgEl();
    var acting = svg && svg.querySelector("g.token.is-turn");
    return (acting && parse(acting.dataset.cell)) || { x: 0, y: 0 };
  }

  var STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

  document.addEventListener("keydown", function (evt) {
    var svg = evt.target.closest && evt.target.closest("#board[data-move] svg.board-svg");
    if (!svg) {
      if (evt.key === "Escape" && pending && !evt.defaultPrevented) {
        var inBoard = evt.target.closest && evt.target.closest("#board");
        if (inBoard) {
          clear();
          evt.preventDefault();
        }
      }
      return;
    }
    if (evt.ctrlKey || evt.metaKey || evt.altKey) return;
    var step = STEPS[evt.key];
    if (step) {
      cursor = cursor || startCursor();
      cursor = {
        x: Math.min(Math.max(cursor.x + step[0], 0), Number(svg.dataset.width) - 1),
        y: Math.min(Math.max(cursor.y + step[1], 0), Number(svg.dataset.height) - 1),
      };
      drawCursor();
    } else if (evt.key === "Enter" || evt.key === " ") {
      cursor = cursor || startCursor();
      drawCursor();
      tap(label(cursor));
    } else if (evt.key === "Escape") {
      clear();
    } else {
      return;
    }
    evt.preventDefault();
  });

  document.addEventListener("focusin", function (evt) {
    if (evt.target.matches && evt.target.matches("#board[data-move] svg.board-svg")) {
      cursor = cursor || startCursor();
      drawCursor();
    }
  });

  // The panel's movement action (a form with a destination field) is the one a tap takes.
  function remember(evt) {
    var form = evt.target.closest && evt.target.closest("form.action");
    if (form && form.querySelector("[name=opt_to]")) lastForm = form;
  }
  document.addEventListener("change", remember);
  document.addEventListener("focusin", remember);

  // Where each token stands and who acts, the terrain and the fog: a push may send a
  // token alone, or a row of terrain or of fog, not the board.
  function mapNow() {
    var svg = svgEl();
    var out = [];
    if (svg) {
      svg.querySelectorAll("g.token").forEach(function (g) {
        out.push(g.dataset.token + "@" + g.dataset.cell + (g.classList.contains("is-turn") ? "*" : ""));
      });
      svg.querySelectorAll("g.terrain rect").forEach(function (r) {
        out.push(r.dataset.cell + "=" + r.dataset.terrain);
      });
      svg.querySelectorAll("g.fog rect").forEach(function (r) {
        out.push("fog@" + r.getAttribute("x") + "," + r.getAttribute("y"));
      });
    }
    return out.join(" ");
  }
  var drawnFor = mapNow();

  // A push redrew the board, moved a token or changed a cell: the preview is stale and
  // emptied, the cursor drawn again and the chosen cell asked again.
  function redraw() {
    drawCursor();
    var b = box();
    var now = mapNow();
    if (now !== drawnFor && b) empty();
    drawnFor = now;
    if (pending && b && !b.firstElementChild) ask(pending);
  }
  document.addEventListener("htmx:after:swap", redraw);
  document.addEventListener("htmx:ws:after:message:incoming", redraw);
})();
