/* "Predict, then check": the answer boxes that booktools.question() puts in the book's exercises.
 *
 * Each box (div.predict) carries the library's answer, the relative tolerance, the unit, the known
 * mistakes ([{value, hint}]) and every message in data-* attributes, all written by Python. This
 * file only reads the reader's number and compares it: |x - answer| <= rtol * answer is right; a
 * number that close to a known mistake gets its hint; anything else is wrong. Empty input, text,
 * zero, a negative number or one that overflows (1e400) get their own message, never a tick.
 * The Check button and Enter in the input both check.
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

  /* What the box should say about this text: {state, text}. */
  function judge(box, text) {
    var d = box.dataset;
    var messages = JSON.parse(d.messages);
    var answer = parseFloat(d.answer);
    var rtol = parseFloat(d.rtol);
    var parsed = parse(text, d.unit || "");
    if (parsed.error) return { state: "invalid", text: messages[parsed.error] };
    if (near(parsed.value, answer, rtol)) return { state: "right", text: "✓ " + messages.right };
    var mistakes = JSON.parse(d.mistakes);
    for (var i = 0; i < mistakes.length; i++) {
      if (near(parsed.value, mistakes[i].value, rtol)) {
        return { state: "mistake", text: "✗ " + mistakes[i].hint };
      }
    }
    return { state: "wrong", text: "✗ " + messages.wrong };
  }

  function check(box) {
    var input = box.querySelector("input");
    var out = box.querySelector(".predict-message");
    var verdict = judge(box, input.value);
    box.dataset.state = verdict.state;
    out.textContent = verdict.text;
    input.setAttribute("aria-invalid", verdict.state === "right" ? "false" : "true");
  }

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
