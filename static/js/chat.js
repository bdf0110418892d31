/* Table talk (templates/combat/components/chat.html). Loaded on every page (base.html).
 *
 * - Enter sends (the form's own submit); Up in an empty box brings back the last message
 *   sent, Down clears it again.
 * - Once the server says "Sent." (data-chat-sent in #chat-status) the box is emptied.
 * - A message that reached the page twice (a push crossing the whole view sent on
 *   reconnecting) is kept once.
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
    new MutationObserver(dedupe).observe(table, { childList: true, subtree: true });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
