/* "Predict, then check": the answer boxes that booktools.question() puts in the book's exercises.
 *
 * Each box (div.predict) carries the library's answer, the relative tolerance, the unit, the
 * question's own mistakes ([{value, hint}]), the conventions under which another value is also
 * right ([{value, note}]) and every message in data-* attributes, all written by Python
 * (roofline_lib.mistakes.answer_key checks that the tolerance separates them). This file only reads
 * the reader's number and compares it: |x - answer| <= rtol * answer is right; a number that close
 * to a convention's value is right with its note; that close to a listed mistake, its hint;
 * anything else is wrong, with no guessed hint. Empty input, text, zero, a negative number or one
 * that overflows (1e400) get their own message, never a tick. The Check button and Enter in the
 * input both check.
 *
 * The working that gives a box's answer away (div.held-back, made by the hold-until-answered
 * directive, which names the exercises it answers in data-for, space-separated) is folded when
 * the page loads, behind a button that shows it; right answers to all those exercises show it
 * too. Without JavaScript nothing is folded.
 */
(function () {
  "use strict";

  var PREFIX = { p: 1e-12, n: 1e-9, "µ": 1e-6, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
  var NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
  var GROUPED = /^[+-]?\d{1,3}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?$/;

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&");
  }

  /* The reader's text as a number in the box's unit, or {error: case}. */
  function parse(text, unit) {
    var s = text.trim();
    if (!s) return { error: "empty" };
    var scale = 1;
    if (unit) {
      var m = s.match(new RegExp("^(.*?)\\s*([pnµumkMGTPE]?)" + escapeRegExp(unit) + "$"));
      if (m) {
        s = m[1];
        scale = m[2] ? PREFIX[m[2]] : 1;
      }
    }
    if (GROUPED.test(s)) s = s.replace(/,/g, "");
    if (!NUMBER.test(s)) return { error: "text" };
    var value = Number(s) * scale;
    if (!isFinite(value)) return { error: "overflow" };
    if (value < 0) return { error: "negative" };
    if (value === 0) return { error: "zero" };
    return { value: value };
  }

  function near(x, target, rtol) {
    return Math.abs(x - target) <= rtol * Math.abs(target);
  }

  /* The first of a box's listed values ([{value, ...}]) within rtol of x, or null. */
  function listedNear(listed, x, rtol) {
    for (var i = 0; i < listed.length; i++) {
      if (near(x, listed[i].value, rtol)) return listed[i];
    }
    return null;
  }

  /* What the box should say about this text: {state, text}. */
  function judge(box, text) {
    var d = box.dataset;
    var messages = JSON.parse(d.messages);
    var answer = parseFloat(d.answer);
    var rtol = parseFloat(d.rtol);
    var parsed = parse(text, d.unit || "");
    if (parsed.error) return { state: "invalid", text: messages[parsed.error] };
    if (near(parsed.value, answer, rtol)) return { state: "right", text: "✓ " + messages.right };
    var convention = listedNear(JSON.parse(d.conventions || "[]"), parsed.value, rtol);
    if (convention) {
      return { state: "right", text: "✓ " + messages.convention.replace("{note}", convention.note) };
    }
    var mistake = listedNear(JSON.parse(d.mistakes), parsed.value, rtol);
    if (mistake) return { state: "mistake", text: "✗ " + mistake.hint };
    return { state: "wrong", text: "✗ " + messages.wrong };
  }

  function check(box) {
    var input = box.querySelector("input");
    var out = box.querySelector(".predict-message");
    var verdict = judge(box, input.value);
    box.dataset.state = verdict.state;
    out.textContent = verdict.text;
    input.setAttribute("aria-invalid", verdict.state === "right" ? "false" : "true");
    if (verdict.state === "right") unfold(box);
  }

  /* The exercise label a box answers ("predict-q-d-star" answers exercise "q-d-star"). */
  function exerciseOf(box) {
    var input = box.querySelector("input");
    return input ? input.id.replace(/^predict-/, "") : "";
  }

  function show(held) {
    held.classList.remove("is-held");
    var bar = held.previousElementSibling;
    if (bar && bar.classList.contains("held-bar")) bar.remove();
  }

  var answered = {};

  function unfold(box) {
    answered[exerciseOf(box)] = true;
    document.querySelectorAll("div.held-back.is-held").forEach(function (held) {
      var all = held.dataset.for.split(" ").every(function (label) {
        return answered[label];
      });
      if (all) show(held);
    });
  }

  /* Fold each held-back block behind a bar: a line saying why, and a button that shows it. */
  function fold() {
    document.querySelectorAll("div.held-back").forEach(function (held) {
      var labels = held.dataset.for.split(" ");
      var box = document.getElementById("predict-" + labels[0]);
      var host = box && box.closest(".predict");
      if (!host) return;
      var messages = JSON.parse(host.dataset.messages);
      var bar = document.createElement("p");
      bar.className = "held-bar";
      var said = labels.length > 1 ? messages.held_many : messages.held;
      bar.appendChild(document.createTextNode(said + " "));
      var button = document.createElement("button");
      button.type = "button";
      button.className = "held-show";
      button.textContent = messages.show;
      button.addEventListener("click", function () {
        show(held);
      });
      bar.appendChild(button);
      held.parentNode.insertBefore(bar, held);
      held.classList.add("is-held");
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fold);
  else fold();

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".predict .predict-check");
    if (button) check(button.closest(".predict"));
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter") return;
    var input = event.target.closest && event.target.closest(".predict input");
    if (!input) return;
    event.preventDefault();
    check(input.closest(".predict"));
  });

  window.roofline_predict = { parse: parse, judge: judge };
})();
