"use strict";
(function () {
  const server = document.body.dataset.server;
  const auth = document.getElementById("auth");
  function creds() {
    return { id: auth.elements.client_id.value, secret: auth.elements.client_secret.value };
  }
  function show(out, res, text) {
    const head = res.status + " " + res.statusText + "\n";
    try {
      text = JSON.stringify(JSON.parse(text), null, 2);
    } catch { /* not JSON */ }
    out.textContent = head + text;
  }
  auth.addEventListener("submit", function (ev) {
    ev.preventDefault();
    const c = creds();
    const out = auth.querySelector("output");
    fetch(server + "/oauth2/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: c.id,
        client_secret: c.secret,
      }),
    }).then(function (res) {
      return res.text().then(function (text) {
        if (res.ok) auth.elements.token.value = JSON.parse(text).access_token;
        show(out, res, text);
      });
    }, function (err) {
      out.textContent = String(err);
    });
  });
  document.querySelectorAll("form.try").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      let path = form.dataset.path;
      const query = new URLSearchParams();
      const headers = {};
      form.querySelectorAll("input[data-in]").forEach(function (input) {
        if (input.dataset.in === "path") {
          path = path.replace("{" + input.name + "}", encodeURIComponent(input.value));
        } else if (input.value === "") {
          return;
        } else if (input.dataset.in === "header") {
          headers[input.name] = input.value;
        } else query.set(input.name, input.value);
      });
      const init = { method: form.dataset.method, headers: headers };
      const bodyType = form.dataset.bodyType;
      if (bodyType) {
        headers["Content-Type"] = bodyType;
        init.body = form.elements.__body.value;
      }
      if (form.dataset.auth === "bearer") {
        headers.Authorization = "Bearer " + auth.elements.token.value;
      } else {
        const c = creds();
        const body = new URLSearchParams(init.body || "");
        if (!body.has("client_id")) body.set("client_id", c.id);
        if (!body.has("client_secret")) body.set("client_secret", c.secret);
        init.body = body.toString();
      }
      const out = form.querySelector("output");
      const qs = query.toString();
      fetch(server + path + (qs ? "?" + qs : ""), init).then(function (res) {
        return res.text().then(function (text) {
          show(out, res, text);
        });
      }, function (err) {
        out.textContent = String(err);
      });
    });
  });
})();
