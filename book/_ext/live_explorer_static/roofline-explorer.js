/* The live roofline explorer of the static book: no kernel, no network.
 *
 * Data (chips, dtypes, presets, operations, slider ranges, citations) comes from roofline_lib at
 * build time (roofline_lib/explorer_data.py, written to _static/explorer-data.js as
 * window.ROOFLINE_EXPLORER_DATA). The formulas below are a second copy of roofline_lib's
 * (costs.py, attention.py, sharding.py, roofline.py) and its number formatting (fmt.py), written
 * in the same order of operations; tests/book/test_book_live_explorer.py holds them to the
 * library in headless Chromium. The chart is drawn by uPlot (vendored by tools/fetch_static.py).
 *
 * Every word it shows is the edition's: say(template, {fields}) looks the English template up
 * in DATA.words (roofline_lib.explorer_data.LIVE_WORDS, written in the build's language), and
 * labels, regimes and basis come in that language too; numbers are formatted as in English.
 *
 * window.rooflineExplorer.evaluate(config) -> numbers is the pure function the test calls.
 */
(function () {
  "use strict";
  if (window.rooflineExplorer) return; // loaded twice: the first copy is in charge
  const DATA = window.ROOFLINE_EXPLORER_DATA;

  /** roofline_lib.words.say: the English template in the edition's language, its {name}
   * fields filled from `fields`. A template the data lacks is an error, never English. */
  function say(english, fields = {}) {
    const text = DATA.words[english];
    if (text === undefined) throw new Error(`explorer-data.js has no words for ${JSON.stringify(english)}`);
    return text.replace(/\{(\w+)\}/g, (_, name) => {
      if (!(name in fields)) throw new Error(`say(${JSON.stringify(english)}) needs the field ${name}`);
      return String(fields[name]);
    });
  }

  // ---------------------------------------------------------------------------------------
  // roofline_lib.fmt
  // ---------------------------------------------------------------------------------------
  const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };
  const PREFIXES = { "-4": "p", "-3": "n", "-2": "µ", "-1": "m", 0: "", 1: "k", 2: "M", 3: "G", 4: "T", 5: "P", 6: "E" };
  const MIN_GROUP = -4;
  const MAX_GROUP = 6;

  /** The exact decimal digits of x >= 0 (finite): [integer part, fraction part]. */
  function exactDigits(x) {
    if (x >= 1e21) return [BigInt(x).toString(), ""];
    const [whole, fraction] = x.toFixed(100).split(".");
    return [whole, fraction.replace(/0+$/, "")];
  }

  /** x >= 0 rounded to n decimals (n < 0: to tens, hundreds, ...) as Python's round(x, n)
   * does: from the exact binary value, ties to even. Returns [digits, decimals]: the value is
   * digits × 10^-decimals (decimals = max(n, 0)). */
  function roundDecimal(x, n) {
    const [whole, fraction] = exactDigits(x);
    const all = whole + fraction.padEnd(Math.max(n, 0) + 1, "0");
    const keepLength = whole.length + n;
    if (keepLength < 0) return ["0", Math.max(n, 0)];
    let keep = all.slice(0, keepLength) || "0";
    const rest = all.slice(keepLength);
    const first = rest.charCodeAt(0) - 48;
    const tail = /[1-9]/.test(rest.slice(1));
    const odd = (keep.charCodeAt(keep.length - 1) - 48) % 2 === 1;
    if (first > 5 || (first === 5 && (tail || odd))) {
      keep = (BigInt(keep) + 1n).toString();
    } else {
      keep = BigInt(keep).toString();
    }
    if (n < 0 && keep !== "0") keep += "0".repeat(-n);
    return [keep, Math.max(n, 0)];
  }

  function decimalString(digits, decimals) {
    if (decimals === 0) return digits;
    const padded = digits.padStart(decimals + 1, "0");
    return padded.slice(0, -decimals) + "." + padded.slice(-decimals);
  }

  function roundSig(value, digits) {
    if (value === 0 || !isFinite(value)) return value;
    const a = Math.abs(value);
    const [d, k] = roundDecimal(a, digits - 1 - Math.floor(Math.log10(a)));
    const r = Number(decimalString(d, k));
    return value < 0 ? -r : r;
  }

  function withCommas(text) {
    const [whole, fraction] = text.split(".");
    const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return fraction === undefined ? grouped : grouped + "." + fraction;
  }

  function plain(value, digits) {
    const [d, k] = roundDecimal(value, digits - 1 - Math.floor(Math.log10(value)));
    let text = decimalString(d, k);
    if (text.includes(".")) text = text.replace(/0+$/, "").replace(/\.$/, "");
    return withCommas(text);
  }

  function pow10(exponent) {
    return Number("1e" + exponent);
  }

  function superscript(n) {
    return String(n).split("").map((c) => SUPERSCRIPT[c]).join("");
  }

  /** roofline_lib.fmt.format_number */
  function formatNumber(value, digits = 3) {
    const v = Number(value);
    if (Number.isNaN(v)) return "NaN";
    if (!isFinite(v)) return v > 0 ? "∞" : "−∞";
    if (v === 0) return "0";
    const sign = v < 0 ? "−" : "";
    const a = Math.abs(v);
    const r = roundSig(a, digits);
    if (r >= 1e-3 && r < 1e9) return sign + plain(a, digits);
    let exponent = Math.floor(Math.log10(r));
    let mantissa = plain(a / pow10(exponent), digits);
    if (mantissa === "10") {
      mantissa = "1";
      exponent += 1;
    }
    return `${sign}${mantissa} × 10${superscript(exponent)}`;
  }

  /** roofline_lib.fmt.format_quantity */
  function formatQuantity(value, unit, digits = 3) {
    const v = Number(value);
    if (v === 0 || !isFinite(v)) return `${formatNumber(v, digits)} ${unit}`;
    const rounded = roundSig(Math.abs(v), digits);
    let group = Math.floor(Math.log10(rounded) / 3);
    group = Math.min(Math.max(group, MIN_GROUP), MAX_GROUP);
    let scaled = v / pow10(3 * group);
    if (Math.abs(roundSig(scaled, digits)) >= 1000 && group < MAX_GROUP) {
      group += 1;
      scaled = v / pow10(3 * group);
    }
    return `${formatNumber(scaled, digits)} ${PREFIXES[group]}${unit}`;
  }

  /** roofline_lib.fmt.format_percent */
  function formatPercent(fraction, digits = 3) {
    return `${formatNumber(Number(fraction) * 100, digits)}%`;
  }

  /** roofline_lib.explorer._intensity: every digit of a whole number, and enough digits to
   * tell value from other. */
  function intensityText(value, other) {
    let digits = value > 0 && value < Infinity ? Math.max(3, Math.floor(Math.log10(value)) + 1) : 3;
    if (other !== undefined && other !== value) {
      while (digits < 8 && formatNumber(value, digits) === formatNumber(other, digits)) digits += 1;
    }
    return formatNumber(value, digits);
  }

  // ---------------------------------------------------------------------------------------
  // roofline_lib.costs, .attention, .sharding: FLOPs and bytes
  // ---------------------------------------------------------------------------------------
  function bytesPerElement(dtype) {
    const s = DATA.bytes_per_element[dtype];
    if (s === undefined) throw new Error(`unknown dtype ${dtype}`);
    return s;
  }

  function count(name, value) {
    const v = Number(value);
    if (!Number.isFinite(v) || v <= 0 || v !== Math.floor(v)) {
      throw new Error(`${name} must be a positive integer, got ${value}`);
    }
    return v;
  }

  function collectiveFactor(n, collective) {
    if (collective === "exchange") {
      if (n !== 2) {
        throw new Error(`collective 'exchange' (two chips swap partial sums) needs N = 2, got ${n}`);
      }
      return 1;
    }
    if (collective === "reduce_scatter") return (n - 1) / n;
    if (collective === "all_reduce") return (2 * (n - 1)) / n;
    throw new Error(`unknown collective ${collective}; allowed: ${DATA.collectives.join(", ")}`);
  }

  /** Each operation: sizes and a number format -> {flops, bytes, dtype} (bytes at the level
   * the operation is timed on: memory traffic, or network bytes per chip). */
  const COSTS = {
    dot_product(n, f) {
      const d = count("D", n.D);
      const s = bytesPerElement(f.x);
      return { flops: 2 * d - 1, bytes: 2 * d * s + s, dtype: f.x };
    },
    elementwise(n, f) {
      const e = count("B", n.B) * count("D", n.D);
      const k = count("k", n.k);
      const s = bytesPerElement(f.x);
      return { flops: k * e, bytes: 1 * e * s + e * s, dtype: f.x };
    },
    matmul(n, f) {
      const [b, d, ff] = [count("B", n.B), count("D", n.D), count("F", n.F)];
      const [sx, sy, sz] = [f.x, f.y, f.z].map(bytesPerElement);
      return { flops: 2 * b * d * ff, bytes: b * d * sx + d * ff * sy + b * ff * sz, dtype: f.compute };
    },
    batched_matmul(n, f) {
      const [b, d, ff] = [count("B", n.B), count("D", n.D), count("F", n.F)];
      const [sx, sy, sz] = [f.x, f.y, f.z].map(bytesPerElement);
      return {
        flops: 2 * b * d * ff,
        bytes: b * d * sx + b * d * ff * sy + b * ff * sz,
        dtype: f.compute,
      };
    },
    attention_standard(n, f) {
      const [h, S, d] = [count("H", n.H), count("S", n.S), count("d", n.d)];
      const s = bytesPerElement(f.x);
      const hsd = h * S * d;
      const hss = h * S * S;
      return { flops: 4 * hss * d, bytes: 3 * hsd * s + 2 * hss * s + (hsd * s + 2 * hss * s), dtype: f.x };
    },
    attention_flash(n, f) {
      const [h, S, d, m] = [count("H", n.H), count("S", n.S), count("d", n.d), count("M", n.M)];
      const s = bytesPerElement(f.x);
      const tiles = Math.ceil(S / m);
      const hsd = h * S * d;
      return { flops: 4 * h * S * S * d, bytes: hsd * s + 2 * tiles * hsd * s + hsd * s, dtype: f.x };
    },
    sharded_matmul(n, f, collective) {
      const [b, d, ff, chips] = [count("B", n.B), count("D", n.D), count("F", n.F), count("N", n.N)];
      if (d % chips !== 0) {
        throw new Error("D must be a multiple of N (each chip holds an equal shard of D)");
      }
      const factor = collectiveFactor(chips, collective);
      return { flops: 2 * b * (d / chips) * ff, bytes: factor * b * ff * bytesPerElement(f.z), dtype: f.compute };
    },
  };

  // ---------------------------------------------------------------------------------------
  // roofline_lib.roofline.analyze
  // ---------------------------------------------------------------------------------------
  function chipByName(name) {
    const chip = DATA.chips.find((c) => c.name === name);
    if (!chip) throw new Error(`unknown chip ${name}`);
    return chip;
  }

  function levelOf(chip, key) {
    const level = chip.levels.find((l) => l.key === key);
    if (!level) {
      throw new Error(`${chip.name} has no level ${key}; allowed: ${chip.levels.map((l) => l.key).join(", ")}`);
    }
    return level;
  }

  /** A link's one-way bytes/s per chip when N chips share the work, as
   * roofline_lib.hardware.Link.one_way_bytes_per_s_at: per-port figure × ports(N), with
   * ports(N) = ports_used (switched), min(max(N, 2) − 1, ports_used) (fully_connected,
   * torus_axis), 1 (single_port); a link given only its total keeps it at every N. */
  function linkBandwidth(level, n) {
    if (level.per_port_bytes_per_s == null) return level.bytes_per_s;
    let ports = level.ports_used;
    if (level.topology === "fully_connected" || level.topology === "torus_axis") {
      ports = Math.min(Math.max(n, 2) - 1, level.ports_used);
    } else if (level.topology === "single_port") {
      ports = 1;
    }
    return level.per_port_bytes_per_s * ports;
  }

  function defaultLevel(chip, op) {
    return DATA.operations[op].network ? chip.default_link : "hbm";
  }

  /** The verdict on one configuration: {chip, op, format, level, collective, and the sizes}. */
  function evaluate(config) {
    const op = DATA.operations[config.op];
    if (!op) throw new Error(`unknown operation ${config.op}`);
    const chip = chipByName(config.chip);
    const format = DATA.formats[config.format];
    if (!format) throw new Error(`unknown number format ${config.format}`);
    const sizes = Object.assign({}, DATA.defaults, config);
    const levelKey = config.level || defaultLevel(chip, config.op);
    if (!levelKey) throw new Error(`${chip.name} has no network link`);
    const level = levelOf(chip, levelKey);
    if (level.network !== op.network) {
      throw new Error(op.network ? "the network operation is timed on a link" : "a memory cost is timed on a memory level");
    }
    const cost = COSTS[config.op](sizes, format, config.collective || DATA.default_collective);
    const peak = chip.peak_flops_per_s[cost.dtype];
    if (peak === undefined) throw new Error(`${chip.name} has no published peak for ${cost.dtype}`);
    const nChips = op.network ? count("N", sizes.N) : null;
    const bandwidth = op.network ? linkBandwidth(level, nChips) : level.bytes_per_s;
    const tMath = cost.flops / peak;
    const tComms = cost.bytes / bandwidth;
    const lower = Math.max(tMath, tComms);
    const rate = lower > 0 ? cost.flops / lower : peak;
    const achievable = Math.min(rate, peak);
    return {
      level: levelKey,
      level_name: level.name,
      n_chips: nChips,
      compute_dtype: cost.dtype,
      flops: cost.flops,
      bytes_moved: cost.bytes,
      peak_flops_per_s: peak,
      bandwidth_bytes_per_s: bandwidth,
      t_math_s: tMath,
      t_comms_s: tComms,
      lower_bound_s: lower,
      upper_bound_s: tMath + tComms,
      regime: tMath >= tComms ? "compute-bound" : op.network ? "network-bound" : "memory-bound",
      arithmetic_intensity: cost.bytes > 0 ? cost.flops / cost.bytes : Infinity,
      critical_intensity: peak / bandwidth,
      achievable_flops_per_s: achievable,
      fraction_of_peak: achievable / peak,
    };
  }

  function shapeText(config) {
    return DATA.operations[config.op].uses.map((k) => `${k} = ${formatNumber(config[k], 7)}`).join(", ");
  }

  /** The readout, as roofline_lib.explorer.readout_rows words it. */
  function readoutRows(config) {
    const e = evaluate(config);
    const op = DATA.operations[config.op];
    const level = e.level_name;
    const I = e.arithmetic_intensity;
    const Ic = e.critical_intensity;
    const linkRows = op.network
      ? [[say("{level}, one-way per chip at N = {n}", { level, n: e.n_chips }), formatQuantity(e.bandwidth_bytes_per_s, "B/s")]]
      : [];
    return [
      [say("Operation"), `${op.label} (${shapeText(config)})`],
      ...linkRows,
      [op.network ? say("FLOPs per chip") : say("FLOPs"), formatNumber(e.flops)],
      [
        op.network ? say("Bytes moved per chip ({level})", { level }) : say("Bytes moved ({level})", { level }),
        formatQuantity(e.bytes_moved, "B"),
      ],
      [say("Arithmetic intensity"), `${intensityText(I, Ic)} FLOPs/byte`],
      [
        say("Critical intensity ({chip}, {dtype}, {level})", { chip: config.chip, dtype: e.compute_dtype, level }),
        `${intensityText(Ic, I)} FLOPs/byte`,
      ],
      [say("Regime"), say(e.regime)],
      [say("T_math = FLOPs / peak"), formatQuantity(e.t_math_s, "s")],
      [say("T_comms = bytes / {level} bandwidth", { level }), formatQuantity(e.t_comms_s, "s")],
      [say("Lower bound, max(T_math, T_comms)"), formatQuantity(e.lower_bound_s, "s")],
      [say("Upper bound, T_math + T_comms"), formatQuantity(e.upper_bound_s, "s")],
      [
        say("Achievable throughput"),
        say("{rate} ({percent} of peak)", {
          rate: formatQuantity(e.achievable_flops_per_s, "FLOP/s"),
          percent: formatPercent(e.fraction_of_peak),
        }),
      ],
    ];
  }

  // ---------------------------------------------------------------------------------------
  // The widget
  // ---------------------------------------------------------------------------------------
  const COLORS = { hbm: "#0072B2", level: "#009E73", point: "#D55E00" }; // Okabe & Ito
  let instanceCount = 0;

  function el(tag, attrs = {}, children = []) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "text") node.textContent = v;
      else node.setAttribute(k, v);
    }
    for (const c of children) node.append(c);
    return node;
  }

  function sliderValue(key, exponent) {
    return Math.round(2 ** exponent);
  }

  function closestExponent(key, value) {
    const [lo, hi, step] = DATA.sliders[key].exponents;
    const e = Math.round((Math.log2(value) - lo) / step) * step + lo;
    return Math.min(hi, Math.max(lo, e));
  }

  function availableFormats(chip) {
    return Object.keys(DATA.formats).filter((k) => DATA.formats[k].compute in chip.peak_flops_per_s);
  }

  function availableOps(chip) {
    return Object.keys(DATA.operations).filter((k) => chip.default_link || !DATA.operations[k].network);
  }

  function subscripts(text) {
    const span = document.createDocumentFragment();
    text.split(/\bT_(math|comms)\b/).forEach((part, i) => {
      if (i % 2 === 1) {
        span.append("T", el("sub", { text: part }));
      } else if (part) {
        span.append(part);
      }
    });
    return span;
  }

  /** The powers of ten from min to max: the ticks of a log axis. */
  function decades(u, axis, min, max) {
    const out = [];
    for (let e = Math.ceil(Math.log10(min) - 1e-9); e <= Math.floor(Math.log10(max) + 1e-9); e++) {
      out.push(pow10(e));
    }
    return out;
  }

  function powerLabel(v) {
    // uPlot passes null for a tick it drops to make room
    return v > 0 ? `10${superscript(Math.round(Math.log10(v)))}` : "";
  }

  class Explorer {
    constructor(root) {
      this.root = root;
      this.id = `rx${instanceCount++}`;
      const preset = JSON.parse(root.dataset.config || "{}");
      root.dataset.started = "true";
      this.config = Object.assign({ chip: "TPU v5e", format: "bf16", op: "matmul" }, DATA.defaults, preset);
      this.build();
      this.sync();
      this.update();
      window.addEventListener("resize", () => this.resize());
    }

    select(key, label) {
      const id = `${this.id}-${key}`;
      const select = el("select", { id, name: key });
      select.addEventListener("change", () => {
        this.config[key] = select.value;
        if (key === "chip" || key === "op") this.config.level = "";
        this.sync();
        this.update();
      });
      const wrap = el("div", { class: "rx-field" }, [el("label", { for: id, text: label }), select]);
      this.controls.append(wrap);
      return { select, wrap };
    }

    build() {
      const root = this.root;
      root.textContent = "";
      root.classList.add("rx-live");
      this.controls = el("div", { class: "rx-controls", role: "group", "aria-label": say("Explorer settings") });
      this.menus = {
        chip: this.select("chip", say("Chip")),
        format: this.select("format", say("Numbers")),
        op: this.select("op", say("Operation")),
        level: this.select("level", say("Bytes cross")),
        collective: this.select("collective", say("Collective")),
      };
      this.menus.chip.select.append(...DATA.chips.map((c) => el("option", { value: c.name, text: c.name })));
      this.sliders = {};
      for (const [key, slider] of Object.entries(DATA.sliders)) {
        const [lo, hi, step] = slider.exponents;
        const id = `${this.id}-${key}`;
        const input = el("input", { type: "range", id, min: lo, max: hi, step, "data-key": key });
        const value = el("output", { for: id, class: "rx-value" });
        input.addEventListener("input", () => {
          this.config[key] = sliderValue(key, Number(input.value));
          this.update();
        });
        const wrap = el("div", { class: "rx-field rx-slider" }, [
          el("label", { for: id }, [el("span", { text: slider.label }), document.createTextNode(" "), value]),
          input,
        ]);
        this.controls.append(wrap);
        this.sliders[key] = { input, value, wrap };
      }
      this.chart = el("div", { class: "rx-chart", role: "img" });
      this.summary = el("p", { class: "rx-summary", "aria-live": "polite", "aria-atomic": "true" });
      this.table = el("table", { class: "rx-readout" });
      this.note = el("p", { class: "rx-note" });
      this.sources = el("details", { class: "rx-sources" });
      root.append(this.controls, this.chart, this.summary, this.table, this.note, this.sources);
    }

    /** Menus and sliders follow the configuration (options depend on the chip and operation). */
    sync() {
      const chip = chipByName(this.config.chip);
      const fill = (menu, keys, label, current) => {
        menu.select.textContent = "";
        menu.select.append(...keys.map((k) => el("option", { value: k, text: label(k) })));
        const value = keys.includes(current) ? current : keys[0];
        menu.select.value = value;
        return value;
      };
      this.menus.chip.select.value = chip.name;
      this.config.format = fill(this.menus.format, availableFormats(chip), (k) => DATA.formats[k].label, this.config.format);
      this.config.op = fill(this.menus.op, availableOps(chip), (k) => DATA.operations[k].label, this.config.op);
      const op = DATA.operations[this.config.op];
      const levels = chip.levels.filter((l) => l.network === op.network);
      const wanted = this.config.level || defaultLevel(chip, this.config.op);
      this.config.level = fill(this.menus.level, levels.map((l) => l.key), (k) => levelOf(chip, k).name, wanted);
      this.config.collective = fill(this.menus.collective, DATA.collectives, (k) => DATA.collective_labels[k], this.config.collective);
      this.menus.collective.wrap.hidden = !op.network;
      for (const [key, s] of Object.entries(this.sliders)) {
        s.wrap.hidden = !op.uses.includes(key);
        s.input.value = closestExponent(key, this.config[key]);
        this.config[key] = sliderValue(key, Number(s.input.value));
      }
    }

    update() {
      for (const [key, s] of Object.entries(this.sliders)) {
        const text = formatNumber(this.config[key], 7);
        s.value.textContent = text;
        s.input.setAttribute("aria-valuetext", `${key} = ${text}`);
      }
      let e;
      let rows;
      try {
        e = evaluate(this.config);
        rows = readoutRows(this.config);
      } catch (error) {
        this.reading = null;
        this.summary.textContent = say("Not a valid setting: {error}", { error: error.message });
        this.table.textContent = "";
        return;
      }
      this.reading = e;
      const op = DATA.operations[this.config.op];
      const relation = e.regime === "compute-bound" ? "≥" : "<";
      const value = (label) => rows.find(([l]) => l === label)[1]; // by label: rows vary by op
      const critical = say("Critical intensity ({chip}, {dtype}, {level})", {
        chip: this.config.chip,
        dtype: e.compute_dtype,
        level: e.level_name,
      });
      this.summary.textContent = say(
        "{operation} is {regime} on {chip}: intensity {intensity} {relation} critical {critical}; it can reach {rate}.",
        {
          operation: op.label,
          regime: say(e.regime),
          chip: this.config.chip,
          intensity: value(say("Arithmetic intensity")).replace(" FLOPs/byte", ""),
          relation,
          critical: value(critical),
          rate: value(say("Achievable throughput")),
        },
      );
      this.table.textContent = "";
      this.table.append(el("caption", { text: say("Readout (roofline_lib's formulas and formatting)") }));
      const body = el("tbody");
      for (const [label, value] of rows) {
        body.append(el("tr", {}, [el("th", { scope: "row" }, [subscripts(label)]), el("td", { text: value })]));
      }
      this.table.append(body);
      this.note.textContent = op.vector ? DATA.vector_note : "";
      this.note.hidden = !op.vector;
      this.renderSources(e);
      this.draw(e);
    }

    renderSources(e) {
      const chip = chipByName(this.config.chip);
      const items = [
        [say("Peak, {dtype}", { dtype: e.compute_dtype }), formatQuantity(e.peak_flops_per_s, "FLOP/s"), chip.peak_citations[e.compute_dtype]],
      ];
      for (const key of new Set(["hbm", e.level])) {
        const level = levelOf(chip, key);
        const label = level.network
          ? say("{level}, one-way per chip at N = {n}", { level: level.name, n: e.n_chips })
          : say("{level} bandwidth", { level: level.name });
        const value = level.network ? e.bandwidth_bytes_per_s : level.bytes_per_s;
        items.push([label, formatQuantity(value, "B/s"), level.citation]);
      }
      this.sources.textContent = "";
      this.sources.append(el("summary", { text: say("Sources of the {chip} figures used here", { chip: chip.name }) }));
      const list = el("ul");
      for (const [label, value, c] of items) {
        const item = el("li", {}, [el("b", { text: say("{label}: {value}. ", { label, value }) })]);
        if (c) {
          item.append(
            el("a", { href: c.url, rel: "noopener", text: c.title }),
            say(": “{quote}” ({basis}; verified {date})", { quote: c.quote, basis: c.basis, date: c.verified }),
          );
          if (c.note) item.append(say(". {note}", { note: c.note }));
        } else {
          item.append(say("no citation in the catalog"));
        }
        list.append(item);
      }
      this.sources.append(list);
    }

    series(e) {
      const chip = chipByName(this.config.chip);
      const hbm = levelOf(chip, "hbm").bytes_per_s;
      const C = e.peak_flops_per_s;
      const [lo, hi] = DATA.intensity_range;
      const I = e.arithmetic_intensity;
      const finite = isFinite(I) ? I : hi;
      const xmin = Math.min(lo, finite / 3);
      const xmax = Math.max(hi, finite * 3);
      const other = e.level !== "hbm" ? e.bandwidth_bytes_per_s : null;
      const xs = [...new Set([xmin, C / hbm, other ? C / other : xmin, finite, xmax])]
        .filter((x) => x >= xmin && x <= xmax)
        .sort((a, b) => a - b);
      const roof = (w) => xs.map((x) => Math.min(C, x * w));
      const point = xs.map((x) => (x === finite ? e.achievable_flops_per_s : null));
      const ymin = Math.min(xmin * Math.min(hbm, other || hbm), e.achievable_flops_per_s) / 3;
      const data = other ? [xs, roof(hbm), roof(other), point] : [xs, roof(hbm), point];
      return { xs, data, xmin, xmax, ymin, ymax: C * 3 };
    }

    draw(e) {
      const s = this.series(e);
      this.ranges = s;
      this.chart.setAttribute(
        "aria-label",
        say(
          "Roofline of the {chip} ({dtype}, {level}): the point, at intensity {intensity} FLOPs/byte, reaches {rate} under a roof of {peak}.",
          {
            chip: this.config.chip,
            dtype: e.compute_dtype,
            level: e.level_name,
            intensity: intensityText(e.arithmetic_intensity, e.critical_intensity),
            rate: formatQuantity(e.achievable_flops_per_s, "FLOP/s"),
            peak: formatQuantity(e.peak_flops_per_s, "FLOP/s"),
          },
        ),
      );
      if (!window.uPlot) {
        this.chart.textContent = say("The chart library did not load; the readout below is complete.");
        return;
      }
      const levelName = e.level !== "hbm" ? e.level_name : "";
      if (this.plot && this.plotLevel === levelName) {
        this.plot.setData(s.data);
        return;
      }
      if (this.plot) this.plot.destroy();
      this.plotLevel = levelName;
      // the page's fonts (a translated edition serves its own CJK font): a canvas draws with
      // the fonts it is told, and "sans-serif" alone would leave the glyphs to the reader's system
      const axisFont = `12px ${getComputedStyle(this.root).fontFamily || "sans-serif"}`;
      const opts = {
        width: this.width(),
        height: 300,
        scales: {
          x: { time: false, distr: 3, log: 10, range: () => [this.ranges.xmin, this.ranges.xmax] },
          y: { distr: 3, log: 10, range: () => [this.ranges.ymin, this.ranges.ymax] },
        },
        axes: [
          {
            label: say("Arithmetic intensity (FLOPs/byte)"),
            font: axisFont,
            labelFont: axisFont,
            splits: decades,
            values: (u, splits) => splits.map(powerLabel),
          },
          {
            label: say("Achievable FLOP/s"),
            font: axisFont,
            labelFont: axisFont,
            size: 56,
            splits: decades,
            values: (u, splits) => splits.map(powerLabel),
          },
        ],
        legend: { live: false },
        cursor: { show: false },
        series: [
          {},
          { label: say("roofline, HBM"), stroke: COLORS.hbm, width: 2, spanGaps: true, points: { show: false } },
          ...(levelName
            ? [
                {
                  label: say("roofline, {level}", { level: levelName }),
                  stroke: COLORS.level,
                  width: 2,
                  dash: [6, 4],
                  spanGaps: true,
                  points: { show: false },
                },
              ]
            : []),
          {
            label: say("the operation"),
            stroke: COLORS.point,
            fill: COLORS.point,
            width: 0,
            paths: () => null,
            points: { show: true, size: 12, fill: COLORS.point, stroke: "#ffffff", width: 1.5 },
          },
        ],
      };
      this.plot = new window.uPlot(opts, s.data, this.chart);
    }

    width() {
      return Math.max(240, Math.min(760, this.chart.clientWidth || 600));
    }

    resize() {
      if (this.plot) this.plot.setSize({ width: this.width(), height: 300 });
    }

    /** The operation's point: its data coordinates and where it is drawn (CSS px in the chart). */
    point() {
      if (!this.reading) return null;
      const x = isFinite(this.reading.arithmetic_intensity) ? this.reading.arithmetic_intensity : this.ranges.xmax / 3;
      const y = this.reading.achievable_flops_per_s;
      const px = this.plot ? { left: this.plot.valToPos(x, "x"), top: this.plot.valToPos(y, "y") } : null;
      return { x, y, px };
    }
  }

  const instances = [];
  function start() {
    document
      .querySelectorAll(".live-explorer:not([data-started])")
      .forEach((root) => instances.push(new Explorer(root)));
  }

  window.rooflineExplorer = {
    evaluate,
    readoutRows,
    fmt: { number: formatNumber, quantity: formatQuantity, percent: formatPercent, intensity: intensityText },
    instances,
  };
  if (DATA) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  }
})();
