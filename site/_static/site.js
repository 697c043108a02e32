// The series' own scripts, on every page (site/conf.py).
(function () {
  "use strict";

  function ready(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }

  // 1. The sidebar buttons open the sidebars on every screen.
  // pydata-sphinx-theme 0.20 listens only to the first button of each kind on the page, which in
  // the Jupyter Book theme is a hidden one in the page's header: the buttons a reader sees below
  // 992 px ("Toggle primary sidebar", "Contents") only showed their tooltip
  // (pydata-sphinx-theme#2451, sphinx-book-theme#988). A click on any other button of the kind is
  // passed on to the one the themes listen to, so that what happens is theirs: a dialog on a
  // narrow screen, a collapsed sidebar on a wide one. Remove once the theme listens to every button.
  function forwardSidebarButtons() {
    ["primary-toggle", "secondary-toggle"].forEach(function (kind) {
      var listened = document.querySelector("." + kind);
      document.querySelectorAll("." + kind).forEach(function (button) {
        if (button === listened) return;
        button.addEventListener("click", function (event) {
          event.preventDefault();
          event.stopPropagation();
          listened.click();
        });
      });
    });
  }

  // 2. Alt text on the figures a widget draws: the widget manager shows them with none. The build
  // puts the cell's figure description in a hidden element of the cell (site/rnn_site.py).
  function describe(img) {
    if (img.getAttribute("alt")) return;
    var cell = img.closest(".cell");
    var text = cell && cell.querySelector(".rnn-figure-alt");
    if (text) img.setAttribute("alt", text.textContent);
  }
  function describeWidgetFigures() {
    document.querySelectorAll(".cell img").forEach(describe);
    new MutationObserver(function (changes) {
      changes.forEach(function (change) {
        change.addedNodes.forEach(function (node) {
          if (node.nodeType !== 1) return;
          if (node.tagName === "IMG") describe(node);
          else node.querySelectorAll("img").forEach(describe);
        });
      });
    }).observe(document.body, { childList: true, subtree: true });
  }

  ready(forwardSidebarButtons);
  ready(describeWidgetFigures);
})();
