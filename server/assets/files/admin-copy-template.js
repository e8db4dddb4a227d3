// An app's page (server/admin/screens/app_detail.tsx): "Copy template" copies the JSON template.
"use strict";
(function () {
  const button = document.getElementById("copy-template");
  const template = document.getElementById("template");
  if (!button || !template) return;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(template.textContent).then(function () {
      button.textContent = "Copied";
    });
  });
})();
