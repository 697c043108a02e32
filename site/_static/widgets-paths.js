// Where RequireJS finds the Jupyter widgets' HTML manager: in this site's _static folder, next to
// this script, whatever the page's depth, over http:// or file://. The manager loads its fonts
// from the folder its own module is found in, so this also keeps them on the site.
(function () {
  "use strict";
  var here = new URL(".", document.currentScript.src).href;
  window.require.config({ paths: { "@jupyter-widgets/html-manager/dist": here + "html-manager" } });
})();
