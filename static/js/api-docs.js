// The API reference page (/api/docs/): Swagger UI over the app's own OpenAPI description.
// Settings come from data attributes, so the page needs no inline script under the CSP.
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  var csrf = root.dataset.csrfToken;
  window.SwaggerUIBundle({
    url: root.dataset.openapiUrl,
    domNode: root,
    deepLinking: true,
    layout: "BaseLayout",
    presets: [window.SwaggerUIBundle.presets.apis],
    // "Try it out" from a logged-in GM's browser: send the CSRF token as the pages do.
    requestInterceptor: function (request) {
      if (csrf) {
        request.headers["X-CSRFToken"] = csrf;
      }
      return request;
    },
  });
})();
