// MathJax's configuration, read when MathJax 3 loads (Sphinx puts this script before it, on pages
// with maths: mathjax_config_path in site/conf.py). MathJax reads only the elements that MyST marks
// as maths (its default classes), never a stray $ in a code cell's output.
// The Jupyter widgets typeset their labels with MathJax 2's call, MathJax.Hub.Queue(["Typeset",
// MathJax.Hub, element]); MathJax 3 has no Hub, so a small one is provided: calls made before
// MathJax is ready wait, then every element named is typeset with MathJax 3's typesetPromise.
(function () {
  "use strict";
  var waiting = [];
  function typeset(jobs) {
    jobs.forEach(function (job) {
      if (Array.isArray(job) && job[0] === "Typeset" && window.MathJax.typesetPromise) {
        window.MathJax.typesetPromise(job[2] ? [job[2]] : undefined);
      }
    });
  }
  window.MathJax = {
    tex: { tags: "none" },
    options: {
      processHtmlClass: "tex2jax_process|mathjax_process|math|output_area",
      ignoreHtmlClass: "tex2jax_ignore|mathjax_ignore",
      menuOptions: { settings: { assistiveMml: false } },
    },
    startup: {
      ready: function () {
        window.MathJax.startup.defaultReady();
        window.MathJax.Hub = { Queue: function () { typeset(Array.prototype.slice.call(arguments)); } };
        window.MathJax.startup.promise.then(function () { typeset(waiting); waiting = []; });
      },
    },
    Hub: { Queue: function () { waiting.push.apply(waiting, arguments); } },
  };
})();
