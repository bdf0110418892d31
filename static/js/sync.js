/* Keeps a live page whole. Loaded after htmx and its ws extension, without defer.
 *
 * 1. Gaps. Every pushed change carries, on its #sync form, the version it shows
 *    (data-version) and the version it follows (data-prev-version). A push that
 *    follows a newer version than the page shows means the page missed one (a
 *    message dropped on the way): that push is not applied, and the page asks for
 *    what it missed ({"type": "resync", "version": the version it shows}). The server
 *    answers with the frames it missed, in order, when its short history still holds
 *    them, else with the whole view. A push of a version the page already shows is not
 *    applied either. A whole view (sent on connect, and on a resync the history cannot
 *    answer) has no data-prev-version and is taken as it is.
 * 2. Reconnects. htmx doubles its wait after each failed attempt, up to a minute
 *    by default; a page here tries again at least every half second (plus or
 *    minus htmx's 30 % jitter), so it is back within about a second of a
 *    restarted server. A page's socket names the version the page shows (`?v=` on its
 *    address, moved on before each attempt): the server sends the frames it missed since
 *    from its short history, or the whole view when the history cannot cover them (a
 *    restarted server, a long absence). A failed attempt
 *    on a server that is down costs a refused TCP connection. A site's own
 *    htmx-config "ws" settings still win. A socket the server closed because the page
 *    had gone silent (4408) is reconnected too.
 * 3. A crowded link (4409: the link is open on as many screens as it may be). The page
 *    says why in the server's words (static/js/connection.js) and tries again about once
 *    a minute, not twice a second: a screen closed elsewhere lets it back in, and a page
 *    left open on a crowded link costs the server one refused socket a minute.
 *
 * No inline script and no eval: the Content-Security-Policy allows neither.
 */
(function () {
  "use strict";
  if (!window.htmx) {
    return;
  }
  htmx.config.ws = Object.assign(
    {
      reconnectDelay: 250,
      reconnectMaxDelay: 500,
      // htmx's own list; 4408: the server closed a socket it heard nothing from; 4409:
      // the link had no room for this page (tried again slowly, below).
      reconnectCodes: [1001, 1005, 1006, 1011, 1012, 1013, 1014, 4408, 4409],
    },
    htmx.config.ws || {}
  );

  var CROWDED = 4409;
  var CROWDED_RETRY_MS = 60000; // htmx adds or takes up to 30 %

  // htmx reads the connection's own copy of these when it schedules the next attempt,
  // just after this event: slow for a crowded link, as configured for anything else.
  document.addEventListener("htmx:ws:close", function (evt) {
    var connection = evt.detail && evt.detail.connection;
    var config = connection && connection.config;
    if (!config) {
      return;
    }
    if (!connection.ownDelays) {
      connection.ownDelays = [config.reconnectDelay, config.reconnectMaxDelay];
    }
    // The socket's address names the version the page was loaded at (`?v=`); the next
    // attempt names the one it shows now, so the server sends only what it missed since.
    var shown = versionOf("data-version");
    if (typeof connection.url === "string" && shown !== null) {
      connection.url = connection.url.replace(/([?&]v=)\d+/, "$1" + shown);
    }
    if (evt.detail.code === CROWDED) {
      config.reconnectDelay = CROWDED_RETRY_MS;
      config.reconnectMaxDelay = CROWDED_RETRY_MS;
    } else {
      config.reconnectDelay = connection.ownDelays[0];
      config.reconnectMaxDelay = connection.ownDelays[1];
    }
  });

  function versionOf(name) {
    var sync = document.getElementById("sync");
    var value = sync && sync.getAttribute(name);
    if (value === null || value === "" || value === undefined) {
      return null;
    }
    var n = Number(value);
    return Number.isFinite(n) ? n : null;
  }

  // The #sync form of a message, and a number attribute of it (null if absent).
  var SYNC = /<form id="sync"[^>]*>/;
  function attributeOf(tag, name) {
    var found = tag.match(new RegExp("\\s" + name + '="(\\d+)"'));
    return found ? Number(found[1]) : null;
  }

  // htmx handles one socket message at a time (in order), so "before" pairs with "after".
  var shownBefore = null;
  var askedAt = 0;

  function ask(evt, shown) {
    // Ask once, and again only if nothing answered within 2 s.
    var now = Date.now();
    if (askedAt && now - askedAt < 2000) {
      return;
    }
    var connection = evt.detail && evt.detail.connection;
    var socket = connection && connection.socket;
    if (socket && socket.readyState === WebSocket.OPEN) {
      askedAt = now;
      socket.send(JSON.stringify({ type: "resync", version: shown }));
    }
  }

  document.addEventListener("htmx:ws:before:message:incoming", function (evt) {
    shownBefore = versionOf("data-version");
    var message = evt.detail && evt.detail.message;
    var text = message && typeof message.data === "string" ? message.data : "";
    var tag = text.match(SYNC);
    if (!tag || shownBefore === null) {
      return; // not a change of version (a presence update, a notice, a chat line)
    }
    var version = attributeOf(tag[0], "data-version");
    var follows = attributeOf(tag[0], "data-prev-version");
    if (follows === null || version === null) {
      return; // a whole view: taken as it is
    }
    if (version > shownBefore && follows <= shownBefore) {
      return; // the push covers everything since what the page shows
    }
    // Shown already, or a gap before it: not applied; a gap is asked for.
    evt.detail.cancelled = true;
    evt.preventDefault();
    if (version > shownBefore) {
      ask(evt, shownBefore);
    }
  });

  document.addEventListener("htmx:ws:after:message:incoming", function () {
    var follows = versionOf("data-prev-version");
    var version = versionOf("data-version");
    if (follows === null || (version !== null && version !== shownBefore)) {
      askedAt = 0; // a whole view, or a push applied in step: nothing is missing any more
    }
  });
})();
