// Draws a cutune report page from the JSON embedded in it, with Vega, and records in #cutune-status what drew.
// Text from the database (configurations, messages, names) only ever reaches the page through textContent.
(function () {
  "use strict";

  var status = {done: false, errors: [], views: [], render_ms: null, page_ms: null};
  function showStatus() {
    document.getElementById("cutune-status").textContent = JSON.stringify(status);
  }
  window.addEventListener("error", function (e) {
    status.errors.push(String(e.message || e));
    showStatus();
  });
  window.addEventListener("unhandledrejection", function (e) {
    status.errors.push("unhandled: " + String(e.reason));
    showStatus();
  });

  // ---- DOM helpers --------------------------------------------------------------------------------------------

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function append(parent, children) {
    children.forEach(function (c) { if (c) parent.appendChild(c); });
    return parent;
  }
  function num(x, digits) {
    if (x === null || x === undefined || !isFinite(x)) return "–";
    return Number(x).toLocaleString("en-US", {maximumFractionDigits: digits, minimumFractionDigits: 0});
  }
  function ms(x) {
    if (x === null || x === undefined || !isFinite(x)) return "–";
    return Number(x).toPrecision(4);
  }
  function pct(x) { return x === null || x === undefined || !isFinite(x) ? "–" : (100 * x).toFixed(1) + "%"; }
  function known(x) { return x ? num(x, 0) : "–"; }
  function table(headers, rows, classes) {
    var t = el("table");
    var head = el("tr");
    headers.forEach(function (h, i) { head.appendChild(el("th", classes && classes[i], h)); });
    t.appendChild(head);
    rows.forEach(function (row) {
      var tr = el("tr");
      row.forEach(function (cell, i) {
        if (cell instanceof Node) {
          var td = el("td", classes && classes[i]);
          td.appendChild(cell);
          tr.appendChild(td);
        } else {
          tr.appendChild(el("td", classes && classes[i], cell));
        }
      });
      t.appendChild(tr);
    });
    return append(el("div", "table-scroll"), [t]);
  }

  // ---- Vega views ---------------------------------------------------------------------------------------------

  // Items of every named mark, summed over facets: what the browser test checks against the data.
  function countMarks(root) {
    var counts = {};
    (function walk(mark) {
      if (!mark || !mark.items) return;
      if (mark.name) counts[mark.name] = (counts[mark.name] || 0) + mark.items.length;
      mark.items.forEach(function (item) { (item.items || []).forEach(walk); });
    })(root);
    return counts;
  }

  var pending = [];
  function plot(parent, id, spec, caption, renderer) {
    var box = el("div", "plot-box");
    var target = el("div", "plot");
    target.id = id;
    append(box, [target, caption ? el("p", "caption", caption) : null]);
    parent.appendChild(box);
    spec.$schema = "https://vega.github.io/schema/vega/v5.json";  // a name only: nothing is fetched
    spec.padding = spec.padding || 5;
    try {
      var view = new vega.View(vega.parse(spec), {renderer: renderer || "svg", container: target, hover: true});
      pending.push(view.runAsync().then(function () {
        status.views.push({id: id, marks: countMarks(view.scenegraph().root)});
      }).catch(function (e) {
        status.errors.push(id + ": " + e);
      }));
    } catch (e) {
      status.errors.push(id + ": " + e);
    }
  }

  var axisTitle = {titleFontWeight: "normal", titleColor: "#444"};
  function axis(orient, scale, title, extra) {
    var a = {orient: orient, scale: scale, title: title};
    Object.assign(a, axisTitle, extra || {});
    return a;
  }
  function logDomain(values) {
    var lo = Infinity, hi = -Infinity;
    values.forEach(function (v) { if (v > 0 && isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } });
    if (!isFinite(lo)) return [0.001, 1];
    if (lo === hi) return [lo / 1.5, hi * 1.5];
    return [lo / 1.1, hi * 1.1];
  }

  // Best time found against evaluations, one step curve per run.
  function convergenceSpec(runs) {
    var rows = [];
    runs.forEach(function (r) {
      r.points.forEach(function (p) { rows.push({run: r.label, e: p[0], t: p[1]}); });
    });
    var spec = {
      width: 420, height: 220,
      data: [{name: "points", values: rows}],
      scales: [
        {name: "x", type: "linear", domain: [1, Math.max(2, rows.reduce(function (m, r) { return Math.max(m, r.e); }, 1))],
         range: "width", nice: true, zero: false},
        {name: "y", type: "log", domain: logDomain(rows.map(function (r) { return r.t; })), range: "height", nice: false},
        {name: "color", type: "ordinal", domain: {data: "points", field: "run"}, range: "category"}
      ],
      axes: [axis("bottom", "x", "evaluations", {tickMinStep: 1, format: "d"}),
             axis("left", "y", "best time found (ms)", {tickCount: 5, format: "~g"})],
      marks: [{
        type: "group", name: "curves",
        from: {facet: {name: "run_points", data: "points", groupby: "run"}},
        marks: [{
          type: "line", name: "curve", from: {data: "run_points"},
          encode: {enter: {
            x: {scale: "x", field: "e"}, y: {scale: "y", field: "t"}, stroke: {scale: "color", field: "run"},
            strokeWidth: {value: 2}, interpolate: {value: "step-after"},
            tooltip: {signal: "datum.run + ': ' + format(datum.t, '.4~g') + ' ms after ' + datum.e"}}}
        }, {
          type: "symbol", name: "improvements", from: {data: "run_points"},
          encode: {enter: {
            x: {scale: "x", field: "e"}, y: {scale: "y", field: "t"}, fill: {scale: "color", field: "run"}, size: {value: 20},
            tooltip: {signal: "datum.run + ': ' + format(datum.t, '.4~g') + ' ms after ' + datum.e + ' evaluations'"}}}
        }]
      }]
    };
    if (runs.length > 1 && runs.length <= 8) {
      spec.legends = [{stroke: "color", orient: "bottom", direction: "vertical", labelLimit: 400}];
    }
    return spec;
  }

  // How many configurations ran in each time bin (log scale), with the best marked.
  function histogramSpec(bins, best) {
    var lo = bins[0].lo, hi = bins[bins.length - 1].hi;
    return {
      width: 420, height: 200,
      data: [{name: "bins", values: bins}],
      scales: [
        {name: "x", type: "log", domain: [lo, hi], range: "width", nice: false},
        {name: "y", type: "linear", domain: {data: "bins", field: "n"}, range: "height", nice: true}
      ],
      axes: [axis("bottom", "x", "median time (ms)", {tickCount: 6, format: "~g"}), axis("left", "y", "configurations", {tickCount: 5})],
      marks: [
        {type: "rect", name: "bars", from: {data: "bins"},
         encode: {enter: {x: {scale: "x", field: "lo"}, x2: {scale: "x", field: "hi", offset: -1},
                          y: {scale: "y", field: "n"}, y2: {scale: "y", value: 0}, fill: {value: "#4c78a8"},
                          tooltip: {signal: "datum.n + ' configurations from ' + format(datum.lo, '.4~g') + ' to ' + format(datum.hi, '.4~g') + ' ms'"}}}},
        {type: "rule", name: "best", encode: {enter: {x: {scale: "x", value: best}, y: {value: 0},
                                                     y2: {field: {group: "height"}}, stroke: {value: "#e45756"},
                                                     strokeDash: {value: [4, 3]}}}}
      ]
    };
  }

  // Per parameter and value: the quartiles of the times (box), the median (tick) and the minimum (dot).
  function parameterSpec(parameters) {
    var rows = [], times = [];
    parameters.forEach(function (p) {
      p.values.forEach(function (v) {
        rows.push({param: p.name, value: v.value, n: v.n, ok: v.ok, min: v.min, q1: v.q1, median: v.median, q3: v.q3});
        if (v.ok > 0) times.push(v.min, v.q3);
      });
    });
    var columns = Math.min(4, parameters.length);
    return {
      data: [{name: "values", values: rows}, {name: "ran", source: "values", transform: [{type: "filter", expr: "datum.ok > 0"}]}],
      layout: {columns: columns, padding: {row: 24, column: 20}, bounds: "full"},
      scales: [{name: "y", type: "log", domain: logDomain(times), range: [110, 0], nice: false}],
      marks: [{
        type: "group", name: "panels",
        from: {facet: {name: "cell", data: "values", groupby: "param"}},
        sort: {field: "datum.param"},
        title: {text: {signal: "parent.param"}, fontSize: 12, fontWeight: "normal", anchor: "start"},
        encode: {enter: {width: {value: 200}, height: {value: 110}}},
        // A group's scales range over its own size: "width" would name the whole view's.
        scales: [{name: "x", type: "band", domain: {data: "cell", field: "value"}, range: [0, 200], padding: 0.3}],
        axes: [
          {orient: "bottom", scale: "x", labelAngle: {signal: "length(data('cell')) > 6 ? -45 : 0"},
           labelAlign: {signal: "length(data('cell')) > 6 ? 'right' : 'center'"}, labelOverlap: true},
          {orient: "left", scale: "y", tickCount: 4, format: "~g", title: "ms", titleFontWeight: "normal"}
        ],
        marks: [
          {type: "rect", name: "boxes", from: {data: "cell"},
           encode: {enter: {x: {scale: "x", field: "value"}, width: {scale: "x", band: 1},
                            y: {scale: "y", field: "q3"}, y2: {scale: "y", field: "q1"},
                            fill: {value: "#9ecae9"}, opacity: {signal: "datum.ok > 0 ? 1 : 0"},
                            tooltip: {signal: "datum.param + '=' + datum.value + ': ' + datum.ok + ' of ' + datum.n + ' ran; best ' + format(datum.min, '.4~g') + ' ms, median ' + format(datum.median, '.4~g') + ' ms'"}}}},
          {type: "rect", name: "medians", from: {data: "cell"},
           encode: {enter: {x: {scale: "x", field: "value"}, width: {scale: "x", band: 1},
                            y: {scale: "y", field: "median"}, height: {value: 2}, fill: {value: "#1f4e79"},
                            opacity: {signal: "datum.ok > 0 ? 1 : 0"}}}},
          {type: "symbol", name: "minima", from: {data: "cell"},
           encode: {enter: {xc: {scale: "x", field: "value", band: 0.5}, y: {scale: "y", field: "min"}, size: {value: 30},
                            fill: {value: "#e45756"}, opacity: {signal: "datum.ok > 0 ? 1 : 0"}}}}
        ]
      }]
    };
  }

  // Time against occupancy and against waves, coloured by registers per thread.
  function resourcesSpec(res) {
    var c = res.columns, rows = [];
    for (var i = 0; i < c.time.length; ++i) {
      rows.push({time: c.time[i], occupancy: c.occupancy[i], waves: c.waves[i], registers: c.registers[i], config: c.config[i]});
    }
    var waves = rows.map(function (r) { return r.waves; }).filter(function (w) { return w > 0; });
    var wavesLog = waves.length > 0 && Math.max.apply(null, waves) / Math.min.apply(null, waves) > 50;
    var wavesDomain = wavesLog ? logDomain(waves) : [0, Math.max(1, Math.max.apply(null, waves.concat([0])) * 1.05)];
    function panel(name, field, scaleType, domain, title) {
      return {
        type: "group", name: name + "-panel", encode: {enter: {width: {value: 300}, height: {value: 220}}},
        scales: [{name: "x", type: scaleType, domain: domain, range: [0, 300], nice: scaleType === "linear", zero: false}],
        axes: [axis("bottom", "x", title, {tickCount: 6}), axis("left", "y", "median time (ms)", {tickCount: 6, format: "~g"})],
        marks: [{
          type: "symbol", name: name + "-points", from: {data: "points"},
          encode: {enter: {x: {scale: "x", field: field}, y: {scale: "y", field: "time"}, size: {value: 16},
                           fill: {scale: "color", field: "registers"}, fillOpacity: {value: 0.6},
                           tooltip: {signal: "datum.config + ': ' + format(datum.time, '.4~g') + ' ms, occupancy ' + format(datum.occupancy, '.0%') + ', ' + format(datum.waves, '.3~g') + ' waves, ' + datum.registers + ' registers'"}}}
        }]
      };
    }
    return {
      data: [{name: "points", values: rows}],
      layout: {columns: 2, padding: 24, bounds: "full"},
      scales: [
        {name: "y", type: "log", domain: logDomain(rows.map(function (r) { return r.time; })), range: [220, 0], nice: false},
        {name: "color", type: "linear", domain: {data: "points", field: "registers"}, range: {scheme: "viridis"}, zero: false}
      ],
      legends: [{fill: "color", title: "registers", titleFontWeight: "normal", gradientLength: 160}],
      marks: [panel("occupancy", "occupancy", "linear", [0, 1], "occupancy (resident warps / most per SM)"),
              panel("waves", "waves", wavesLog ? "log" : "linear", wavesDomain, "waves (blocks / (SMs × blocks per SM))")]
    };
  }

  function statusBarsSpec(byStatus) {
    return {
      width: 260, height: 22 * byStatus.length,
      data: [{name: "statuses", values: byStatus}],
      scales: [
        {name: "y", type: "band", domain: {data: "statuses", field: "status"}, range: "height", padding: 0.2},
        {name: "x", type: "linear", domain: {data: "statuses", field: "n"}, range: "width", nice: true}
      ],
      axes: [axis("bottom", "x", "configurations", {tickCount: 4}), axis("left", "y", null)],
      marks: [{type: "rect", name: "status-bars", from: {data: "statuses"},
               encode: {enter: {y: {scale: "y", field: "status"}, height: {scale: "y", band: 1},
                                x: {scale: "x", value: 0}, x2: {scale: "x", field: "n"}, fill: {value: "#e45756"},
                                tooltip: {signal: "datum.n + ' ' + datum.status"}}}}]
    };
  }

  // The kernel's best time per shape, one colour per device.
  function acrossSpec(bests) {
    return {
      width: Math.max(260, 60 * bests.length), height: 220,
      data: [{name: "bests", values: bests}],
      scales: [
        {name: "x", type: "point", domain: {data: "bests", field: "shape"}, range: "width", padding: 0.5},
        {name: "y", type: "log", domain: logDomain(bests.map(function (b) { return b.best_ms; })), range: "height", nice: false},
        {name: "color", type: "ordinal", domain: {data: "bests", field: "device"}, range: "category"}
      ],
      axes: [axis("bottom", "x", "shape", {labelAngle: -30, labelAlign: "right"}), axis("left", "y", "best time (ms)", {tickCount: 5})],
      legends: [{fill: "color", title: "device", titleFontWeight: "normal", labelLimit: 300}],
      marks: [{type: "symbol", name: "best-points", from: {data: "bests"},
               encode: {enter: {x: {scale: "x", field: "shape"}, y: {scale: "y", field: "best_ms"}, size: {value: 80},
                                fill: {scale: "color", field: "device"},
                                tooltip: {signal: "datum.device + ', ' + datum.shape + ': ' + format(datum.best_ms, '.4~g') + ' ms with ' + datum.config"}}}}]
    };
  }

  // How each group's best configuration does in the other groups: its time there over the best time there.
  function portabilitySpec(cells, names) {
    var rows = cells.map(function (c) { return {from: names[c.from], to: names[c.to], ratio: c.ratio}; });
    var n = Object.keys(names).length;
    var side = Math.min(36, Math.max(18, 420 / n));
    return {
      width: side * n, height: side * n,
      data: [{name: "cells", values: rows}],
      scales: [
        {name: "x", type: "band", domain: Object.values(names), range: "width"},
        {name: "y", type: "band", domain: Object.values(names), range: "height"},
        {name: "color", type: "log", domain: [1, Math.max(2, Math.max.apply(null, rows.map(function (r) { return r.ratio; })))],
         range: {scheme: "orangered"}}
      ],
      axes: [axis("bottom", "x", "measured in", {labelAngle: -40, labelAlign: "right", labelLimit: 220}),
             axis("left", "y", "best configuration of", {labelLimit: 220})],
      legends: [{fill: "color", title: "time / best there", titleFontWeight: "normal", gradientLength: 120, format: ".2f"}],
      marks: [
        {type: "rect", name: "portability-cells", from: {data: "cells"},
         encode: {enter: {x: {scale: "x", field: "to"}, width: {scale: "x", band: 1}, y: {scale: "y", field: "from"},
                          height: {scale: "y", band: 1}, fill: {scale: "color", field: "ratio"}, stroke: {value: "#fff"},
                          tooltip: {signal: "'best of ' + datum.from + ' measured in ' + datum.to + ': ' + format(datum.ratio, '.3~g') + '× the best there'"}}}},
        {type: "text", name: "cell-labels", from: {data: "cells"},
         encode: {enter: {x: {scale: "x", field: "to", band: 0.5}, y: {scale: "y", field: "from", band: 0.5},
                          align: {value: "center"}, baseline: {value: "middle"}, fontSize: {value: 9},
                          text: {signal: "format(datum.ratio, '.2f')"},
                          fill: {signal: "datum.ratio > 1.6 ? '#fff' : '#222'"}}}}
      ]
    };
  }

  // Median best found over the optimum against evaluations, per strategy, with random sampling dashed.
  function replaySpec(strategies) {
    var rows = [];
    strategies.forEach(function (s) {
      s.budgets.forEach(function (b) { if (b.median !== null) rows.push({series: s.strategy, budget: b.budget, ratio: b.median}); });
    });
    strategies[0].budgets.forEach(function (b) {
      if (b.random !== null) rows.push({series: "random (exact)", budget: b.budget, ratio: b.random});
    });
    var ratios = rows.map(function (r) { return r.ratio; });
    var ratioTop = Math.max.apply(null, ratios.concat([1.01]));
    var ratioSpread = ratioTop / Math.max(1e-9, Math.min.apply(null, ratios.concat([ratioTop])));
    return {
      width: 520, height: 300,
      data: [{name: "curves", values: rows}],
      scales: [
        {name: "x", type: "log", domain: {data: "curves", field: "budget"}, range: "width", nice: false},
        // Ratios near 1 read best on a linear scale; a log scale only where some are far off.
        {name: "y", type: ratioSpread > 10 ? "log" : "linear", domain: ratioSpread > 10 ? logDomain(ratios) : [1, ratioTop],
         range: "height", nice: ratioSpread <= 10, zero: false},
        {name: "color", type: "ordinal", domain: {data: "curves", field: "series"}, range: "category"}
      ],
      axes: [axis("bottom", "x", "evaluations (budget)", {tickCount: 6, format: "~g"}),
             axis("left", "y", "median best found / optimum", {tickCount: 6, format: "~g"})],
      legends: [{stroke: "color", title: "strategy", titleFontWeight: "normal"}],
      marks: [{
        type: "group", name: "strategy-curves",
        from: {facet: {name: "series_points", data: "curves", groupby: "series"}},
        marks: [
          {type: "line", name: "strategy-line", from: {data: "series_points"},
           encode: {enter: {x: {scale: "x", field: "budget"}, y: {scale: "y", field: "ratio"},
                            stroke: {scale: "color", field: "series"}, strokeWidth: {value: 2},
                            strokeDash: {signal: "datum.series === 'random (exact)' ? [5, 4] : [1, 0]"}}}},
          {type: "symbol", name: "strategy-points", from: {data: "series_points"},
           encode: {enter: {x: {scale: "x", field: "budget"}, y: {scale: "y", field: "ratio"}, size: {value: 25},
                            fill: {scale: "color", field: "series"},
                            tooltip: {signal: "datum.series + ' after ' + datum.budget + ': ' + format(datum.ratio, '.4f') + '× the optimum'"}}}}
        ]
      }]
    };
  }

  // ---- Sections -----------------------------------------------------------------------------------------------

  // Every time on the page is labelled with the L2 state it was measured after: times of different ones differ.
  function groupTitle(g) {
    return g.kernel + " " + g.shape + " on " + g.device.name + " (L2 flush " + g.flush + ")";
  }

  function acrossTitle(a) {
    return a.kernel + " across devices and shapes (L2 flush " + a.flush + ")";
  }

  function bestTable(g) {
    var rows = g.fastest.map(function (r, i) {
      // A launch has at least one thread: none recorded means the resources are unknown (an older cutune, or an
      // import from another tool), and their zeros are shown as unknown, not as measured zeros; likewise a metric.
      var measured = r.threads_per_block > 0;
      var orUnknown = function (x) { return measured ? num(x, 0) : "–"; };
      var config = r.config + (r.unverified ? " (unverified)" : "");
      return [i + 1, el("span", null, config), ms(r.median_ms), pct(r.spread), r.metric ? num(r.metric, 1) : "–",
              pct(r.fraction_of_peak), known(r.registers), orUnknown(r.spill_bytes), known(r.static_smem_bytes),
              orUnknown(r.dynamic_smem_bytes),
              known(r.threads_per_block), known(r.blocks), known(r.blocks_per_sm), pct(r.occupancy), num(r.waves, 2),
              num(r.compile_ms, 1), num(r.verify_ms, 2), num(r.benchmark_ms, 2)];
    });
    return table(["#", "configuration", "median ms", "spread", "metric", "of peak", "regs", "spill B",
                  "smem static", "smem dyn.", "threads", "blocks", "blocks/SM", "occupancy", "waves",
                  "compile ms", "verify ms", "bench. ms"],
                 rows, [null, "config"]);
  }

  // Where tuning time went: the phases of the tuner's thread (they add up to the wall time, so shares are of it),
  // then NVRTC's CPU time and the GPUs' verifying and timing, which overlap them.
  function seconds(x) { return x === null || x === undefined || !isFinite(x) ? "–" : Number(x).toFixed(2); }
  function clockTable(first, rows) {
    var phases = rows[0][1].phases.map(function (p) { return p.name; });
    var body = rows.map(function (r) {
      var c = r[1];
      return [r[0], seconds(c.wall_s)].concat(c.phases.map(function (p) {
        return seconds(p.s) + (c.wall_s > 0 ? " (" + (100 * p.s / c.wall_s).toFixed(0) + "%)" : "");
      }), [seconds(c.compile_cpu_s), seconds(c.verify_s), seconds(c.benchmark_s)]);
    });
    var headers = [first, "wall s"].concat(phases, ["NVRTC CPU s", "verify s", "bench. s"]);
    return append(el("div", "table-scroll"), [table(headers, body, ["text"])]);
  }

  function groupSection(g) {
    var s = el("section");
    s.id = g.id;
    var c = g.counts;
    append(s, [
      el("h2", null, groupTitle(g)),
      el("p", "sub", "kernel version " + g.hash + " · " + g.device.arch + ", " + g.device.sm_count + " SMs · " +
         c.configurations + " configurations (" + c.ok + " ran correctly, " +
         (c.unverified > 0 ? c.unverified + " unverified, " : "") + c.failed + " failed" +
         (c.interrupted > 0 ? ", " + c.interrupted + " interrupted: killed from outside, measured again by a resume" : "") +
         ") · " + c.runs +
         " runs, " + c.measurements + " measurements")
    ]);
    if (g.fastest.length > 0) {
      var best = g.fastest[0];
      append(s, [el("h3", null, "Best configuration: " + best.config +
                    (best.unverified ? " (unverified: its outputs were not compared)" : "")),
                 el("p", "sub", ms(best.median_ms) + " ms median of " + best.samples + " runs; " +
                    (best.peak > 0 ? pct(best.fraction_of_peak) + " of the device's peak (" + num(best.peak, 0) + ")"
                                   : "no peak recorded") + ". The fastest " + g.fastest.length + ":"),
                 bestTable(g)]);
    } else {
      s.appendChild(el("p", "note", "No configuration ran correctly."));
    }
    var plots = el("div", "plots");
    s.appendChild(plots);
    if (g.convergence.length > 0) {
      plot(plots, g.id + "-convergence", convergenceSpec(g.convergence),
           "Convergence: the best time found against evaluations, per run (in the order measured).");
    }
    if (g.histogram.length > 0) {
      plot(plots, g.id + "-distribution", histogramSpec(g.histogram, g.fastest[0].median_ms),
           "Distribution of median times of the configurations that ran (dashed: the best).");
    }
    if (g.by_parameter.length > 0 && g.fastest.length > 0) {
      var params = el("div");
      s.appendChild(append(el("div"), [el("h3", null, "Time against each parameter's values"), params]));
      plot(params, g.id + "-parameters", parameterSpec(g.by_parameter),
           "Per value: box from the first to the third quartile of the times, median line, best (red dot). A " +
           "parameter matters where its values' best times differ.");
    }
    var resources = el("div");
    s.appendChild(append(el("div"), [el("h3", null, "Time against occupancy and waves"), resources]));
    if (g.resources) {
      plot(resources, g.id + "-resources", resourcesSpec(g.resources),
           (g.resources.shown < g.resources.total
                ? g.resources.shown + " of " + g.resources.total + " configurations shown (the fastest " +
                  Math.floor(g.resources.shown / 10) + " and an even sample of the rest). "
                : "") + "Occupancy and waves from the driver's occupancy calculator at the launch geometry measured.",
           g.resources.shown > 1000 ? "canvas" : "svg");
    } else {
      resources.appendChild(el("p", "note", "No resources recorded for these results (measured by an older cutune, " +
                                            "or imported from another tool)."));
    }
    if (g.clock.length > 0) {
      s.appendChild(append(el("div"), [
        el("h3", null, "Where each run's time went"),
        clockTable("run", g.clock.map(function (r) { return [r.label, r]; })),
        el("p", "note", "Seconds on the tuner's thread, in phases that add up to the wall time; NVRTC's time is " +
                        "summed over compile threads, verifying and timing over the GPUs.")]));
    }
    if (c.failed > 0 || c.interrupted > 0) {
      var f = g.failures;
      var failures = el("div", "plots");
      s.appendChild(append(el("div"), [el("h3", null, c.interrupted > 0 ? "Failed and interrupted configurations" :
                                                                          "Failed configurations"), failures]));
      plot(failures, g.id + "-failures", statusBarsSpec(f.by_status), null);
      var rows = f.messages.map(function (m) {
        return [m.status, m.n, el("span", null, m.config), el("pre", "message", m.message + (m.truncated ? "\n…" : ""))];
      });
      var messages = append(el("div"), [
        table(["status", "count", "e.g. configuration", "message"], rows, ["text", null, "config", "text"]),
        f.distinct_messages > f.messages.length
            ? el("p", "note", (f.distinct_messages - f.messages.length) + " rarer messages not shown") : null]);
      failures.appendChild(messages);
    }
    return s;
  }

  function acrossSection(a, groupsById) {
    var s = el("section");
    s.id = "across-" + a.kernel + "-" + a.flush;
    append(s, [el("h2", null, acrossTitle(a)),
               el("p", "sub", "The best configuration of each device and shape, and how it does elsewhere.")]);
    var plots = el("div", "plots");
    s.appendChild(plots);
    plot(plots, s.id + "-bests", acrossSpec(a.bests), "Best time per shape and device.");
    var names = {};
    a.bests.forEach(function (b) { names[b.id] = b.device + " · " + b.shape; });
    if (a.portability.length > 0) {
      plot(plots, s.id + "-portability", portabilitySpec(a.portability, names),
           "Each row's best configuration measured in each column's device and shape: its time there over the " +
           "best time there (1.00: also the best there; empty: not measured there).");
    }
    s.appendChild(table(["device", "shape", "best ms", "of peak", "configuration"], a.bests.map(function (b) {
      return [b.device, b.shape, ms(b.best_ms), pct(b.fraction_of_peak), el("span", null, b.config)];
    }), ["text", null, null, null, "config"]));
    return s;
  }

  function databasePage(data) {
    var header = document.getElementById("top");
    var f = data.filters, narrowed = [];
    if (f.kernel) narrowed.push("kernel " + f.kernel);
    if (f.shape) narrowed.push("shape " + f.shape);
    if (f.gpu) narrowed.push("GPU " + f.gpu);
    append(header, [el("h1", null, data.title),
                    el("p", "sub", data.database + (narrowed.length ? " · " + narrowed.join(", ") : "") + " · " +
                       data.groups.length + " kernel/shape/device groups · cutune " + data.cutune_version)]);
    var nav = el("nav"), list = el("ul");
    data.across.forEach(function (a) {
      var li = el("li"), link = el("a", null, acrossTitle(a));
      link.href = "#across-" + a.kernel + "-" + a.flush;
      list.appendChild(append(li, [link]));
    });
    data.groups.forEach(function (g) {
      var li = el("li"), link = el("a", null, groupTitle(g));
      link.href = "#" + g.id;
      list.appendChild(append(li, [link]));
    });
    header.appendChild(append(nav, [list]));
    var main = document.getElementById("report");
    if (data.clock) {
      var time = el("section");
      time.id = "clock";
      append(time, [el("h2", null, "Where the tuning time went"),
                    el("p", "sub", data.clock.runs + " runs that kept their time accounting, summed; each run's own " +
                                   "is in its group."),
                    clockTable("runs", [[data.clock.runs, data.clock]])]);
      main.appendChild(time);
    }
    var byId = {};
    data.groups.forEach(function (g) { byId[g.id] = g; });
    data.across.forEach(function (a) { main.appendChild(acrossSection(a, byId)); });
    data.groups.forEach(function (g) { main.appendChild(groupSection(g)); });
  }

  function replayPage(data) {
    var header = document.getElementById("top");
    var first = data.strategies[0];
    append(header, [el("h1", null, data.title),
                    el("p", "sub", data.source + " · " + first.space_size + " configurations (" + first.failed +
                       " failed), optimum " + ms(first.optimum_ms) + " ms · " + first.seeds + " seeds per strategy · cutune " +
                       data.cutune_version)]);
    var s = el("section");
    var plots = el("div", "plots");
    append(s, [el("h2", null, "Convergence of the search strategies"), plots]);
    plot(plots, "replay-convergence", replaySpec(data.strategies),
         "Median over seeds of the best time found divided by the optimum, after each budget of evaluations.");
    s.appendChild(table(["strategy", "evaluations to within 5%", "to within 1%"], data.strategies.map(function (r) {
      return [r.strategy, num(r.evals_to_5pct, 1), num(r.evals_to_1pct, 1)];
    }).concat([["random (expected)", num(first.random_evals_to_5pct, 0), num(first.random_evals_to_1pct, 0)]]),
                        ["text"]));
    document.getElementById("report").appendChild(s);
  }

  var started = performance.now();
  try {
    var data = JSON.parse(document.getElementById("cutune-data").textContent);
    document.title = data.title;
    if (data.kind === "replay") replayPage(data); else databasePage(data);
  } catch (e) {
    status.errors.push(String(e && e.stack || e));
  }
  Promise.all(pending).then(function () {
    status.render_ms = Math.round(performance.now() - started);  // drawing, after the scripts were parsed
    status.page_ms = Math.round(performance.now());               // since navigation started
    status.done = true;
    showStatus();
  });
  showStatus();
})();
