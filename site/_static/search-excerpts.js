// Search excerpts from the site's own copy of each page's text, on the search page (site/conf.py).
//
// Sphinx's search shows, under each page it finds, a few lines of that page around the word; it
// fetches the page to cut them out. From file:// a browser refuses that fetch ("Failed to fetch"),
// and over http the lines held raw TeX (\(L_t = -\log \h...) and the theme's menus ("System
// Settings Light Dark"). The build writes each page's text, maths as text and menus left out, to
// _search/<page>.js (site/rnn_site.py, search_text), which a script tag loads from http:// and
// file:// alike; the page fetches made by the search are answered from it.
(function () {
  "use strict";
  var texts = {};
  var waiting = {};
  var root = new URL(document.documentElement.dataset.content_root || "./", window.location.href).href;
  var suffix = (window.DOCUMENTATION_OPTIONS && DOCUMENTATION_OPTIONS.FILE_SUFFIX) || ".html";

  // called by each _search/<page>.js
  window.rnnSearchText = function (page, text) {
    texts[page] = text;
    (waiting[page] || []).forEach(function (done) { done(); });
    delete waiting[page];
  };

  function load(page) {
    return new Promise(function (resolve) {
      if (page in texts) return resolve(texts[page]);
      var first = !(page in waiting);
      (waiting[page] = waiting[page] || []).push(function () { resolve(texts[page]); });
      if (!first) return;
      var script = document.createElement("script");
      script.src = root + "_search/" + page.split("/").map(encodeURIComponent).join("/") + ".js";
      script.onerror = function () { texts[page] = ""; window.rnnSearchText(page, ""); };
      document.head.appendChild(script);
    });
  }

  var pageFetch = window.fetch.bind(window);
  window.fetch = function (resource, options) {
    var url = new URL(typeof resource === "string" ? resource : resource.url, window.location.href);
    url.hash = "";
    url.search = "";
    var href = url.href;
    if (href.indexOf(root) !== 0 || href.slice(-suffix.length) !== suffix) {
      return pageFetch(resource, options);
    }
    var page = decodeURIComponent(href.slice(root.length, href.length - suffix.length));
    return load(page).then(function (text) {
      var body = text ? '<div role="main">' + text + "</div>" : "";
      return new Response(body, { headers: { "Content-Type": "text/html; charset=utf-8" } });
    });
  };
})();
