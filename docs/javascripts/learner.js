/* Embedding Space Math: private notes, skill checks and the practice queue.
 *
 * Everything stays in this browser's localStorage; nothing is sent anywhere. The markup
 * comes from hooks/learner.py. Material's instant navigation swaps page content without a
 * reload, so each page is set up from `document$.subscribe(...)`, and the event handlers
 * are bound once, on the document.
 *
 * Note text is only ever put in a textarea's `value` or a node's `textContent`: it is never
 * interpreted as HTML.
 */
(function () {
  "use strict";

  var NOTES_KEY = "esm.notes.v1";
  var QUIZ_KEY = "esm.quiz.v1";
  var NOTES_LIMIT = 8000;
  var EXPORT_FORMAT = "embedding-space-math-notes";
  var DAY = 24 * 60 * 60 * 1000;
  /* Days until a missed question comes back, after its 1st, 2nd, 3rd, 4th right answer
   * since it was last missed; the 5th right answer in a row takes it out of the queue. */
  var INTERVALS = [1, 3, 7, 21];
  var LETTERS = "abcdef";

  /* ---------------------------------------------------------------- storage */

  function load(key) {
    try {
      var value = JSON.parse(window.localStorage.getItem(key) || "{}");
      return value && typeof value === "object" && !Array.isArray(value) ? value : {};
    } catch (e) {
      return {};
    }
  }

  function save(key, value) {
    try {
      window.localStorage.setItem(key, JSON.stringify(value));
      return true;
    } catch (e) {
      return false;
    }
  }

  /* ---------------------------------------------------------- the schedule */

  /** The record of a question after one answer (a pure function; `now` in ms). */
  function answer(rec, choice, correct, now) {
    var r = {
      choice: choice, correct: correct, right: 0, wrong: 0, streak: 0,
      queued: false, due: null, last: now
    };
    if (rec) {
      r.right = rec.right || 0;
      r.wrong = rec.wrong || 0;
      r.streak = rec.streak || 0;
      r.queued = !!rec.queued;
      r.due = rec.due === undefined ? null : rec.due;
    }
    if (correct) {
      r.right += 1;
      r.streak += 1;
      if (r.queued) {
        if (r.streak > INTERVALS.length) {
          r.queued = false;
          r.due = null;
        } else {
          r.due = now + INTERVALS[r.streak - 1] * DAY;
        }
      }
    } else {
      r.wrong += 1;
      r.streak = 0;
      r.queued = true;
      r.due = now;
    }
    return r;
  }

  function isDue(rec, now) {
    return !!rec && rec.queued === true && typeof rec.due === "number" && rec.due <= now;
  }

  /* ----------------------------------------------------------------- notes */

  function notesPanel() {
    return document.querySelector(".esm-notes[data-page]");
  }

  /* 8000 -> "8,000". Not toLocaleString: its first call sets up the browser's locale data, a
   * task of about 0.1 s on a phone at every page load. */
  function grouped(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function showCount(panel, text) {
    var count = panel.querySelector(".esm-notes-count");
    if (count) {
      count.textContent = grouped(text.length) + " / " + grouped(NOTES_LIMIT) + " characters";
      count.classList.toggle("esm-notes-count--full", text.length >= NOTES_LIMIT);
    }
  }

  function initNotes() {
    var panel = notesPanel();
    if (!panel) return;
    var area = panel.querySelector(".esm-notes-text");
    var entry = load(NOTES_KEY)[panel.getAttribute("data-page")];
    area.value = entry && typeof entry.text === "string" ? entry.text.slice(0, NOTES_LIMIT) : "";
    showCount(panel, area.value);
  }

  function saveNote(panel, area) {
    if (area.value.length > NOTES_LIMIT) area.value = area.value.slice(0, NOTES_LIMIT);
    var notes = load(NOTES_KEY);
    var page = panel.getAttribute("data-page");
    if (area.value) {
      notes[page] = { text: area.value, updated: new Date().toISOString() };
    } else {
      delete notes[page];
    }
    var ok = save(NOTES_KEY, notes);
    showCount(panel, area.value);
    status(panel, ok ? "" : "Could not save: this browser refuses local storage.");
  }

  function status(panel, text) {
    var el = panel.querySelector(".esm-notes-status");
    if (el) el.textContent = text;
  }

  function exportNotes(panel) {
    var notes = load(NOTES_KEY);
    var data = {
      format: EXPORT_FORMAT, version: 1,
      exported: new Date().toISOString(), notes: notes
    };
    var blob = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
    var url = URL.createObjectURL(blob);
    var link = document.createElement("a");
    link.href = url;
    link.download = "embedding-space-math-notes-" + data.exported.slice(0, 10) + ".json";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
    var n = Object.keys(notes).length;
    status(panel, "Exported notes of " + n + " page" + (n === 1 ? "" : "s") + ".");
  }

  /** Merge an export into the stored notes; returns how many pages were imported. */
  function importNotes(text) {
    var data = JSON.parse(text);
    if (!data || data.format !== EXPORT_FORMAT || typeof data.notes !== "object" || !data.notes) {
      throw new Error("not a notes export of this site");
    }
    var notes = load(NOTES_KEY);
    var n = 0;
    Object.keys(data.notes).forEach(function (page) {
      var entry = data.notes[page];
      if (entry && typeof entry.text === "string" && entry.text) {
        notes[page] = {
          text: entry.text.slice(0, NOTES_LIMIT),
          updated: typeof entry.updated === "string" ? entry.updated : new Date().toISOString()
        };
        n += 1;
      }
    });
    if (!save(NOTES_KEY, notes)) throw new Error("this browser refuses local storage");
    return n;
  }

  function onImport(panel, input) {
    var file = input.files && input.files[0];
    if (!file) return;
    if (file.size > 2 * 1024 * 1024) {
      status(panel, "Not imported: the file is larger than 2 MB.");
      input.value = "";
      return;
    }
    file.text().then(function (text) {
      var n = importNotes(text);
      initNotes();
      status(panel, "Imported notes of " + n + " page" + (n === 1 ? "" : "s") + ".");
    }).catch(function (err) {
      status(panel, "Not imported: " + (err && err.message ? err.message : "unreadable file") + ".");
    }).then(function () {
      input.value = "";
    });
  }

  /* ----------------------------------------------------------- questions */

  function chosen(fieldset) {
    var input = fieldset.querySelector("input[type=radio]:checked");
    return input ? parseInt(input.value, 10) : null;
  }

  function showFeedback(fieldset, choice) {
    var right = parseInt(fieldset.getAttribute("data-answer"), 10);
    var correct = choice === right;
    var verdict = fieldset.querySelector(".esm-q-verdict");
    verdict.textContent = correct ? "Correct." :
      "Not quite: the answer is (" + LETTERS.charAt(right) + ").";
    fieldset.querySelector(".esm-q-explain").hidden = false;
    fieldset.classList.toggle("esm-q--right", correct);
    fieldset.classList.toggle("esm-q--wrong", !correct);
    var labels = fieldset.querySelectorAll(".esm-q-choice");
    for (var i = 0; i < labels.length; i++) {
      labels[i].classList.toggle("esm-q-choice--answer", i === right);
    }
  }

  function clearFeedback(fieldset) {
    fieldset.querySelector(".esm-q-verdict").textContent = "";
    fieldset.querySelector(".esm-q-explain").hidden = true;
    fieldset.classList.remove("esm-q--right", "esm-q--wrong");
    var inputs = fieldset.querySelectorAll("input[type=radio]");
    for (var i = 0; i < inputs.length; i++) inputs[i].checked = false;
    var labels = fieldset.querySelectorAll(".esm-q-choice");
    for (var j = 0; j < labels.length; j++) labels[j].classList.remove("esm-q-choice--answer");
  }

  function submit(fieldset) {
    var choice = chosen(fieldset);
    if (choice === null) {
      fieldset.querySelector(".esm-q-verdict").textContent = "Choose an answer first.";
      return;
    }
    var qid = fieldset.getAttribute("data-qid");
    var correct = choice === parseInt(fieldset.getAttribute("data-answer"), 10);
    var records = load(QUIZ_KEY);
    records[qid] = answer(records[qid], choice, correct, Date.now());
    save(QUIZ_KEY, records);
    showFeedback(fieldset, choice);
    var section = fieldset.closest(".esm-skillcheck");
    if (section) showScore(section, records);
    if (fieldset.closest(".esm-practice")) showQueue(records);
  }

  function showScore(section, records) {
    var qs = section.querySelectorAll(".esm-q");
    var answered = 0, right = 0;
    for (var i = 0; i < qs.length; i++) {
      var rec = records[qs[i].getAttribute("data-qid")];
      if (rec && rec.choice !== null && rec.choice !== undefined) {
        answered += 1;
        if (rec.correct) right += 1;
      }
    }
    section.querySelector(".esm-skillcheck-score").textContent = answered === 0 ? "" :
      "Score: " + right + " of " + qs.length + " right (" + answered + " answered), saved in this browser.";
  }

  function initSkillChecks() {
    var sections = document.querySelectorAll(".esm-skillcheck");
    if (!sections.length) return;
    var records = load(QUIZ_KEY);
    for (var s = 0; s < sections.length; s++) {
      var qs = sections[s].querySelectorAll(".esm-q");
      for (var i = 0; i < qs.length; i++) {
        var rec = records[qs[i].getAttribute("data-qid")];
        if (rec && typeof rec.choice === "number") {
          var input = qs[i].querySelector('input[type=radio][value="' + rec.choice + '"]');
          if (input) {
            input.checked = true;
            showFeedback(qs[i], rec.choice);
          }
        }
      }
      showScore(sections[s], records);
    }
  }

  function resetCheck(section) {
    var records = load(QUIZ_KEY);
    var qs = section.querySelectorAll(".esm-q");
    for (var i = 0; i < qs.length; i++) {
      delete records[qs[i].getAttribute("data-qid")];
      clearFeedback(qs[i]);
    }
    save(QUIZ_KEY, records);
    showScore(section, records);
  }

  /* ------------------------------------------------------- practice queue */

  function showQueue(records) {
    var root = document.querySelector(".esm-practice");
    var summary = document.querySelector(".esm-practice-summary");
    var later = document.querySelector(".esm-practice-later");
    if (!root || !summary) return;
    var now = Date.now();
    var shown = root.querySelectorAll(".esm-q:not([hidden])").length;
    var upcoming = [];
    var qs = practiceQuestions(root);
    for (var i = 0; i < qs.length; i++) {
      var rec = records[qs[i].getAttribute("data-qid")];
      if (rec && rec.queued && !isDue(rec, now)) {
        upcoming.push({ due: rec.due, what: qs[i].querySelector(".esm-q-origin").textContent, right: rec.streak });
      }
    }
    summary.textContent = shown === 0 ?
      "Nothing to practise now. Questions you miss in a skill check come back here." :
      shown + " question" + (shown === 1 ? "" : "s") + " to practise now.";
    if (later) {
      while (later.firstChild) later.removeChild(later.firstChild);
      upcoming.sort(function (a, b) { return a.due - b.due; });
      upcoming.forEach(function (u) {
        var li = document.createElement("li");
        li.textContent = u.what + ": back on " + new Date(u.due).toISOString().slice(0, 10) +
          " (right " + u.right + " time" + (u.right === 1 ? "" : "s") + " since the last miss)";
        later.appendChild(li);
      });
      later.hidden = upcoming.length === 0;
      var heading = document.querySelector(".esm-practice-later-title");
      if (heading) heading.hidden = upcoming.length === 0;
    }
  }

  /* Every question of the practice page: those shown, and those still in the bank's <template>. */
  function practiceQuestions(root) {
    var bank = root.querySelector(":scope > template.esm-practice-bank");
    var qs = Array.prototype.slice.call(root.querySelectorAll(".esm-q"));
    return bank ? qs.concat(Array.prototype.slice.call(bank.content.querySelectorAll(".esm-q"))) : qs;
  }

  function initPractice() {
    var root = document.querySelector(".esm-practice");
    if (!root) return;
    var records = load(QUIZ_KEY);
    var now = Date.now();
    var qs = practiceQuestions(root);
    /* Due questions first, the most often missed first among them. */
    qs.sort(function (a, b) {
      var ra = records[a.getAttribute("data-qid")] || {}, rb = records[b.getAttribute("data-qid")] || {};
      return (rb.wrong || 0) - (ra.wrong || 0);
    });
    /* Only the due questions enter the document; the others stay in the bank. */
    qs.forEach(function (q) {
      if (!isDue(records[q.getAttribute("data-qid")], now)) return;
      root.appendChild(q);
      q.hidden = false;
      clearFeedback(q);
    });
    showQueue(records);
  }

  /* ------------------------------------------------- scrollable regions */

  /* A table or formula wider than the page scrolls sideways; keyboard users can only
   * scroll it if it can take focus (WCAG 2.1.1). Marked when it actually overflows.
   * A ResizeObserver reads the widths after the browser's own layout: reading scrollWidth
   * from the page's set-up would force a layout of the whole page there (on a long page a
   * task of 0.2-0.5 s on a phone). It watches each box and its first child, so a box is
   * marked again when it or a block child changes size (window resize, a skipped box laid
   * out); a formula that fonts make wider keeps its block's width, so fonts arriving mark all
   * again. */
  function mark(el, wide) {
    if (wide) {
      if (!el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("data-esm-scroll", "");
      }
    } else if (el.hasAttribute("data-esm-scroll")) {
      el.removeAttribute("tabindex");
      el.removeAttribute("data-esm-scroll");
    }
  }

  /* Code blocks too: Material sets up each one only when it first shows (content.lazy). */
  var SCROLL_BOXES = ".md-typeset__scrollwrap, .md-typeset .math-display, .md-typeset .math-inline-wide, .md-typeset pre > code";

  /* A box in a block the browser skips (content-visibility: auto, far from the screen) has
   * no width yet: it is measured when the block is shown (the observer reports it then).
   * Keyboard users still find every box that overflows: their first Tab (and the first after
   * the window changed width, or fonts arrived) lays the whole page out for one measurement,
   * before the browser moves the focus. At every load that took tasks of 0.1-0.3 s on a phone.
   * A code block follows Material's own rule (it sets each block up when it first shows, and
   * then sets or removes the tabindex): focusable where the screen has hover and the code is
   * wider than its box; two rules would take the focus from a block Material just set up. */
  function skipped(el) {
    var inner = el.firstElementChild || el;   /* a display formula skips its own content */
    return !!inner.checkVisibility && !inner.checkVisibility({ contentVisibilityAuto: true });
  }

  var hover = window.matchMedia("(hover)");
  function overflows(el) {
    if (el.tagName === "CODE") return hover.matches && el.scrollWidth > el.offsetWidth;
    return el.scrollWidth > el.clientWidth + 1;
  }

  /* All widths are read before any box is marked: a read after a write would lay out again. */
  function measure(boxes) {
    var wide = boxes.map(overflows);
    for (var j = 0; j < boxes.length; j++) mark(boxes[j], wide[j]);
  }

  var measuredAt = null;   /* the window width at which every box was last measured */
  var sizes = new ResizeObserver(function (entries) {
    var boxes = [];
    for (var i = 0; i < entries.length; i++) {
      var box = entries[i].target.closest(SCROLL_BOXES);
      if (box && boxes.indexOf(box) < 0 && !skipped(box)) boxes.push(box);
    }
    measure(boxes);
  });

  function markScrollable() {
    measuredAt = null;
    sizes.disconnect();
    var boxes = document.querySelectorAll(SCROLL_BOXES);
    for (var i = 0; i < boxes.length; i++) {
      sizes.observe(boxes[i]);
      if (boxes[i].firstElementChild) sizes.observe(boxes[i].firstElementChild);
    }
  }

  function measureAll() {
    measuredAt = window.innerWidth;
    var shown = document.createElement("style");
    shown.textContent = ".md-typeset * { content-visibility: visible !important; }";
    document.head.appendChild(shown);
    measure(Array.prototype.slice.call(document.querySelectorAll(SCROLL_BOXES)));
    shown.remove();
  }

  function measureAllOnTab(ev) {
    if (ev.key === "Tab" && measuredAt !== window.innerWidth) measureAll();
  }

  /* ------------------------------------------------------------- wiring */

  function init() {
    initNotes();
    initSkillChecks();
    initPractice();
    markScrollable();
    window.requestAnimationFrame(markScrollable);   /* again after Material wraps the tables */
  }

  if (!window.__esmLearnerBound) {
    window.__esmLearnerBound = true;
    if (document.fonts) document.fonts.addEventListener("loadingdone", markScrollable);
    document.addEventListener("keydown", measureAllOnTab, true);
    document.addEventListener("input", function (ev) {
      var t = ev.target;
      if (t && t.classList && t.classList.contains("esm-notes-text")) {
        var panel = t.closest(".esm-notes");
        if (panel) saveNote(panel, t);
      }
    });
    document.addEventListener("change", function (ev) {
      var t = ev.target;
      if (t && t.classList && t.classList.contains("esm-notes-import")) {
        var panel = t.closest(".esm-notes");
        if (panel) onImport(panel, t);
      }
    });
    document.addEventListener("click", function (ev) {
      var t = ev.target && ev.target.closest ? ev.target.closest("button") : null;
      if (!t) return;
      if (t.classList.contains("esm-q-submit")) submit(t.closest(".esm-q"));
      else if (t.classList.contains("esm-skillcheck-reset")) resetCheck(t.closest(".esm-skillcheck"));
      else if (t.classList.contains("esm-notes-export")) exportNotes(t.closest(".esm-notes"));
    });
  }


  /* ---------------------------------------------------------- deferred content */
  /* mkdocs_esm/defer.py ships a demo's Code tab and the content of a closed <details> inside
   * <template data-esm-defer>: parsed, but not in the document (no style, layout or element
   * count) until the reader opens it. The handlers below are bound once, on the document. */

  var deferredCopy = 0;

  function restoreIn(box) {
    var tpl = box && box.querySelector(":scope > template[data-esm-defer]");
    if (!tpl) return;
    var note = tpl.previousElementSibling;
    if (note && note.tagName === "NOSCRIPT") note.remove();
    var content = tpl.content;
    /* Material adds its copy button when it mounts a page: add it to restored code. */
    content.querySelectorAll("pre > code").forEach(function (code) {
      var pre = code.parentElement;
      if (!pre.id) pre.id = "__code_esm" + (deferredCopy++);
      var nav = document.createElement("nav");
      nav.className = "md-code__nav";
      var button = document.createElement("button");
      button.className = "md-code__button";
      button.title = "Copy to clipboard";
      button.setAttribute("data-clipboard-target", "#" + pre.id + " > code");
      button.setAttribute("data-md-type", "copy");
      nav.appendChild(button);
      pre.insertBefore(nav, code);
    });
    tpl.replaceWith(content);
    box.style.removeProperty("--esm-lines");
    /* Restored code and formulas scroll like the others: watch them for overflow too. */
    box.querySelectorAll(SCROLL_BOXES).forEach(function (el) {
      sizes.observe(el);
      if (el.firstElementChild) sizes.observe(el.firstElementChild);
    });
  }

  /* The notebook's later code blocks: put back when they come within about two screens. */
  var nearObserver = null;
  function watchNear() {
    var boxes = document.querySelectorAll("template[data-esm-near]");
    if (!boxes.length) return;
    if (!("IntersectionObserver" in window)) { restoreAll(); return; }
    if (!nearObserver) {
      nearObserver = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          if (!entry.isIntersecting) return;
          nearObserver.unobserve(entry.target);
          restoreIn(entry.target);
        });
      }, { rootMargin: "200% 0px" });
    }
    boxes.forEach(function (tpl) { nearObserver.observe(tpl.parentElement); });
  }

  function restoreTabs(set) {
    var inputs = set.querySelectorAll(":scope > input");
    var blocks = set.querySelectorAll(":scope > .tabbed-content > .tabbed-block");
    for (var k = 0; k < inputs.length; k++) if (inputs[k].checked) restoreIn(blocks[k]);
  }

  function restoreCheckedTabs() {
    document.querySelectorAll(".tabbed-set").forEach(restoreTabs);
  }

  function restoreAll() {
    document.querySelectorAll("template[data-esm-defer]").forEach(function (tpl) {
      restoreIn(tpl.parentElement);
    });
  }

  /* A link whose target is inside deferred content: put that content back first. */
  function restoreTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id || document.getElementById(id)) return;
    document.querySelectorAll("template[data-esm-defer]").forEach(function (tpl) {
      if (tpl.content.getElementById(id)) {
        var box = tpl.parentElement;
        restoreIn(box);
        var details = box.closest("details");
        if (details) details.open = true;
        var el = document.getElementById(id);
        if (el) el.scrollIntoView();
      }
    });
  }

  function bindDeferred() {
    if (window.__esmDeferBound) return;
    window.__esmDeferBound = true;
    document.addEventListener("click", function (ev) {
      var summary = ev.target && ev.target.closest ? ev.target.closest("summary") : null;
      if (summary && summary.parentElement.tagName === "DETAILS") restoreIn(summary.parentElement);
    }, true);
    document.addEventListener("toggle", function (ev) {
      if (ev.target.tagName === "DETAILS" && ev.target.open) restoreIn(ev.target);
    }, true);
    document.addEventListener("change", function (ev) {
      if (ev.target && ev.target.matches && ev.target.matches(".tabbed-set > input")) {
        restoreCheckedTabs();
        setTimeout(restoreCheckedTabs, 0);   /* after Material's linked tabs followed */
      }
    }, true);
    window.addEventListener("beforeprint", restoreAll);
    window.addEventListener("hashchange", restoreTarget);
  }

  window.ESMDefer = { restoreAll: restoreAll };
  bindDeferred();
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(function () { restoreCheckedTabs(); restoreTarget(); watchNear(); });
  } else {
    restoreCheckedTabs();
    restoreTarget();
    watchNear();
  }

  window.ESMLearner = {
    answer: answer, isDue: isDue, importNotes: importNotes,
    INTERVALS: INTERVALS, DAY: DAY, NOTES_LIMIT: NOTES_LIMIT,
    NOTES_KEY: NOTES_KEY, QUIZ_KEY: QUIZ_KEY
  };

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
