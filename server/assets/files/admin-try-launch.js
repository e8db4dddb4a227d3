// Try launch (server/admin/screens/try_launch_screens.tsx): keeps the payload's JSON view live
// as the form changes, opens the tab of a Launch while the click still counts (no popup block),
// and submits the signed form the server answered with into that tab or the iframe.
"use strict";
(function () {
  const form = document.getElementById("try-launch-form");
  const view = document.getElementById("try-json");
  if (form && view) {
    let timer = 0;
    const refresh = function () {
      const body = new URLSearchParams(new FormData(form));
      body.set("action", "preview");
      // getAttribute: the buttons named "action" shadow form.action.
      fetch(form.getAttribute("action"), {
        method: "POST",
        headers: { Accept: "application/json" },
        body: body,
        credentials: "same-origin",
      }).then(function (res) {
        return res.ok ? res.json() : null;
      }).then(function (answer) {
        if (answer) view.textContent = JSON.stringify(answer.payload, null, 2);
      }).catch(function () {});
    };
    const later = function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, 250);
    };
    form.addEventListener("input", later);
    form.addEventListener("change", later);
    form.addEventListener("submit", function (event) {
      const button = event.submitter;
      const openIn = form.elements.namedItem("openIn");
      if (button && button.value === "launch" && openIn && openIn.value === "tab") {
        globalThis.open("about:blank", "try-launch-tab");
      }
    });
  }
  const go = document.getElementById("try-launch-go");
  if (go && go.dataset.auto === "on") go.submit();
})();
