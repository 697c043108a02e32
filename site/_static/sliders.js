// The notebooks' sliders on the site, without a kernel (site/rnn_sliders.py builds them): each
// slider cell holds its sliders as range inputs, what the cell shows at the starting position, and
// what it shows at each other position the build computed, in <template> elements. Moving a slider
// shows the position's template in place of the view; where the build computed one slider at a time
// and the others are not where they start, they go back there (the note under the sliders says so).
(function () {
  "use strict";

  function setUp(box) {
    var inputs = Array.prototype.slice.call(box.querySelectorAll('input[type="range"]'));
    var view = box.querySelector(".rnn-sliders-view");
    var states = {};
    box.querySelectorAll("template[data-key]").forEach(function (t) {
      states[t.getAttribute("data-key")] = t;
    });
    function stops(input) {
      return JSON.parse(input.getAttribute("data-stops"));
    }
    function key() {
      return inputs.map(function (input) { return stops(input)[Number(input.value)]; }).join(",");
    }
    function show(moved) {
      if (!states[key()]) {
        inputs.forEach(function (input) {
          if (input !== moved) input.value = input.getAttribute("data-start");
        });
      }
      inputs.forEach(function (input) {
        var label = JSON.parse(input.getAttribute("data-labels"))[Number(input.value)];
        input.setAttribute("aria-valuetext", label);
        var readout = box.querySelector('output[for="' + input.id + '"]');
        if (readout) readout.textContent = label;
      });
      var state = states[key()];
      if (state) view.replaceChildren(state.content.cloneNode(true));
    }
    inputs.forEach(function (input) {
      input.addEventListener("input", function () { show(input); });
    });
  }

  function ready(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }
  ready(function () {
    document.querySelectorAll(".rnn-sliders").forEach(setUp);
  });
})();
