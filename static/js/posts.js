/* One click counts once, and a post that fails says so. Loaded after htmx, without defer.
 *
 * 1. The key. Every post a live page makes carries `form_key`: the version the page
 *    was showing (#sync's data-version, in every render of the page and every push).
 *    The server makes the command's idempotency key from it, from who posts and from
 *    what the form says (combat/services.py `form_key`), so the same form sent again
 *    before the page has shown anything newer acts once and is answered as the first.
 * 2. Busy. From the moment a form is sent until its answer is in (and for at least
 *    HOLD_MS, the length of a double tap on a phone) the pressed button is disabled and
 *    marked aria-busy, and the same button sends nothing more; the form's other buttons
 *    and every other form stay free. A push that redraws the button meanwhile does not
 *    make it clickable again.
 *    A repeated tap on the same spot within that time is dropped when a push has put
 *    another button there meanwhile, so a triple tap never presses the next button.
 * 3. Failure. A post that gets no answer (the network failed) or a server error is
 *    reported in the flash region in words, with a "Send again" button that sends the
 *    very same request again: the same fields, the same key, so it can never act twice.
 *
 * No inline script and no eval: the Content-Security-Policy allows neither.
 */
(function () {
  "use strict";
  if (!window.htmx) {
    return;
  }
  var KEY = "form_key";
  var HOLD_MS = 600;
  // A post whose end htmx never reported (its form was redrawn away meanwhile) stops
  // holding its button back after this long: far above any answer's time.
  var STUCK_MS = 15000;
  // What is on its way, by which button of which form it is ("the same button" is told by
  // what it says and does, not by the element: a push may morph one button into another).
  var inFlight = new Map(); // id -> {id, sigs, started}
  var BUTTONS = "button:not([type=button]), input[type=submit]";

  function shownVersion() {
    var sync = document.getElementById("sync");
    var value = sync && sync.getAttribute("data-version");
    return value && /^[0-9]+$/.test(value) ? value : null;
  }

  function isPost(ctx) {
    return ctx && ctx.request && String(ctx.request.method).toUpperCase() === "POST";
  }

  function sig(b) {
    var form = b.form || b.closest("form");
    return [
      form ? form.getAttribute("hx-post") || form.getAttribute("action") || "" : "",
      b.getAttribute("data-testid") || "",
      b.name || "",
      b.value || "",
      b.getAttribute("data-action") || "",
    ].join("|");
  }

  function pressed(ctx) {
    var submitter = ctx.request.submitter;
    if (submitter) {
      return [submitter];
    }
    var source = ctx.sourceElement;
    if (source.matches("button, input[type=submit]")) {
      return [source];
    }
    var form = source.matches("form") ? source : source.closest("form");
    return form ? Array.prototype.slice.call(form.querySelectorAll(BUTTONS)) : [];
  }

  function each(sigs, fn) {
    document.querySelectorAll(BUTTONS).forEach(function (b) {
      if (sigs.indexOf(sig(b)) !== -1) {
        fn(b);
      }
    });
  }

  function markBusy(b) {
    // Only what the page offered: a button the server disabled stays as it was.
    if (!b.disabled) {
      b.disabled = true;
      b.setAttribute("data-busy", "true");
      b.setAttribute("aria-busy", "true");
    }
  }

  function release(entry) {
    inFlight.delete(entry.id);
    each(entry.sigs, function (b) {
      // A push that redrew the button meanwhile already gave it the server's state.
      if (b.getAttribute("data-busy") === "true") {
        b.removeAttribute("data-busy");
        b.removeAttribute("aria-busy");
        b.disabled = false;
      }
    });
  }

  document.addEventListener("htmx:config:request", function (evt) {
    var ctx = evt.detail && evt.detail.ctx;
    if (!isPost(ctx)) {
      return;
    }
    var body = ctx.request.body;
    var shown = shownVersion();
    if (shown && body && typeof body.set === "function" && !body.has(KEY)) {
      body.set(KEY, shown);
    }
    var buttons = pressed(ctx);
    if (!buttons.length) {
      // A form a script sends (a stroke painted on the map, a token dropped): nobody
      // clicked it twice, and each one says something new.
      return;
    }
    var sigs = buttons.map(sig);
    var id = String(ctx.request.action) + "#" + sigs.join(",");
    var earlier = inFlight.get(id);
    if (earlier && Date.now() - earlier.started < STUCK_MS) {
      evt.preventDefault(); // the second of a double click: the first is on its way
      return;
    }
    var entry = { id: id, sigs: sigs, started: Date.now() };
    inFlight.set(id, entry);
    ctx.busyEntry = entry;
    buttons.forEach(markBusy);
  });

  // A tap that lands where the last one did, within a double tap's time, on another
  // button than that tap pressed is the same tap again: a push has put a different button
  // under the finger (Start combat answered, and "Advance turn" now sits there; or the
  // page grew above it and moved one of the other buttons there). It is dropped, so a
  // triple tap can never press the next button. The same button again is what "busy"
  // above is for. Only real pointer clicks count (detail > 0); keyboard presses and the
  // GM's shortcuts (element.click(), detail 0) are never dropped.
  var NEAR_PX = 30;
  var lastTap = null; // {x, y, at, pressed: the signature of the button that tap pressed}
  document.addEventListener(
    "click",
    function (evt) {
      if (!evt.isTrusted || evt.detail === 0 || !evt.target.closest) {
        return;
      }
      var b = evt.target.closest(BUTTONS);
      var form = b && (b.form || b.closest("form"));
      if (!form || !(form.getAttribute("hx-post") || /post/i.test(form.method || ""))) {
        // A tap on something else in between (opening a group of actions) ends the double tap.
        lastTap = null;
        return;
      }
      var now = Date.now();
      if (
        lastTap &&
        now - lastTap.at < HOLD_MS &&
        Math.abs(evt.clientX - lastTap.x) < NEAR_PX &&
        Math.abs(evt.clientY - lastTap.y) < NEAR_PX &&
        sig(b) !== lastTap.pressed
      ) {
        evt.preventDefault();
        evt.stopImmediatePropagation();
        return;
      }
      lastTap = { x: evt.clientX, y: evt.clientY, at: now, pressed: sig(b) };
    },
    true
  );

  // A push can redraw a form while its post is on the way: keep it busy until the answer.
  function keepBusy() {
    inFlight.forEach(function (entry) {
      each(entry.sigs, markBusy);
    });
  }
  document.addEventListener("htmx:ws:after:message:incoming", keepBusy);
  document.addEventListener("htmx:after:swap", keepBusy);

  // --- failures ----------------------------------------------------------------------------

  function labelOf(ctx) {
    var button = pressed(ctx)[0];
    var text = "";
    if (button) {
      var copy = button.cloneNode(true);
      copy.querySelectorAll(".cost-chip").forEach(function (chip) {
        chip.remove(); // "Defensive Stance", not "Defensive Stance 1 AP"
      });
      text = button.getAttribute("aria-label") || copy.textContent || "";
    }
    text = text.replace(/\s+/g, " ").trim();
    return text.length > 60 ? text.slice(0, 57) + "..." : text;
  }

  function copyBody(body) {
    if (!body) {
      return null;
    }
    return new URLSearchParams(body.toString());
  }

  function report(failure, why) {
    var flash = document.getElementById("flash");
    if (!flash) {
      return;
    }
    var line = document.createElement("p");
    line.className = "flash error post-failed";
    line.setAttribute("data-testid", "post-failed");
    var what = failure.label ? "\u201c" + failure.label + "\u201d" : "Your last action";
    line.appendChild(
      document.createTextNode(
        (why === "network"
          ? what + " may not have reached the server: the connection failed. "
          : what + " failed on the server (error " + why + "). ") +
          "Sending it again is safe: it is done at most once. "
      )
    );
    var again = document.createElement("button");
    again.type = "button";
    again.className = "button";
    again.textContent = "Send again";
    again.setAttribute("data-testid", "send-again");
    again.addEventListener("click", function () {
      again.disabled = true;
      again.setAttribute("aria-busy", "true");
      resend(failure);
    });
    line.appendChild(again);
    flash.replaceChildren(line);
  }

  function failureOf(ctx) {
    return {
      action: ctx.request.action,
      headers: Object.assign({}, ctx.request.headers),
      body: copyBody(ctx.request.body),
      label: labelOf(ctx),
    };
  }

  function resend(failure) {
    var headers = Object.assign({}, failure.headers, { "HX-Request": "true" });
    fetch(failure.action, {
      method: "POST",
      headers: headers,
      body: failure.body ? new URLSearchParams(failure.body.toString()) : null,
      credentials: "same-origin",
    })
      .then(function (response) {
        return response.text().then(function (text) {
          if (response.status >= 500) {
            report(failure, String(response.status));
            return;
          }
          var flash = document.getElementById("flash");
          if (flash) {
            htmx.swap({ sourceElement: flash, target: flash, swap: "innerHTML", text: text });
          }
        });
      })
      .catch(function () {
        report(failure, "network");
      });
  }

  document.addEventListener("htmx:error", function (evt) {
    var ctx = evt.detail && evt.detail.ctx;
    if (!isPost(ctx) || ctx.response) {
      return; // an answer came; only a request that got none is a network failure
    }
    report(failureOf(ctx), "network");
  });

  document.addEventListener("htmx:finally:request", function (evt) {
    var ctx = evt.detail && evt.detail.ctx;
    if (!isPost(ctx)) {
      return;
    }
    if (ctx.response && ctx.response.status >= 500) {
      report(failureOf(ctx), String(ctx.response.status));
    }
    var entry = ctx.busyEntry;
    if (entry) {
      var left = entry.started + HOLD_MS - Date.now();
      if (left > 0) {
        setTimeout(function () {
          release(entry);
        }, left);
      } else {
        release(entry);
      }
    }
  });
})();
