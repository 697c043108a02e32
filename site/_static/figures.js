// Figures on a narrow screen: a figure drawn wider than the column is shown shrunk to fit, and on a
// phone its labels become too small to read. A tap (or click) on such a figure shows it at the size
// it was drawn, in a box that scrolls sideways; another tap fits it back into the column. Figures
// that fit are left alone. The listener sits on the document, so that figures a slider swaps in
// (sliders.js) behave the same.
(function () {
  "use strict";

  function shrunk(img) {
    return img.naturalWidth > img.clientWidth * 1.15;
  }

  document.addEventListener("click", function (event) {
    var img = event.target;
    if (!(img instanceof HTMLImageElement) || !img.closest(".bd-article") || img.closest("a")) return;
    var zoomed = img.classList.contains("rnn-zoomed");
    if (!zoomed && !shrunk(img)) return;
    img.classList.toggle("rnn-zoomed", !zoomed);
    img.parentElement.classList.toggle("rnn-zoom-box", !zoomed);
    img.title = zoomed ? "Tap for the full size" : "Tap to fit the column";
    var hint = img.nextElementSibling;
    if (hint && hint.classList.contains("rnn-zoom-hint")) hint.textContent = hintText(!zoomed);
  });

  function hintText(zoomed) {
    return zoomed ? "⤡ tap the figure to fit it back into the column" : "⤢ tap the figure for its full size";
  }

  // a hint on the figures that a tap enlarges, once their sizes are known
  window.addEventListener("load", function () {
    document.querySelectorAll(".bd-article img").forEach(function (img) {
      if (shrunk(img) && !img.closest("a")) {
        img.classList.add("rnn-zoomable");
        img.title = "Tap for the full size";
        // a line under it, shown where nothing can hover (site.css): a touch screen has no tooltip
        var hint = document.createElement("span");
        hint.className = "rnn-zoom-hint";
        hint.textContent = hintText(false);
        img.insertAdjacentElement("afterend", hint);
      }
    });
  });

  // The series map (00's table: a row per notebook, six columns) is read as cards on a phone
  // (site.css): each cell carries its column's name, which the card shows in front of it.
  function cards() {
    document.querySelectorAll(".bd-article table").forEach(function (table) {
      var names = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
        return th.textContent.trim();
      });
      if (names[0] !== "Notebook" || names.indexOf("What it covers") < 0) return;
      table.classList.add("rnn-cards");
      table.querySelectorAll("tbody tr").forEach(function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, i) {
          if (names[i]) cell.setAttribute("data-label", names[i]);
        });
      });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", cards);
  else cards();
})();
