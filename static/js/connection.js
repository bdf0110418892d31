/* Says when a live page has lost its connection, and when it is back. Loaded after htmx.
 *
 * The #connection line (templates/base.html) is hidden while all is well. When the
 * page's socket closes, or the browser says it is offline, it says "Reconnecting..."
 * at once and the page is marked stale (body.connection-lost dims what it shows: "Your
 * turn" may no longer be true). When the page is whole again (on every connect the server
 * sends what it missed and then its #sync form standing alone, or the whole view;
 * static/js/sync.js asks for it on a gap) it says "Back" and hides itself a few seconds
 * later. A socket the server closed for good (a revoked link, a
 * page that misbehaved) says so instead of promising a reconnect. A socket turned away
 * because its link is open on too many screens (4409) shows the server's reason, which
 * says the page tries again (static/js/sync.js does, about once a minute).
 *
 * Coming back online with the socket still open (it may never have noticed) asks the
 * server for the whole view, so the page catches up and says "Back" either way.
 */
(function () {
  "use strict";
  var line = document.getElementById("connection");
  if (!line || !window.htmx || !document.querySelector("[hx-ws\\:connect]")) {
    return;
  }
  var FINAL = [4401, 4403, 4413, 4429]; // combat/consumers.py: closed for good
  var CROWDED = 4409; // combat/consumers.py: no room on this link for now
  var CROWDED_WORDS =
    "This link is open on too many screens: close one. This page tries again in a minute.";
  var BACK_SHOWN_MS = 4000;
  var lost = false;
  var over = false;
  var hideTimer = null;
  var connection = null;

  function say(state, text) {
    clearTimeout(hideTimer);
    line.setAttribute("data-state", state);
    line.textContent = text;
    line.hidden = false;
  }

  function lose() {
    if (over) {
      return;
    }
    lost = true;
    document.body.classList.add("connection-lost");
    say("lost", "Reconnecting\u2026 what this page shows may be out of date.");
  }

  function back() {
    lost = false;
    document.body.classList.remove("connection-lost");
    say("back", "Back: this page is up to date again.");
    hideTimer = setTimeout(function () {
      line.hidden = true;
      line.removeAttribute("data-state");
    }, BACK_SHOWN_MS);
  }

  document.addEventListener("htmx:ws:after:connection", function (evt) {
    connection = evt.detail && evt.detail.connection;
    var socket = connection && connection.socket;
    if (socket) {
      // htmx's close event has the code but not the reason the server gave.
      socket.addEventListener("close", function (closed) {
        if (closed.code === CROWDED && !over) {
          lost = true;
          document.body.classList.add("connection-lost");
          say("crowded", closed.reason || CROWDED_WORDS);
        }
      });
    }
  });

  document.addEventListener("htmx:ws:close", function (evt) {
    var detail = evt.detail || {};
    if (detail.reason === "removed") {
      return; // the page itself took the socket away
    }
    if (detail.code === CROWDED) {
      return; // said by the socket's own close listener, with the server's reason
    }
    if (FINAL.indexOf(detail.code) !== -1) {
      over = true;
      lost = true;
      document.body.classList.add("connection-lost");
      say("closed", "Disconnected: this page no longer updates. Reload it to connect again.");
      return;
    }
    lose();
  });

  window.addEventListener("offline", lose);

  window.addEventListener("online", function () {
    var socket = connection && connection.socket;
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ type: "resync" }));
    }
  });

  document.addEventListener("htmx:ws:after:message:incoming", function (evt) {
    if (!lost || over || navigator.onLine === false) {
      return;
    }
    var message = evt.detail && evt.detail.message;
    var data = message && typeof message.data === "string" ? message.data : "";
    // #sync with no data-prev-version (a whole view, or the last of a reconnect's catch-up):
    // the page is as it is now.
    if (data.indexOf('id="sync"') !== -1 && data.indexOf("data-prev-version") === -1) {
      back();
    }
  });
})();
