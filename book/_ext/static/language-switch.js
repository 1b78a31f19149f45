/* The language switch (book/_ext/i18n.py): the header button to the same page of the other
   edition also keeps the reader's place: the URL's #anchor while its target is on screen, else
   the section in view (the last section whose start has scrolled up to the sticky header). Section
   ids and labels are the English ones in every edition, so an #anchor means the same place
   there; a section's label (sec-...) is preferred to its title's id, since links use it. */
(function () {
  "use strict";
  var HEADINGS = ":scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > h5, :scope > h6";

  function sectionInView() {
    var line = 16; // below whichever header is on screen (the article's stays at the top)
    var headers = document.querySelectorAll(".bd-header, .bd-header-article");
    for (var h = 0; h !== headers.length; h += 1) {
      line = Math.max(line, headers[h].getBoundingClientRect().bottom + 16);
    }
    var current = null;
    var sections = document.querySelectorAll("article section[id]");
    for (var i = 0; i !== sections.length; i += 1) {
      if (!sections[i].querySelector(HEADINGS)) continue; // an exercise's inner box
      if (sections[i].getBoundingClientRect().top - line > 0) break;
      current = sections[i];
    }
    if (current === null || window.scrollY === 0) return "";
    var label = current.querySelector(":scope > span[id]");
    return "#" + (label ? label.id : current.id);
  }

  function anchorInView() {
    var hash = window.location.hash;
    var target = hash ? document.getElementById(decodeURIComponent(hash.slice(1))) : null;
    if (target === null) return "";
    var top = target.getBoundingClientRect().top;
    return top >= 0 && window.innerHeight - top > 0 ? hash : "";
  }

  function follow(event) {
    var link = event.target.closest && event.target.closest("a.language-switch");
    if (!link) return;
    var place = anchorInView() || sectionInView() || window.location.hash;
    link.href = link.href.split("#")[0] + place;
  }
  document.addEventListener("click", follow, true);
  document.addEventListener("auxclick", follow, true);
})();
