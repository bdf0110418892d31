/* Table talk (templates/combat/components/chat.html). Loaded on every page (base.html).
 *
 * - Enter sends (the form's own submit); Up in an empty box brings back the last message
 *   sent, Down clears it again.
 * - Once the server says "Sent." (data-chat-sent in #chat-status) the box is emptied.
 * - A message that reached the page twice (a push crossing the whole view sent on
 *   reconnecting) is kept once.
 * - The GM's "To" list follows the seats pushed in #seats (added, renamed, revoked),
 *   keeping what the GM has chosen.
 * No inline script and no eval: the Content-Security-Policy allows neither.
 */
(function () {
  "use strict";
  var last = "";
  var pending = "";

  function box() {
    return document.getElementById("chat-text");
  }

  document.addEventListener("submit", function (e) {
    if (e.target && e.target.id === "chat-form" && box()) {
      pending = box().value;
      var status = document.getElementById("chat-status");
      if (status) {
        status.textContent = ""; // the answer to this message replaces the last one's
      }
    }
  }, true);

  document.addEventListener("keydown", function (e) {
    var input = box();
    if (!input || e.target !== input || e.altKey || e.ctrlKey || e.metaKey) {
      return;
    }
    if (e.key === "ArrowUp" && input.value === "" && last) {
      e.preventDefault();
      input.value = last;
      input.setSelectionRange(last.length, last.length);
    } else if (e.key === "ArrowDown" && input.value === last) {
      e.preventDefault();
      input.value = "";
    }
  });

  function watchStatus(status) {
    new MutationObserver(function () {
      if (status.querySelector("[data-chat-sent]")) {
        last = pending || last;
        var input = box();
        if (input && input.value === pending) {
          input.value = "";
        }
        pending = "";
      }
    }).observe(status, { childList: true, subtree: true });
  }

  // A message that reached the page twice (a push crossing the whole view sent on
  // reconnecting) is kept once: the copy added later goes.
  function dedupe(records) {
    var scroller = document.getElementById("chat-scroll");
    var newest = false;
    records.forEach(function (r) {
      r.addedNodes.forEach(function (node) {
        if (node.nodeType !== 1) {
          return;
        }
        var lines = node.matches(".chat-line") ? [node] : node.querySelectorAll(".chat-line");
        Array.prototype.forEach.call(lines, function (line) {
          if (line.id && document.querySelectorAll("#" + CSS.escape(line.id)).length > 1) {
            line.remove();
          } else if (!line.nextElementSibling) {
            newest = true;
          }
        });
      });
    });
    // A new message at the end is brought into view if the reader was at the end.
    if (newest && scroller && scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 160) {
      scroller.scrollTop = scroller.scrollHeight;
    }
  }

  // Folding: the heading's button hides the region's body; while folded, the heading
  // counts the messages that came since (ids above the newest seen), and opening clears
  // the count. The fold outlives a region pushed anew (it is reapplied).
  var folded = false;
  var seen = 0;

  function newestId() {
    var most = 0;
    document.querySelectorAll("#chat-messages .chat-line").forEach(function (line) {
      var n = parseInt((line.id || "").replace("chat-msg-", ""), 10);
      if (n > most) {
        most = n;
      }
    });
    return most;
  }

  function showFold() {
    var button = document.getElementById("chat-fold");
    var body = document.getElementById("chat-body");
    if (!button || !body) {
      return;
    }
    if (button.getAttribute("aria-expanded") !== String(!folded)) {
      button.setAttribute("aria-expanded", String(!folded));
    }
    if (body.hidden !== folded) {
      body.hidden = folded;
    }
    var badge = button.querySelector(".chat-unread");
    if (!badge) {
      return;
    }
    var count = 0;
    if (folded) {
      document.querySelectorAll("#chat-messages .chat-line:not(.is-deleted)").forEach(function (line) {
        var n = parseInt((line.id || "").replace("chat-msg-", ""), 10);
        if (n > seen) {
          count += 1;
        }
      });
    }
    var text = count ? " (" + count + " new)" : "";
    if (badge.textContent !== text) {
      badge.textContent = text;
    }
    if (badge.hidden !== !count) {
      badge.hidden = !count;
    }
  }

  document.addEventListener("click", function (e) {
    var button = e.target && e.target.closest ? e.target.closest("#chat-fold") : null;
    if (!button) {
      return;
    }
    folded = !folded;
    seen = newestId();
    showFold();
    if (!folded) {
      var scroller = document.getElementById("chat-scroll");
      if (scroller) {
        scroller.scrollTop = scroller.scrollHeight;
      }
    }
  });

  // The GM's "To" list: one option per open seat, as the pushed list of links says
  // (data-chat-seat on each). Options are added, renamed and removed in place, so what
  // the GM has selected stays selected; nothing is touched when nothing changed (this
  // runs on every change to the page).
  function syncRecipients() {
    var select = document.getElementById("chat-to");
    var list = document.getElementById("seats");
    if (!select || !select.multiple || !list) {
      return;
    }
    var seats = list.querySelectorAll("[data-chat-seat]");
    var wanted = {};
    Array.prototype.forEach.call(seats, function (li) {
      wanted[li.getAttribute("data-chat-seat")] = li.getAttribute("data-chat-name") || "";
    });
    Array.prototype.slice.call(select.options).forEach(function (option) {
      if (/^\d+$/.test(option.value) && !(option.value in wanted)) {
        option.remove();
      }
    });
    Array.prototype.forEach.call(seats, function (li) {
      var id = li.getAttribute("data-chat-seat");
      var name = wanted[id];
      var option = select.querySelector('option[value="' + id + '"]');
      if (!option) {
        option = document.createElement("option");
        option.value = id;
        select.appendChild(option);
      }
      if (option.textContent !== name) {
        option.textContent = name;
      }
    });
    var size = String(seats.length + 2);
    if (select.getAttribute("size") !== size) {
      select.setAttribute("size", size);
    }
  }

  function start() {
    var status = document.getElementById("chat-status");
    if (status) {
      watchStatus(status);
    }
    var scroller = document.getElementById("chat-scroll");
    if (scroller) {
      scroller.scrollTop = scroller.scrollHeight; // the latest messages first in view
    }
    var table = document.getElementById("table") || document.body;
    syncRecipients();
    new MutationObserver(function (records) {
      dedupe(records);
      showFold();
      syncRecipients();
    }).observe(table, { childList: true, subtree: true });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
