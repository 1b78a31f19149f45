/* Loaded after require.js and before the widget manager (see nb_ipywidgets_js in _config.yml). */
(function () {
  "use strict";
  // 1. The widget manager's AMD modules take their public path (where their fonts are) from
  //    where require.js thinks they live: by default, next to the page. Point it at _static.
  var script = document.currentScript;
  var base = script ? script.src.slice(0, script.src.lastIndexOf("/") + 1) : "";
  if (window.require && typeof window.require.config === "function") {
    window.require.config({
      paths: { "@jupyter-widgets/html-manager/dist": base + "vendor/html-manager" },
    });
  }
  // 2. The widget manager typesets HTML widgets with MathJax 2's MathJax.Hub.Queue. The book
  //    loads MathJax 3; give it that one call, mapped onto typesetPromise.
  function shim() {
    var mj = window.MathJax;
    if (!mj || mj.Hub) {
      return;
    }
    mj.Hub = {
      Queue: function (job) {
        var element = job && job[2];
        var m = window.MathJax;
        if (m && typeof m.typesetPromise === "function") {
          var ready = m.startup && m.startup.promise ? m.startup.promise : Promise.resolve();
          ready.then(function () {
            return m.typesetPromise(element ? [element] : undefined);
          }).catch(function () {});
        }
      },
    };
  }
  document.addEventListener("DOMContentLoaded", shim);
})();
