//! The inline style sheet and script of `hsg html`'s page (nothing is fetched: the file
//! works offline and can be mailed).

/// The page's style sheet.
pub const CSS: &str = "
body{font:14px system-ui,sans-serif;margin:1.2em 2em;color:#222;max-width:1400px}
h1{font-size:1.5em}h2{border-bottom:1px solid #ddd;padding-bottom:2px;margin-top:1.6em}
table{border-collapse:collapse;margin:0 1.5em 1em 0;vertical-align:top}
caption{font-weight:bold;text-align:left;padding:2px 0}
th,td{border:1px solid #ddd;padding:2px 8px;text-align:left}td[data-metric]{text-align:right;font-variant-numeric:tabular-nums}
.cols{display:flex;flex-wrap:wrap;align-items:flex-start;gap:8px}
.small{font-size:11px;color:#555}.title{font-size:13px;font-weight:bold}
svg.chart{border:1px solid #eee;background:#fff}
#map{border:1px solid #ccc;background:#fcfcfc;cursor:grab;touch-action:none}
#map text{font-size:10px;pointer-events:none}
.tag{padding:0 5px;border-radius:3px;color:#fff;font-size:12px}
.t0{background:#2e8b57}.t1{background:#c0392b}.t2{background:#5dade2}.t3{background:#e59866}.t4{background:#aab7b8}
.moves{font-family:monospace;word-break:break-all}.moves .critical{font-weight:bold;color:#c0392b;text-decoration:underline}
.boards{display:flex;flex-wrap:wrap;gap:12px}figure{margin:4px}pre{background:#f6f6f6;padding:4px 6px;line-height:1.1;margin:0}
figcaption{font-size:11px;color:#555}details{margin:2px 0}details[open]{background:#fafafa}
details:target,details.selected{outline:2px solid #5dade2}
.note{color:#8a5a00}.buttons button{margin-right:4px}
";

/// The page's script: records errors in the page itself (the tests read them back),
/// pans and zooms the map, opens the hyperstate a link or a map node names, and marks
/// the page ready.
pub const SCRIPT: &str = r#"
(function () {
  'use strict';
  var errors = [];
  window.addEventListener('error', function (e) {
    errors.push(String(e.message));
    document.body.dataset.errors = errors.join(' | ');
  });
  var map = document.getElementById('map');
  if (map) {
    var full = { x: 0, y: 0, w: Number(map.dataset.width), h: Number(map.dataset.height) };
    var view = { x: full.x, y: full.y, w: full.w, h: full.h };
    var show = function () {
      map.setAttribute('viewBox', view.x + ' ' + view.y + ' ' + view.w + ' ' + view.h);
    };
    var zoom = function (factor, cx, cy) {
      var nw = Math.min(Math.max(view.w * factor, 20), full.w * 20);
      var f = nw / view.w;
      view.x = cx - (cx - view.x) * f;
      view.y = cy - (cy - view.y) * f;
      view.w = nw;
      view.h = view.h * f;
      show();
    };
    var toMap = function (ev) {
      var r = map.getBoundingClientRect();
      var scale = Math.max(view.w / r.width, view.h / r.height);
      return { x: view.x + (ev.clientX - r.left) * scale, y: view.y + (ev.clientY - r.top) * scale, s: scale };
    };
    map.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var p = toMap(ev);
      zoom(ev.deltaY > 0 ? 1.2 : 1 / 1.2, p.x, p.y);
    }, { passive: false });
    var drag = null;
    map.addEventListener('pointerdown', function (ev) {
      if (ev.target.closest && ev.target.closest('a')) { return; }
      drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, s: toMap(ev).s };
      map.setPointerCapture(ev.pointerId);
    });
    map.addEventListener('pointermove', function (ev) {
      if (!drag) { return; }
      view.x = drag.vx - (ev.clientX - drag.x) * drag.s;
      view.y = drag.vy - (ev.clientY - drag.y) * drag.s;
      show();
    });
    map.addEventListener('pointerup', function () { drag = null; });
    document.querySelectorAll('button[data-zoom]').forEach(function (b) {
      b.addEventListener('click', function () {
        var cx = view.x + view.w / 2, cy = view.y + view.h / 2;
        if (b.dataset.zoom === 'in') { zoom(1 / 1.5, cx, cy); }
        else if (b.dataset.zoom === 'out') { zoom(1.5, cx, cy); }
        else { view = { x: full.x, y: full.y, w: full.w, h: full.h }; show(); }
      });
    });
  }
  var openTarget = function () {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    if (el && el.tagName === 'DETAILS') {
      document.querySelectorAll('details.selected').forEach(function (d) { d.classList.remove('selected'); });
      el.open = true;
      el.classList.add('selected');
      el.scrollIntoView({ block: 'center' });
    }
  };
  window.addEventListener('hashchange', openTarget);
  openTarget();
  document.body.dataset.ready = 'yes';
  document.body.dataset.nodes = String(document.querySelectorAll('#map a.node').length);
})();
"#;
