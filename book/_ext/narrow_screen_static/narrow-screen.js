/* book/_ext/narrow_screen.py: what is wider than a narrow screen reflows instead of scrolling
 * sideways.
 *
 * Display formulas. MathJax 3's CHTML output does not break lines. Once MathJax has typeset the
 * page, each display formula's top-level terms are gathered into groups that begin at a relation
 * (=, ≥, ⟺, ...: the operators MathJax spaces thickly, space="4") or after a comma, and the
 * formula may wrap between groups, and only there: where it fits, nothing moves. A group (or an
 * aligned block) still wider than its column is drawn smaller, down to MIN_SCALE. Only the drawing
 * (aria-hidden) changes; the MathML that screen readers read is MathJax's own.
 *
 * Tables. A table still wider than its column once its cells wrap (course.css) is stacked: each
 * row a block, each cell led by its column's heading (table.narrow-stacked in course.css), as the
 * glossary is on a phone. A table that fits stays a table.
 *
 * Both are measured again whenever the window's width changes, and after a click or a <details>
 * opening (what was folded has a width only once shown).
 */
(() => {
  "use strict";
  const MIN_SCALE = 0.6;

  const isRelation = (node) => node.tagName === "MJX-MO" && node.getAttribute("space") === "4";
  const isComma = (node) => node.tagName === "MJX-MO" && !!node.querySelector("mjx-c.mjx-c2C");
  const isSpace = (node) => node.tagName === "MJX-MSTYLE" && !!node.querySelector("mjx-mspace");

  function groupFormula(math) {
    const groups = [[]];
    let afterComma = false;
    for (const term of Array.from(math.children)) {
      const last = groups[groups.length - 1];
      if (last.length && (isRelation(term) || (afterComma && !isSpace(term)))) groups.push([]);
      groups[groups.length - 1].push(term);
      if (isComma(term)) afterComma = true;
      else if (!isSpace(term)) afterComma = false;
    }
    if (groups.length < 2) return;
    for (const terms of groups) {
      const span = document.createElement("span");
      span.className = "narrow-math-group";
      span.style.cssText = "display: inline-block; white-space: nowrap; padding: 0.15em 0";
      terms[0].before(span);
      span.append(...terms);
    }
    math.classList.add("narrow-math");
    math.style.whiteSpace = "normal";
  }

  function fitFormula(container) {
    const math = container.querySelector("mjx-math");
    if (!math) return;
    math.style.fontSize = "";
    const room = container.clientWidth;
    const parts = math.classList.contains("narrow-math")
      ? Array.from(math.querySelectorAll(":scope > .narrow-math-group"))
      : [math];
    const widest = Math.max(...parts.map((part) => part.getBoundingClientRect().width));
    if (widest > room && room > 0) {
      math.style.fontSize = `${Math.max(MIN_SCALE, (room - 1) / widest) * 100}%`;
    }
  }

  function labelCells(table) {
    const headings = Array.from(table.querySelectorAll("thead tr:last-child > th"));
    if (!headings.length) return false;
    for (const row of table.querySelectorAll("tbody tr")) {
      Array.from(row.children).forEach((cell, column) => {
        const heading = headings[column];
        if (!heading || !heading.textContent.trim() && !heading.querySelector("mjx-container")) {
          return;
        }
        const label = document.createElement("span");
        label.className = "narrow-stacked-label";
        label.setAttribute("aria-hidden", "true");
        for (const node of heading.childNodes) label.append(node.cloneNode(true));
        label.querySelectorAll("mjx-assistive-mml, [id]").forEach((node) => {
          if (node.tagName === "MJX-ASSISTIVE-MML") node.remove();
          else node.removeAttribute("id");
        });
        cell.prepend(label);
      });
    }
    return true;
  }

  function fitTable(table) {
    const box = table.parentElement;
    table.classList.remove("narrow-stacked");
    if (box.scrollWidth > box.clientWidth + 1) table.classList.add("narrow-stacked");
  }

  const formulas = () => document.querySelectorAll('mjx-container[jax="CHTML"][display="true"]');
  const tables = () =>
    document.querySelectorAll("article .pst-scrollable-table-container > table.narrow-labelled");

  function fitAll() {
    formulas().forEach(fitFormula);
    tables().forEach(fitTable);
  }

  function start() {
    formulas().forEach((container) => groupFormula(container.querySelector("mjx-math")));
    document
      .querySelectorAll("article .pst-scrollable-table-container > table:not(.glossary)")
      .forEach((table) => {
        if (labelCells(table)) table.classList.add("narrow-labelled");
      });
    fitAll();
    let pending = false;
    const refit = () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        fitAll();
      });
    };
    // the window's width changed, or a click or a <details> showed what was folded
    window.addEventListener("resize", refit);
    document.addEventListener("click", refit, true);
    document.addEventListener("toggle", refit, true);
  }

  function whenTypeset() {
    const mathjax = window.MathJax && MathJax.startup && MathJax.startup.promise;
    (mathjax || Promise.resolve()).then(start);
  }

  if (document.readyState === "complete") whenTypeset();
  else window.addEventListener("load", whenTypeset);
})();
