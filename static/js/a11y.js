/* The table for people who cannot see it change, and for those who look away.
 *
 * - Announces, through the page's live regions (#announce, #announce-urgent in base.html,
 *   never swapped), what a push changed: whose turn it is, a reaction on offer, and what
 *   the newest command did, in the sentences the server wrote for this reader
 *   (#announce-events, pushed with each new command; nothing is read off the log).
 * - On a player's page, "your turn" and "reaction available" also change the document
 *   title, mark <body>, vibrate where the browser allows, and beep if the player turned
 *   the sound on (off by default, remembered in this browser).
 * - On the GM console, keyboard shortcuts (listed in the "?" overlay).
 *
 * Everything here reads the page the server rendered; the page works without it.
 * Loaded with the CSP nonce; no inline handlers, no eval.
 */
(function () {
  "use strict";

  var body = document.body;
  var isGM = body.classList.contains("screen-gm");
  var isPlayer = body.classList.contains("screen-player");
  // The server writes "Combat is over · " before the title once combat has ended; a page
  // left open when it ends gets it from the pushed status (issue 12 item 5).
  var OVER = "Combat is over · ";
  var baseTitle = document.title.replace(OVER, "");
  function plainTitle() {
    var status = document.getElementById("status");
    return (status && status.dataset.phase === "ended" ? OVER : "") + baseTitle;
  }
  var last = null;
  var audio = null;
  var SOUND_KEY = "vtt-sound";

  // The words of an element as a screen reader has them: without its aria-hidden parts.
  function text(el) {
    if (!el) return "";
    var copy = el.cloneNode(true);
    copy.querySelectorAll("[aria-hidden='true']").forEach(function (h) {
      h.remove();
    });
    return copy.textContent.replace(/\s+/g, " ").trim();
  }

  // --- live regions ------------------------------------------------------------------
  function say(message, urgent) {
    if (!message) return;
    var region = document.getElementById(urgent ? "announce-urgent" : "announce");
    if (!region) return;
    // Emptied first, so that the same sentence twice is read twice.
    region.textContent = "";
    window.setTimeout(function () {
      region.textContent = message;
    }, 60);
  }

  // --- what the page shows now ---------------------------------------------------------
  function snapshot() {
    var status = document.getElementById("status");
    var sync = document.getElementById("sync");
    var events = document.getElementById("announce-events");
    var mine = [];
    document.querySelectorAll("#panels .combatant.is-turn").forEach(function (panel) {
      mine.push(text(panel.querySelector("h2")));
    });
    var windows = {};
    document.querySelectorAll("#reactions [data-testid^='window-']").forEach(function (w) {
      windows[w.getAttribute("data-testid")] = {
        text: text(w.querySelector("p")),
        mine: !!w.querySelector("[data-testid^='decline-']"),
      };
    });
    return {
      // #sync says the version in every frame (a pushed status has none: it is sent only
      // when what it shows changed).
      version: sync ? sync.getAttribute("data-version") : "",
      round: text(status && status.querySelector("[data-testid='round']")),
      turn: text(status && status.querySelector("[data-testid='turn']")),
      mine: mine,
      windows: windows,
      // The command whose sentences #announce-events holds (0: none for this reader).
      eventsSeq: events ? Number(events.getAttribute("data-seq")) || 0 : 0,
    };
  }

  function newEvents(before, now) {
    // The server wrote these for this reader: a hidden combatant is not in them.
    if (!now.eventsSeq || now.eventsSeq === before.eventsSeq) return [];
    var out = [];
    document.querySelectorAll("#announce-events .announce-line").forEach(function (p) {
      out.push(text(p));
    });
    return out;
  }

  function myReactions(snap) {
    var out = [];
    Object.keys(snap.windows).forEach(function (id) {
      if (snap.windows[id].mine) out.push(snap.windows[id].text);
    });
    return out;
  }

  // --- alerts for a player ----------------------------------------------------------------
  function soundOn() {
    try {
      return window.localStorage.getItem(SOUND_KEY) === "on";
    } catch (e) {
      return false;
    }
  }

  function beep() {
    if (!soundOn()) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      [0, 0.18].forEach(function (at, i) {
        var osc = audio.createOscillator();
        var gain = audio.createGain();
        osc.frequency.value = i ? 880 : 660;
        gain.gain.setValueAtTime(0.15, audio.currentTime + at);
        gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + at + 0.15);
        osc.connect(gain).connect(audio.destination);
        osc.start(audio.currentTime + at);
        osc.stop(audio.currentTime + at + 0.16);
      });
    } catch (e) {
      /* no sound on this browser: the title and the highlight remain */
    }
  }

  function buzz() {
    // Browsers refuse (and complain) until the person has touched the page at least once.
    var touched = !navigator.userActivation || navigator.userActivation.hasBeenActive;
    if (navigator.vibrate && touched) {
      try {
        navigator.vibrate([160, 80, 160]);
      } catch (e) {
        /* not allowed until the page has been touched */
      }
    }
  }

  // --- a link that stopped working ---------------------------------------------------------
  // The server says so in the flash region, then closes the socket: from then on the page
  // no longer claims it is anyone's turn (title, body marks, the turn alert).
  var dead = false;
  function linkDied() {
    if (dead || !document.querySelector("#flash [data-testid='link-gone']")) return;
    dead = true;
    body.classList.remove("is-my-turn", "has-reaction");
    body.classList.add("link-gone");
    document.title = "Link no longer works · " + baseTitle;
    var alert = document.getElementById("turn-alert");
    if (alert) alert.replaceChildren();
  }
  var flash = document.getElementById("flash");
  if (flash && flash.parentNode) {
    new MutationObserver(linkDied).observe(flash.parentNode, { childList: true, subtree: true });
  }

  function mark(snap) {
    if (dead) return;
    var reacting = myReactions(snap).length > 0;
    var myTurn = snap.mine.length > 0;
    body.classList.toggle("is-my-turn", myTurn);
    body.classList.toggle("has-reaction", reacting);
    if (reacting) {
      document.title = "⚡ Reaction available · " + baseTitle;
    } else if (myTurn) {
      document.title = "▶ Your turn: " + snap.mine.join(", ") + " · " + baseTitle;
    } else {
      document.title = plainTitle();
    }
  }

  // --- comparing what changed -------------------------------------------------------------
  function changed() {
    var now = snapshot();
    var before = last;
    last = now;
    if (isPlayer) mark(now);
    else document.title = plainTitle();
    if (!before || now.version === before.version) return;

    var polite = [];
    var urgent = [];
    var mineBefore = before.mine.join(",");
    if (isPlayer && now.mine.length && now.mine.join(",") !== mineBefore) {
      urgent.push("Your turn: " + now.mine.join(", ") + ".");
    } else if (now.turn !== before.turn || now.round !== before.round) {
      if (now.round && now.round !== before.round) polite.push(now.round + ".");
      if (now.turn) polite.push(now.turn + ".");
    }
    var fresh = Object.keys(now.windows).filter(function (id) {
      return !before.windows[id];
    });
    fresh.forEach(function (id) {
      var w = now.windows[id];
      if (isPlayer && w.mine) urgent.push("Reaction available: " + w.text);
      else polite.push(w.text);
    });
    polite = polite.concat(newEvents(before, now));
    if (urgent.length) {
      say(urgent.concat(polite).join(" "), true);
      beep();
      buzz();
    } else if (polite.length) {
      say(polite.join(" "), false);
    }
  }

  var pending = 0;
  function soon() {
    if (pending) return;
    pending = window.setTimeout(function () {
      pending = 0;
      changed();
    }, 80);
  }

  var table = document.getElementById("table");
  if (table) {
    last = snapshot();
    if (isPlayer) mark(last);
    new MutationObserver(soon).observe(table, {
      childList: true,
      subtree: true,
      characterData: true,
      attributes: true,
      attributeFilter: ["data-version", "class"],
    });
  }

  // --- notices clear themselves (issue 12 item 3) ---------------------------------------------
  // A seat's notice (#notice) and an accepted command's flash fade after NOTICE_MS and are
  // gone after the fade; the next one replaces them. A notice that has gone stays gone when
  // a push or a reload brings the same one back (remembered for this page in this tab).
  // Gone, but not out of the page at once: taken out by a timer, it moved everything under
  // it up by its height, under a finger on its way to a button (a tap meant for End Turn
  // landed on what came up in its place). Once faded, a notice this page showed keeps its
  // place, unseen ("held"), until the person next sends something: their tap has landed
  // by then, and what they sent changes the page anyway (docs/decisions.md).
  var NOTICE_MS = 8000;
  var FADE_MS = 600;
  var GONE_KEY = "vtt-notice-gone:" + window.location.pathname;
  var firstSeen = {};
  var held = {}; // key -> "held" (faded, its place kept) or "gone" (out of the page)
  var flashes = 0;

  function goneSeq() {
    try {
      return Number(window.sessionStorage.getItem(GONE_KEY) || 0);
    } catch (e) {
      return 0;
    }
  }

  function age(key) {
    if (!(key in firstSeen)) firstSeen[key] = Date.now();
    return Date.now() - firstSeen[key];
  }

  function settle(el, key, shown, gone) {
    if (shown >= NOTICE_MS + FADE_MS) {
      if (held[key] !== "gone" && key in firstSeen) {
        held[key] = "held"; // shown on this page: its place is kept, unseen
        if (!el.classList.contains("is-gone")) el.classList.add("is-fading", "is-gone");
        if (el.getAttribute("aria-hidden") !== "true") el.setAttribute("aria-hidden", "true");
      } else if (!el.hidden) {
        el.hidden = true; // let go, or gone before this page showed it (a reload)
      }
      if (gone) gone();
    } else if (shown >= NOTICE_MS) {
      if (!el.classList.contains("is-fading")) el.classList.add("is-fading");
    }
  }

  function tidy() {
    document.querySelectorAll(".seat-notice[data-seq]").forEach(function (el) {
      var seq = Number(el.dataset.seq);
      var shown = seq <= goneSeq() ? Infinity : age("n" + seq);
      settle(el, "n" + seq, shown, function () {
        try {
          if (seq > goneSeq()) window.sessionStorage.setItem(GONE_KEY, String(seq));
        } catch (e) {
          /* private mode: it fades again after a reload */
        }
      });
    });
    document.querySelectorAll("#flash .flash.ok, #flash .flash.success").forEach(function (el) {
      if (!el.dataset.noticeKey) el.dataset.noticeKey = "f" + ++flashes;
      settle(el, el.dataset.noticeKey, age(el.dataset.noticeKey), null);
    });
  }

  // The person sends something (their own tap, a shortcut, a drag on the map): the notices
  // held in place leave the page now.
  document.addEventListener("htmx:before:request", function (evt) {
    var ctx = evt.detail && evt.detail.ctx;
    if (!ctx || !ctx.request || String(ctx.request.method).toUpperCase() !== "POST") {
      return;
    }
    var any = false;
    Object.keys(held).forEach(function (key) {
      if (held[key] === "held") {
        held[key] = "gone";
        any = true;
      }
    });
    if (any) tidy();
  });

  // Before the next paint after a push (a push re-renders the notice as the server has it),
  // and on a timer for the fading itself.
  var tidyWatch = new MutationObserver(tidy);
  ["table", "flash"].forEach(function (id) {
    var el = document.getElementById(id);
    if (el) {
      tidyWatch.observe(el, {
        childList: true,
        subtree: true,
        attributes: true,
        attributeFilter: ["data-seq", "class", "hidden"],
      });
    }
  });
  window.setInterval(tidy, 250);
  tidy();

  // --- the sound switch (players) -----------------------------------------------------------
  var toggle = document.getElementById("sound-toggle");
  if (toggle) {
    var show = function () {
      var on = soundOn();
      toggle.setAttribute("aria-pressed", on ? "true" : "false");
      toggle.classList.toggle("is-on", on);
    };
    toggle.removeAttribute("data-js-only");
    show();
    toggle.addEventListener("click", function () {
      try {
        window.localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
      } catch (e) {
        /* private mode: the switch lasts as long as the page */
      }
      show();
      beep(); // a sample, and browsers allow audio only after such a click
    });
  }

  // --- the GM's keyboard shortcuts ----------------------------------------------------------
  if (!isGM) return;

  // --- the initiative list: the number opens a field (Enter sets it, Esc puts it back) ------
  // `toggle` does not bubble: listened for while it passes down (capture).
  document.addEventListener(
    "toggle",
    function (e) {
      var d = e.target;
      if (!(d instanceof HTMLDetailsElement) || !d.classList.contains("init-edit")) return;
      if (d.open) {
        var field = d.querySelector("input[type='number']");
        if (field) {
          field.focus();
          field.select();
        }
      }
    },
    true
  );
  document.addEventListener("submit", function (e) {
    var d = e.target.closest && e.target.closest("details.init-edit");
    if (d) d.open = false; // the answer's push shows the new number
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") return;
    var d = e.target.closest && e.target.closest("details.init-edit[open]");
    if (!d) return;
    d.open = false;
    var s = d.querySelector("summary");
    if (s) s.focus();
    e.preventDefault();
  });

  function typing(el) {
    if (!el) return false;
    var tag = el.tagName;
    return (
      tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable === true
    );
  }

  function press(testid) {
    var b = document.querySelector("#controls [data-testid='" + testid + "']");
    if (b && !b.disabled) {
      b.click();
      return true;
    }
    return false;
  }

  function cards() {
    return Array.prototype.slice.call(document.querySelectorAll("#combatants > .combatant"));
  }

  function focusCard(card) {
    if (!card) return;
    card.focus();
    card.scrollIntoView({ block: "nearest" });
    say(text(card.querySelector("h3")) + ", " + text(card.querySelector(".res-text")), false);
  }

  function step(delta) {
    var all = cards();
    if (!all.length) return;
    var at = all.indexOf(document.activeElement && document.activeElement.closest(".combatant"));
    var next = at < 0 ? (delta > 0 ? 0 : all.length - 1) : (at + delta + all.length) % all.length;
    focusCard(all[next]);
  }

  var help = document.getElementById("shortcuts");

  // The acting combatant's first action answers A: said on that button for assistive
  // technology. Set here rather than drawn by the server, so that the first action changing
  // does not make the server send two action forms again.
  var FIRST = "#turn .actions-now button[value='act']:not([disabled])";
  function markFirst() {
    var first = document.querySelector(FIRST);
    document.querySelectorAll("#turn [aria-keyshortcuts='A']").forEach(function (b) {
      if (b !== first) b.removeAttribute("aria-keyshortcuts");
    });
    if (first) first.setAttribute("aria-keyshortcuts", "A");
  }
  if (document.getElementById("turn")) {
    markFirst();
    document.body.addEventListener("htmx:afterSettle", markFirst);
    document.body.addEventListener("htmx:oobAfterSwap", markFirst);
  }

  document.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    if (typing(e.target)) return;
    var key = e.key;
    var done = true;
    if (key === "?") {
      if (help && help.togglePopover) help.togglePopover();
    } else if (key === "n" || key === "N") {
      done = press("advance-turn") || press("begin-round");
    } else if (key === "u" || key === "U") {
      done = press("undo");
    } else if (key === "i" || key === "I") {
      done = press("roll-initiative");
    } else if (key === "j" || key === "J") {
      step(1);
    } else if (key === "k" || key === "K") {
      step(-1);
    } else if (key === "t" || key === "T") {
      // The turn is marked on the row's line (gm_row_line.html).
      focusCard(document.querySelector("#combatants > .combatant:has(> .gm-card > .gm-row.is-turn)"));
    } else if (key === "g" || key === "G") {
      // The focused row's combatant becomes the acting combatant's target (its Target button).
      var row = e.target.closest && e.target.closest("#combatants > .combatant");
      var aim = row && row.querySelector("[data-pick-target]");
      done = !!aim;
      if (aim) aim.click();
    } else if (key === "a" || key === "A") {
      // The acting combatant's first action: the ruleset's most used (its attack).
      var first = document.querySelector(FIRST);
      done = !!first;
      if (first) first.click();
    } else if (/^[1-9]$/.test(key)) {
      focusCard(cards()[Number(key) - 1]);
    } else {
      done = false;
    }
    if (done) e.preventDefault();
  });
})();
