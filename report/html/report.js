"use strict";
(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll("#rows > .row"));
  var state = { status: "", tag: "", model: "", query: "" };
  var shown = document.getElementById("shown");
  function apply() {
    var n = 0, q = state.query.toLowerCase();
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i], d = r.dataset;
      var ok = (!state.status || d.status === state.status) &&
        (!state.tag || d.tags.indexOf(" " + state.tag + " ") >= 0) &&
        (!state.model || d.model === state.model) &&
        (!q || d.name.toLowerCase().indexOf(q) >= 0);
      r.hidden = !ok;
      if (ok) n++;
    }
    shown.textContent = n + " of " + rows.length + " shown";
  }
  var buttons = document.querySelectorAll("#filters button[data-status]");
  Array.prototype.forEach.call(buttons, function (b) {
    b.addEventListener("click", function () {
      Array.prototype.forEach.call(buttons, function (o) { o.classList.toggle("on", o === b); });
      state.status = b.dataset.status;
      apply();
    });
  });
  function bind(id, key, ev) {
    var el = document.getElementById(id);
    if (el) el.addEventListener(ev, function () { state[key] = el.value; apply(); });
  }
  // A row's details wait, already escaped, as the text of an inert
  // <script type="text/html"> (the parser skims it, no element is built)
  // until the row is first opened: the page opens at once however many
  // scenarios it holds.
  function fill(d) {
    var s = d.open && d.querySelector(":scope > script.lazy");
    if (!s) return;
    var t = document.createElement("template");
    t.innerHTML = s.textContent;
    d.replaceChild(t.content, s);
  }
  document.getElementById("rows").addEventListener("toggle", function (e) { fill(e.target); }, true);
  // A row opened while the page was still loading, before this script
  // ran, had its toggle event before anyone listened: fill it now.
  Array.prototype.forEach.call(document.querySelectorAll("#rows details[open]"), fill);
  bind("tag", "tag", "change");
  bind("model", "model", "change");
  bind("search", "query", "input");
  apply();
})();
