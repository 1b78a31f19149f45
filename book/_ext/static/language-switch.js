/* The language switch (book/_ext/i18n.py): the header button to the same page of the other
   edition also keeps the section the reader is at. Section ids are the English ones in every
   edition, so the URL's #anchor means the same place there. */
(function () {
  "use strict";
  function follow(event) {
    var link = event.target.closest && event.target.closest("a.language-switch");
    if (!link || !window.location.hash) return;
    link.href = link.href.split("#")[0] + window.location.hash;
  }
  document.addEventListener("click", follow, true);
  document.addEventListener("auxclick", follow, true);
})();
