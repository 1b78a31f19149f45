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
      [op.network ? say("FLOPs per chip") : say("FLOPs"), formatQuantity(e.flops, "FLOP")],
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
  // a slope's label in its line's hue, dark enough for small text on white (≥ 4.5:1)
  const TEXT_COLORS = { hbm: "#0072B2", level: "#00785A" };
  const ROOF_HEADROOM = 10; // the y axis ends this many times above the peak: room for labels
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

  /** Why a menu's option is not valid with the rest of the setting ("" when it is): the
   * reason is the option's title, and its text in brackets (a phone shows no tooltip). */
  const WHY_NOT = {
    format(chip, key) {
      const dtype = DATA.formats[key].compute;
      return dtype in chip.peak_flops_per_s ? "" : say("{chip} publishes no {dtype} peak", { chip: chip.name, dtype });
    },
    op(chip, key) {
      return chip.default_link || !DATA.operations[key].network
        ? ""
        : say("{chip} has no network link in the catalog", { chip: chip.name });
    },
    collective(chip, key, config) {
      const allowed = DATA.collective_chip_counts[key];
      return allowed.includes(Number(config.N)) ? "" : say("needs N = {needs}", { needs: allowed.join(", ") });
    },
  };

  /** The reason the configuration is not valid, naming the setting and what is allowed, or ""
   * (checked before the formulas run, from the library's own list of allowed N). */
  function invalidReason(config) {
    if (!DATA.operations[config.op].network) return "";
    const collective = config.collective || DATA.default_collective;
    const needs = DATA.collective_chip_counts[collective];
    if (!needs || needs.includes(Number(config.N))) return "";
    const allowed = DATA.collectives.filter((c) => DATA.collective_chip_counts[c].includes(Number(config.N)));
    return say(
      "Not a valid setting: the collective “{collective}” needs N = {needs}, and N is {n}. Move N to {needs}, or choose a collective allowed at N = {n}: {allowed}.",
      {
        collective: DATA.collective_labels[collective],
        needs: needs.join(", "),
        n: config.N,
        allowed: allowed.map((c) => `“${DATA.collective_labels[c]}”`).join(say(", ")),
      },
    );
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

  /** The corners [x, y] (CSS px, y down) of a w × h rectangle centred on (cx, cy) and turned
   * counter-clockwise by `angle` (rad), as CSS draws it with rotate(-angle). */
  function rectangle(cx, cy, w, h, angle = 0) {
    const [sin, cos] = [Math.sin(angle), Math.cos(angle)];
    return [[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]].map(([dx, dy]) => [
      cx + dx * cos + dy * sin,
      cy - dx * sin + dy * cos,
    ]);
  }

  /** from, from − step, … down to no less than `to` (at most 64 of them). */
  function steps(from, to, step) {
    const out = [];
    for (let k = 0; k < 64 && Number.isFinite(from - k * step) && from - k * step >= to; k++) out.push(from - k * step);
    return out;
  }

  function square(cx, cy, radius) {
    return rectangle(cx, cy, 2 * radius, 2 * radius);
  }

  /** Two convex polygons overlap (by more than touching): no edge of either separates them. */
  function overlapping(a, b) {
    for (const poly of [a, b]) {
      for (let i = 0; i < poly.length; i++) {
        const [x1, y1] = poly[i];
        const [x2, y2] = poly[(i + 1) % poly.length];
        const [nx, ny] = [y1 - y2, x2 - x1];
        const project = (p) => p.map(([px, py]) => px * nx + py * ny);
        const [pa, pb] = [project(a), project(b)];
        const eps = 1e-6 * Math.hypot(nx, ny);
        if (Math.max(...pa) <= Math.min(...pb) + eps || Math.max(...pb) <= Math.min(...pa) + eps) return false;
      }
    }
    return true;
  }

  /** How far down the screen the page's own pinned bars reach (the theme's sticky header), CSS
   * px: a sticky chart sits below them, never under them. Sidebars off the screen and bars
   * that are not at the top do not count. */
  function pinnedTop(own) {
    let bottom = 0;
    for (const node of document.body.querySelectorAll("*")) {
      if (own.contains(node)) continue;
      const style = getComputedStyle(node);
      if (style.position !== "sticky" && style.position !== "fixed") continue;
      if (style.display === "none" || style.visibility === "hidden") continue;
      const box = node.getBoundingClientRect();
      if (box.width < window.innerWidth / 2 || box.height === 0 || box.right <= 0 || box.left >= window.innerWidth) continue;
      const top = style.position === "sticky" ? parseFloat(style.top) || 0 : box.top;
      if (top <= 1 && top + box.height < window.innerHeight / 3) bottom = Math.max(bottom, top + box.height);
    }
    return bottom;
  }

  const PHONE_PX = 700; // at most this wide: the chart sits above the controls and stays in view
  const LABEL_GAP = 4; // CSS px between a label and the line or point it names
  const POINT_RADIUS_PX = 8; // the point's marker (12 px across), its white rim and a margin

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
      this.pin();
      window.addEventListener("resize", () => {
        this.pin();
        this.resize();
      });
      this.hideThemeOverlaysWhileInView();
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
      // the chart comes after the controls in the page's order (Tab reaches the chip menu first);
      // on a phone the stylesheet draws it above them, pinned below the theme's header
      this.chart = el("div", { class: "rx-chart", role: "img" });
      this.chartMessage = el("p", { class: "rx-chart-message", hidden: "" });
      this.summary = el("p", { class: "rx-summary", "aria-live": "polite", "aria-atomic": "true" });
      this.idealised = el("p", { class: "rx-idealised", role: "note", hidden: "" });
      this.table = el("table", { class: "rx-readout" });
      this.note = el("p", { class: "rx-note" });
      this.sources = el("details", { class: "rx-sources" });
      const figure = el("div", { class: "rx-figure" }, [this.chart, this.chartMessage]);
      root.append(this.controls, figure, this.summary, this.idealised, this.table, this.note, this.sources);
      this.figure = figure;
    }

    /** Menus and sliders follow the configuration (options depend on the chip and operation). An
     * option that is not valid with the rest of the setting is greyed out with its reason. */
    sync() {
      const chip = chipByName(this.config.chip);
      const fill = (menu, keys, label, current, whyNot) => {
        menu.select.textContent = "";
        menu.select.append(...keys.map((k) => el("option", { value: k, text: label(k) })));
        const valid = keys.filter((k) => !whyNot(k));
        const value = valid.includes(current) ? current : valid[0];
        menu.select.value = value;
        this.grey(menu, whyNot, label);
        return value;
      };
      const always = () => "";
      this.menus.chip.select.value = chip.name;
      const formatLabel = (k) => DATA.formats[k].label;
      const opLabel = (k) => DATA.operations[k].label;
      this.config.format = fill(this.menus.format, Object.keys(DATA.formats), formatLabel, this.config.format, (k) => WHY_NOT.format(chip, k));
      this.config.op = fill(this.menus.op, Object.keys(DATA.operations), opLabel, this.config.op, (k) => WHY_NOT.op(chip, k));
      const op = DATA.operations[this.config.op];
      const levels = chip.levels.filter((l) => l.network === op.network);
      const wanted = this.config.level || defaultLevel(chip, this.config.op);
      this.config.level = fill(this.menus.level, levels.map((l) => l.key), (k) => levelOf(chip, k).name, wanted, always);
      // the collective is kept as chosen: a collective the N slider later makes invalid is
      // greyed out by update(), and the readout says why
      const collectiveLabel = (k) => DATA.collective_labels[k];
      this.menus.collective.select.textContent = "";
      this.menus.collective.select.append(...DATA.collectives.map((k) => el("option", { value: k, text: collectiveLabel(k) })));
      this.config.collective = DATA.collectives.includes(this.config.collective) ? this.config.collective : DATA.default_collective;
      this.menus.collective.select.value = this.config.collective;
      this.menus.collective.wrap.hidden = !op.network;
      for (const [key, s] of Object.entries(this.sliders)) {
        s.wrap.hidden = !op.uses.includes(key);
        s.input.value = closestExponent(key, this.config[key]);
        this.config[key] = sliderValue(key, Number(s.input.value));
      }
    }

    /** Grey out each option of `menu` that whyNot(key) gives a reason for: disabled, the reason
     * as its title and, in brackets, in its text (a phone shows no tooltip). */
    grey(menu, whyNot, label) {
      for (const option of menu.select.options) {
        const why = whyNot(option.value);
        option.disabled = Boolean(why) && option.value !== menu.select.value;
        option.textContent = why ? say("{label} ({why})", { label: label(option.value), why }) : label(option.value);
        if (why) option.title = why;
        else option.removeAttribute("title");
        option.classList.toggle("rx-invalid", Boolean(why));
      }
    }

    update() {
      for (const [key, s] of Object.entries(this.sliders)) {
        const text = formatNumber(this.config[key], 7);
        s.value.textContent = text;
        s.input.setAttribute("aria-valuetext", `${key} = ${text}`);
      }
      const chip = chipByName(this.config.chip);
      this.grey(this.menus.collective, (k) => WHY_NOT.collective(chip, k, this.config), (k) => DATA.collective_labels[k]);
      const invalid = invalidReason(this.config);
      if (invalid) {
        this.clear(invalid);
        return;
      }
      let e;
      let rows;
      try {
        e = evaluate(this.config);
        rows = readoutRows(this.config);
      } catch (error) {
        this.clear(say("Not a valid setting: {error}", { error: error.message }));
        return;
      }
      this.reading = e;
      this.chartMessage.hidden = true;
      this.chartMessage.textContent = "";
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
      // on-chip memory: the costs count HBM bytes, and the readout says what that idealises
      const onchip = DATA.onchip_levels.includes(e.level);
      this.idealised.hidden = !onchip;
      this.idealised.textContent = onchip ? say(
            "Idealised at {level}: the bytes counted here are the HBM bytes (each input read once, each output written once), as if each crossed {level} once. A real kernel writes every byte into {level} and reads its tiles back many times; the library has no model of that traffic, so the true intensity at {level} is lower and this point is optimistic: an operation drawn compute-bound here may be bound by {level}.",
            { level: e.level_name },
          ) : "";
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

    /** An invalid setting: no point, no lines, no readout numbers, and `message` (naming the
     * setting and what is allowed) where the verdict goes. */
    clear(message) {
      this.reading = null;
      this.summary.textContent = message;
      this.table.textContent = "";
      this.idealised.hidden = true;
      this.note.hidden = true;
      const empty = say("No point: this setting is not valid (the readout says why).");
      this.chart.setAttribute("aria-label", empty);
      this.chartMessage.textContent = empty;
      this.chartMessage.hidden = false;
      if (this.plot) this.plot.setData(this.plot.data.map((column, i) => (i === 0 ? column : column.map(() => null))));
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

    /** The lines drawn: HBM's roofline and, at another level, that level's; bytes/s each. */
    lines(e) {
      const chip = chipByName(this.config.chip);
      const hbm = { key: "hbm", name: levelOf(chip, "hbm").name, bytes_per_s: levelOf(chip, "hbm").bytes_per_s, color: COLORS.hbm, text: TEXT_COLORS.hbm };
      if (e.level === "hbm") return [hbm];
      return [hbm, { key: e.level, name: e.level_name, bytes_per_s: e.bandwidth_bytes_per_s, color: COLORS.level, text: TEXT_COLORS.level }];
    }

    series(e) {
      const C = e.peak_flops_per_s;
      const [lo, hi] = DATA.intensity_range;
      const I = e.arithmetic_intensity;
      const finite = isFinite(I) ? I : hi;
      const xmin = Math.min(lo, finite / 3);
      const xmax = Math.max(hi, finite * 3);
      const bandwidths = this.lines(e).map((l) => l.bytes_per_s);
      const xs = [...new Set([xmin, ...bandwidths.map((w) => C / w), finite, xmax])]
        .filter((x) => x >= xmin && x <= xmax)
        .sort((a, b) => a - b);
      const roof = (w) => xs.map((x) => Math.min(C, x * w));
      const point = xs.map((x) => (x === finite ? e.achievable_flops_per_s : null));
      const ymin = Math.min(xmin * Math.min(...bandwidths), e.achievable_flops_per_s) / 3;
      // headroom above the roof for its label
      return { xs, data: [xs, ...bandwidths.map(roof), point], xmin, xmax, ymin, ymax: C * ROOF_HEADROOM };
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
      this.labelLayer = null; // the old plot's, gone with it
      this.plotLevel = levelName;
      // the page's fonts (a translated edition serves its own CJK font): a canvas draws with
      // the fonts it is told, and "sans-serif" alone would leave the glyphs to the reader's system
      const axisFont = `12px ${getComputedStyle(this.root).fontFamily || "sans-serif"}`;
      const opts = {
        width: this.width(),
        height: this.height(),
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
        hooks: { draw: [(u) => this.placeLabels(u)] },
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
      this.labelLayer = el("div", { class: "rx-labels", "aria-hidden": "true" });
      this.plot.over.append(this.labelLayer);
      this.placeLabels(this.plot);
    }

    /** The ridge (the critical intensity, with its value), the roof (the peak) and each
     * bandwidth slope, written on the plot in HTML: each label takes the first of its spots that
     * lies inside the plot and clear of the point and of the labels already placed (a slope's
     * label is turned along its slope; it is tested as the turned rectangle it is). */
    placeLabels(u) {
      const layer = this.labelLayer;
      if (!layer || !layer.isConnected) return;
      const e = this.reading;
      layer.textContent = "";
      if (!e) return;
      const W = u.over.clientWidth;
      const H = u.over.clientHeight;
      const x = (v) => u.valToPos(v, "x");
      const y = (v) => u.valToPos(v, "y");
      const C = e.peak_flops_per_s;
      const taken = [];
      const point = this.point();
      const pointBox = point && point.px ? square(point.px.left, point.px.top, POINT_RADIUS_PX) : null;
      if (pointBox) taken.push(pointBox);
      const inside = (corners) => corners.every(([px, py]) => px >= 1 && py >= 1 && px <= W - 1 && py <= H - 1);
      const free = (corners) => inside(corners) && !taken.some((t) => overlapping(t, corners));
      const label = (kind, text, color) => {
        const node = el("div", { class: `rx-label rx-label-${kind}`, text });
        if (color) node.style.color = color;
        layer.append(node);
        return node;
      };
      /** Put `node` at the first free spot ({cx, cy}: its centre), turned by `angle` (rad,
       * counter-clockwise), trying each of `widths` (its CSS max-width: narrower wraps onto
       * more lines). Nowhere free: with `fallback`, the first spot inside the plot and off the
       * point (else the very first), and true; without, nothing and false. */
      const place = (node, spots, { angle = 0, widths = [""], fallback = true } = {}) => {
        const all = [];
        let chosen = null;
        for (const maxWidth of widths) {
          node.style.maxWidth = maxWidth;
          const w = node.offsetWidth;
          const h = node.offsetHeight;
          const shaped = spots(w, h).map((s) => ({ ...s, w, h, maxWidth, corners: rectangle(s.cx, s.cy, w, h, angle) }));
          all.push(...shaped);
          chosen = shaped.find((s) => free(s.corners));
          if (chosen) break;
        }
        if (!chosen && !fallback) return false;
        const offPoint = (s) => inside(s.corners) && !(pointBox && overlapping(pointBox, s.corners));
        chosen = chosen || all.find(offPoint) || all[0];
        const { w, h } = chosen;
        node.style.maxWidth = chosen.maxWidth;
        node.style.left = `${chosen.cx - w / 2}px`;
        node.style.top = `${chosen.cy - h / 2}px`;
        if (angle) node.style.transform = `rotate(${-angle}rad)`;
        node.dataset.angle = String(angle);
        taken.push(chosen.corners);
        return true;
      };
      const at = (left, top, w, h) => ({ cx: left + w / 2, cy: top + h / 2 });
      // the ridge of the level the point is timed on, with a dashed line down to the axis
      const ridgeX = x(e.critical_intensity);
      const roofY = y(C);
      if (ridgeX >= 0 && ridgeX <= W) {
        layer.append(el("div", { class: "rx-ridge-line", style: `left:${ridgeX}px;top:${roofY}px;height:${H - roofY}px` }));
        taken.push(square(ridgeX, roofY, 4));
        const text = say("ridge: I* = {value} FLOPs/byte", { value: intensityText(e.critical_intensity, e.arithmetic_intensity) });
        // first at the foot of the ridge, right of its line, where no line runs (as
        // roofline_lib.plots does), then up that line, on two lines or three; only then left
        // of it, where the slope runs
        const node = label("ridge", text);
        const up = (side) => (w, h) => {
          const left = side > 0 ? ridgeX + LABEL_GAP : ridgeX - LABEL_GAP - w;
          const spots = steps(H - LABEL_GAP - h, roofY + LABEL_GAP, h / 2).map((top) => at(left, top, w, h));
          return side > 0 ? spots : [...spots, at(ridgeX - w / 2, roofY - LABEL_GAP - h, w, h)];
        };
        const widths = ["", "6em"];
        if (!place(node, up(1), { widths, fallback: false })) place(node, up(-1), { widths });
      }
      const lines = this.lines(e);
      // each slope: its level and bandwidth, written along it (as roofline_lib.plots writes
      // lines' labels on them), above the highest line (nothing is drawn there) and below the
      // others; half-way up first, then further from half-way, then on the other side
      const byBandwidth = [...lines].sort((a, b) => b.bytes_per_s - a.bytes_per_s);
      const fractions = Array.from({ length: 19 }, (_, k) => 0.05 * (k + 1)).sort((a, b) => Math.abs(a - 0.5) - Math.abs(b - 0.5));
      byBandwidth.forEach((line, i) => {
        const text = say("{level}: {bandwidth}", { level: line.name, bandwidth: formatQuantity(line.bytes_per_s, "B/s") });
        const ridge = Math.min(W, x(C / line.bytes_per_s));
        const lineY = (px) => y(u.posToVal(px, "x") * line.bytes_per_s);
        const angle = Math.atan2(lineY(0) - lineY(ridge), ridge); // rising, in screen px
        const [sin, cos] = [Math.sin(angle), Math.cos(angle)];
        const side = i === 0 ? -1 : 1; // -1: above the line
        place(
          label("slope", text, line.text),
          // next to the line, else far enough from it to pass the point by
          (w, h) =>
            [side, -side].flatMap((s) =>
              [h / 2 + 2, h / 2 + POINT_RADIUS_PX * Math.SQRT2 + 2].flatMap((gap) =>
                fractions.map((f) => ({ cx: f * ridge + s * sin * gap, cy: lineY(f * ridge) + s * cos * gap })),
              ),
            ),
          { angle },
        );
      });
      // the roof: the peak, on its flat part (right of the leftmost ridge), above it or below
      const flatFrom = Math.max(0, Math.min(...lines.map((l) => x(C / l.bytes_per_s))));
      place(label("roof", say("peak {value}", { value: formatQuantity(C, "FLOP/s") })), (w, h) => {
        // above the roof (nothing is drawn higher, left of the ridges too), from the right; then
        // just below its flat part
        const spots = steps(W - LABEL_GAP - w, 1, w / 8).map((left) => at(left, roofY - LABEL_GAP - h, w, h));
        for (const left of steps(W - LABEL_GAP - w, flatFrom, w / 8)) spots.push(at(left, roofY + LABEL_GAP, w, h));
        return spots.length ? spots : [at(W - LABEL_GAP - w, roofY - LABEL_GAP - h, w, h)];
      }, { widths: ["", "5.5em"] });
    }

    width() {
      return Math.max(240, Math.min(760, this.chart.clientWidth || 600));
    }

    height() {
      return 300;
    }

    resize() {
      if (this.plot) this.plot.setSize({ width: this.width(), height: this.height() });
    }

    /** On a phone the chart is pinned (sticky) just below the theme's own pinned header. */
    pin() {
      this.root.style.setProperty("--rx-pinned-top", `${pinnedTop(this.root)}px`);
    }

    /** While the explorer is on the screen the theme's floating "back to top" button stays
     * hidden: it would sit over the chart (the stylesheet hides it under this class). */
    hideThemeOverlaysWhileInView() {
      if (!("IntersectionObserver" in window)) return;
      new IntersectionObserver((entries) => {
        for (const entry of entries) {
          document.documentElement.classList.toggle("rx-explorer-in-view", entry.isIntersecting);
        }
      }).observe(this.root);
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
