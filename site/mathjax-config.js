// MathJax's configuration, read when MathJax 4 loads (Sphinx puts this script before it, on pages
// with maths: mathjax_config_path in site/conf.py). MathJax reads only the elements that MyST marks
// as maths (its default classes), never a stray $ in a code cell's output.
//
// - Fonts from the site: MathJax 4 fetches the parts of its font it needs as it goes, by default
//   from a CDN; tools/build_site.py copies the font package beside MathJax (mathjax/fonts/).
// - A display equation wider than its column scrolls, whole, and site.css draws a shadow at the
//   edge that is cut off. MathJax 4 could break it into lines instead, but it breaks inside the
//   columns of an aligned block too (the series' equations for a step: o_t = ... on a phone lost
//   their left-hand sides under their equals signs), so display equations are never broken; inline
//   maths still breaks with the text around it.
// - Screen readers get each equation as MathML (MathJax's assistive MathML), which they read
//   themselves. MathJax 4's own speech and Braille, made by its speech-rule engine, are off: they
//   took 10 to 25 s of a busy 2-core machine's time on each notebook's page (a phone's is no
//   faster), and the engine's web worker does not start from file://. A reader can turn them on
//   in MathJax's menu (right-click an equation, Accessibility).
// - The Jupyter widgets typeset their labels with MathJax 2's call, MathJax.Hub.Queue(["Typeset",
//   MathJax.Hub, element]); MathJax 4 has no Hub, so a small one is provided: calls made before
//   MathJax is ready wait, then every element named is typeset with typesetPromise.
// - A full stop, comma or colon right after inline maths stays on its line: a browser may break a
//   line after any inline block, MathJax's output included, and on a phone lines began with ". The
//   case i = k". Inline maths and the punctuation after it are kept together (span.rnn-nobreak,
//   site.css), unless the maths fills its column or MathJax broke it over lines.
(function () {
  "use strict";
  var waiting = [];
  function gluePunctuation() {
    var room = document.querySelector(".bd-article").clientWidth; // the text's column
    document.querySelectorAll(".bd-article span.math").forEach(function (math) {
      var next = math.nextSibling;
      if (!next || next.nodeType !== 3 || math.querySelector('mjx-container[display="true"]')) return;
      var found = /^[.,;:!?)\]’”]+/.exec(next.data);
      // maths that MathJax broke over lines, or that fills its column, keeps its own line breaks
      if (!found || math.getClientRects().length > 1 || math.getBoundingClientRect().width + 8 > room) return;
      var glue = document.createElement("span");
      glue.className = "rnn-nobreak";
      math.parentNode.insertBefore(glue, math);
      glue.appendChild(math);
      glue.appendChild(document.createTextNode(found[0]));
      next.data = next.data.slice(found[0].length);
    });
  }
  function typeset(jobs) {
    jobs.forEach(function (job) {
      if (Array.isArray(job) && job[0] === "Typeset" && window.MathJax.typesetPromise) {
        window.MathJax.typesetPromise(job[2] ? [job[2]] : undefined);
      }
    });
  }
  window.MathJax = {
    loader: { paths: { fonts: "[mathjax]/fonts" } },
    tex: { tags: "none" },
    output: { displayOverflow: "scroll", linebreaks: { inline: true, width: "100%" } },
    options: {
      processHtmlClass: "tex2jax_process|mathjax_process|math|output_area",
      ignoreHtmlClass: "tex2jax_ignore|mathjax_ignore",
      menuOptions: { settings: { enrich: false, speech: false, braille: false, assistiveMml: true } },
    },
    startup: {
      ready: function () {
        window.MathJax.startup.defaultReady();
        window.MathJax.Hub = { Queue: function () { typeset(Array.prototype.slice.call(arguments)); } };
        window.MathJax.startup.promise.then(function () {
          typeset(waiting);
          waiting = [];
          gluePunctuation();
        });
      },
    },
    Hub: { Queue: function () { waiting.push.apply(waiting, arguments); } },
  };
})();
