/* Explorable figures (snippets/esm/explore.py prints them). Each figure.esm-explore shows its
 * default state without this script; here its controls are shown and, when one moves, the
 * numbers of the chosen setting are copied into the figure: the grid the build computed
 * (fetched at the first move), a heat map's cell colours from its codes, or, for kind
 * "decode", the next-token distribution computed from the build's logits. Loaded only on pages with such a figure (mkdocs_esm/explore.py adds the tag inside
 * Material's container, which instant navigation runs again on every page that has it).
 * Nothing moves unless the reader moves a control. */
(function () {
  "use strict";

  function apply(fig, state) {
    fig.querySelectorAll("[data-o]").forEach(function (el) {
      var at = el.getAttribute("data-a"), names = at ? at.split(" ") : [null];
      el.getAttribute("data-o").split(" ").forEach(function (o, m) {
        var v = state[+o], a = names[m];
        if (!a) el.textContent = v;
        else if (a.slice(0, 6) === "style.") el.style[a.slice(6)] = v;
        else el.setAttribute(a, v);
      });
    });
  }

  /* A heat map: cell i takes the palette's colour numbered by the i-th code (a base-36 digit). */
  function paint(fig, palette, codes) {
    fig.querySelectorAll(".esm-heat i").forEach(function (el, i) {
      el.style.background = palette[parseInt(codes[i], 36)];
    });
  }

  function pct(x) { return (100 * x).toFixed(2) + "%"; }

  /* Which rule stopped the kept set: top-k (k tokens reached, k below the vocabulary size),
   * top-p (the mass reached xi, xi below 1), both at the same token, or neither. */
  function rule(byK, byP) {
    return byK && byP ? "top-k and top-p bind together" : byK ? "top-k binds" : byP ? "top-p binds" : "neither rule binds";
  }

  /* P10: p = softmax(z / tau); keep the most likely tokens, at most k of them, stopping at the
   * first whose running mass reaches xi; renormalise the kept ones. The state: tokens kept,
   * mass kept, then per shown token: width of p, width of q, q, and whether it is dropped; then
   * "token" or "tokens" and the rule that binds. */
  function decode(d, values) {
    var tau = +values[0], k = +values[1], xi = +values[2], z = d.z, n = z.length, i;
    var s = z.map(function (x) { return x / tau; }), top = Math.max.apply(null, s);
    var e = s.map(function (x) { return Math.exp(x - top); });
    var sum = e.reduce(function (a, b) { return a + b; }, 0);
    var p = e.map(function (x) { return x / sum; });
    var order = d.order, kept = 0, mass = 0;
    for (i = 0; i < n && kept < k; i++) {
      mass += p[order[i]];
      kept++;
      if (mass >= xi) break;
    }
    var out = [String(kept), mass.toFixed(3)];
    d.shown.forEach(function (j, r) {
      var on = r < kept;
      out.push(pct(p[j]), pct(on ? p[j] / mass : 0), on ? (p[j] / mass).toFixed(3) : "0", on ? "0" : "1");
    });
    out.push(kept === 1 ? "token" : "tokens", rule(kept === k && k < n, mass >= xi && xi < 1));
    return out;
  }

  /* The figure's data: its controls from the data-explore attribute; its states from the file
   * beside the page that data-explore-src names (mkdocs_esm/explore.py moves them there),
   * fetched once, at the first move. */
  function load(fig) {
    if (!fig.esmData) {
      var d = JSON.parse(fig.getAttribute("data-explore")), src = fig.getAttribute("data-explore-src");
      fig.esmData = !src ? Promise.resolve(d) : fetch(src).then(function (r) {
        if (!r.ok) throw new Error(src + ": " + r.status);
        return r.json();
      }).then(function (more) {
        Object.keys(more).forEach(function (key) { d[key] = more[key]; });
        return d;
      });
      fig.esmControls = d.controls;
    }
    return fig.esmData;
  }

  function setup(fig) {
    if (fig.hasAttribute("data-ready")) return;
    fig.setAttribute("data-ready", "");
    var fields = fig.querySelectorAll("[data-c]"), moved = false;
    /* The chosen values: announced, shown and named in the caption at once; the figure's
     * numbers once its states are there (the controls may have moved again by then). */
    function update() {
      var said = [], cap = fig.querySelector(".esm-explore__shown"), data = load(fig);
      fields.forEach(function (el) {
        var n = +el.getAttribute("data-c"), i = +el.value, c = fig.esmControls[n],
          shown = fig.querySelector('[data-v="' + n + '"]');
        said[n] = c.shown[i];
        if (el.type === "range") el.setAttribute("aria-valuetext", c.say[i]);
        if (shown) shown.textContent = c.values[i];
      });
      if (cap) cap.textContent = "Shown: " + said.join(", ") + ".";
      fig.setAttribute("aria-busy", "true");   // until the numbers of the chosen setting are in
      data.then(show);
    }
    function show(d) {
      var at = [], values = [], k = 0;
      fig.removeAttribute("aria-busy");
      fields.forEach(function (el) {
        var n = +el.getAttribute("data-c");
        at[n] = +el.value;
        values[n] = d.controls[n].values[at[n]];
      });
      if (d.kind === "decode") return apply(fig, decode(d, values));
      at.forEach(function (i, n) { k = k * d.controls[n].values.length + i; });
      apply(fig, d.states[k]);
      if (d.heat) paint(fig, d.palette, d.heat[k]);
    }
    fields.forEach(function (el) {
      el.addEventListener("input", update);
      if (el.tagName === "SELECT" ? !el.options[el.selectedIndex].defaultSelected : el.value !== el.defaultValue) moved = true;
    });
    fig.querySelector(".esm-explore__controls").hidden = false;
    if (moved) update();   // a restored page (back button) may have kept moved controls
  }

  function init() { document.querySelectorAll("figure.esm-explore").forEach(setup); }

  init();
  if (!window.__esmExplore && window.document$ && typeof window.document$.subscribe === "function") {
    window.__esmExplore = true;
    window.document$.subscribe(init);
  }
})();
